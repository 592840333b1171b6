/**
 * CertificateSigningRequests (certificates.k8s.io/v1), as upstream's
 * pkg/apis/certificates/validation: any name; spec.request a PEM "CERTIFICATE
 * REQUEST" that parses and whose self-signature verifies; usages required,
 * known and unique; a well-formed signerName (not the legacy one);
 * expirationSeconds >= 600; conditions typed, Approved/Denied/Failed only
 * "True", Approved and Denied exclusive, no type twice; status.certificate
 * only CERTIFICATE PEM blocks that parse.
 *
 * Updates may not remove Approved/Denied/Failed conditions; only the approval
 * subresource may add or change Approved/Denied; only the status subresource
 * may set the certificate, and only once. What an existing object already
 * breaks is tolerated, so old data stays updatable (upstream's options).
 */
import { X509Certificate } from 'node:crypto';
import { FieldError, duplicate, forbidden, invalid, notSupported, required } from '../field-errors.js';
import { anyName } from '../names.js';
import { checkCertificateRequest, firstPemBlock } from '../../pki/request.js';
import { validateSignerName } from './signername.js';
import { validateObjectMeta, validateObjectMetaUpdate } from './objectmeta.js';
import { Obj, arr, child, deepEqual, goValue, has, index, obj, str } from './util.js';
import { appendAll } from '../append.js';

export const validUsages = ['any', 'cert sign', 'client auth', 'code signing', 'content commitment', 'crl sign', 'data encipherment',
  'decipher only', 'digital signature', 'email protection', 'encipher only', 'ipsec end system', 'ipsec tunnel', 'ipsec user',
  'key agreement', 'key encipherment', 'microsoft sgc', 'netscape sgc', 'ocsp signing', 's/mime', 'server auth', 'signing', 'timestamping'];

const legacyUnknownSignerName = 'kubernetes.io/legacy-unknown';
const trueOnlyTypes = ['Approved', 'Denied', 'Failed'];

/** Upstream's certificateValidationOptions: what a path may do, and what old data is forgiven. */
interface Options {
  allowSettingApprovalConditions?: boolean;
  allowSettingCertificate?: boolean;
  allowBothApprovedAndDenied?: boolean;
  allowLegacySignerName?: boolean;
  allowDuplicateConditionTypes?: boolean;
  allowEmptyConditionType?: boolean;
  allowArbitraryCertificate?: boolean;
  allowUnknownUsages?: boolean;
  allowDuplicateUsages?: boolean;
}

/** `[]byte{0x2d, ...}` as Go's %#v prints the request bytes. */
function goBytes(b: Buffer): ReturnType<typeof goValue> {
  return goValue(b.length === 0 ? '[]byte(nil)' : `[]byte{${[...b].map((x) => `0x${x.toString(16)}`).join(', ')}}`);
}

const bytesOf = (v: unknown) => Buffer.from(str(v), 'base64');

/** validateCertificate: empty, or only CERTIFICATE PEM blocks without headers that parse. */
function certificateError(pemData: Buffer): string | undefined {
  if (pemData.length === 0) return undefined;
  let rest = pemData.toString('latin1');
  let blocks = 0;
  for (let block = firstPemBlock(rest); block; block = firstPemBlock(rest)) {
    if (block.type !== 'CERTIFICATE') return `only CERTIFICATE PEM blocks are allowed, found ${JSON.stringify(block.type)}`;
    if (block.headers) return 'no PEM block headers are permitted';
    blocks++;
    try { new X509Certificate(block.der); } catch { return 'x509: malformed certificate'; }
    rest = rest.slice(rest.indexOf(`-----END ${block.type}-----`) + `-----END ${block.type}-----`.length);
  }
  return blocks === 0 ? 'must contain at least one CERTIFICATE PEM block' : undefined;
}

function validateConditions(conditions: unknown, opts: Options): FieldError[] {
  const path = 'status.conditions';
  const errs: FieldError[] = [];
  const seen = new Set<string>();
  let approved = false;
  let denied = false;
  arr(conditions).forEach((raw, i) => {
    const c = obj(raw);
    const p = index(path, i);
    const type = str(c.type);
    if (!opts.allowEmptyConditionType && !type) errs.push(required(child(p, 'type')));
    const allowed = trueOnlyTypes.includes(type) ? ['True'] : ['False', 'True', 'Unknown'];
    if (!str(c.status)) errs.push(required(child(p, 'status')));
    else if (!allowed.includes(str(c.status))) errs.push(notSupported(child(p, 'status'), str(c.status), allowed));
    if (!opts.allowBothApprovedAndDenied) {
      if (type === 'Approved') { approved = true; if (denied) errs.push(invalid(child(p, 'type'), type, 'Approved and Denied conditions are mutually exclusive')); }
      if (type === 'Denied') { denied = true; if (approved) errs.push(invalid(child(p, 'type'), type, 'Approved and Denied conditions are mutually exclusive')); }
    }
    if (!opts.allowDuplicateConditionTypes) {
      if (seen.has(type)) errs.push(duplicate(child(p, 'type'), type));
      seen.add(type);
    }
  });
  return errs;
}

function validateUsages(usages: string[], opts: Options): FieldError[] {
  const errs: FieldError[] = [];
  if (usages.length === 0) errs.push(required('spec.usages'));
  if (!opts.allowUnknownUsages) usages.forEach((u, i) => { if (!validUsages.includes(u)) errs.push(notSupported(index('spec.usages', i), u, validUsages)); });
  if (!opts.allowDuplicateUsages) {
    const seen = new Set<string>();
    usages.forEach((u, i) => { if (seen.has(u)) errs.push(duplicate(index('spec.usages', i), u)); seen.add(u); });
  }
  return errs;
}

function validateCSR(csr: Obj, opts: Options): FieldError[] {
  const spec = obj(csr.spec);
  const errs = validateObjectMeta(csr.metadata, false, anyName);
  const request = bytesOf(spec.request);
  const err = checkCertificateRequest(request);
  if (err) errs.push(invalid('spec.request', goBytes(request), err));
  appendAll(errs, validateUsages(arr(spec.usages).map(str), opts));
  if (!opts.allowLegacySignerName && spec.signerName === legacyUnknownSignerName) {
    errs.push(invalid('spec.signerName', spec.signerName, 'the legacy signerName is not allowed via this API version'));
  } else {
    appendAll(errs, validateSignerName('spec.signerName', str(spec.signerName)));
  }
  if (has(spec.expirationSeconds) && spec.expirationSeconds < 600) {
    errs.push(invalid('spec.expirationSeconds', spec.expirationSeconds, 'may not specify a duration less than 600 seconds (10 minutes)'));
  }
  appendAll(errs, validateConditions(obj(csr.status).conditions, opts));
  if (!opts.allowArbitraryCertificate) {
    const certErr = certificateError(bytesOf(obj(csr.status).certificate));
    if (certErr) errs.push(invalid('status.certificate', '<certificate data>', certErr));
  }
  return errs;
}

export function validateCSRCreate(csr: Obj): FieldError[] {
  return validateCSR(csr, {});
}

const conditionsOf = (csr: Obj, type: string) => arr(obj(csr.status).conditions).filter((c) => obj(c).type === type);
const typesOf = (csr: Obj) => arr(obj(csr.status).conditions).map((c) => str(obj(c).type));

/** getValidationOptions: an update may keep what the stored object already got wrong. */
function optionsFor(csr: Obj, old: Obj, subresource: string | undefined): Options {
  const types = typesOf(old);
  const oldUsages = arr(obj(old.spec).usages).map(str);
  const newCert = str(obj(csr.status).certificate);
  const oldCert = str(obj(old.status).certificate);
  return {
    allowSettingApprovalConditions: subresource === 'approval',
    allowSettingCertificate: subresource === 'status',
    allowBothApprovedAndDenied: types.includes('Approved') && types.includes('Denied'),
    allowLegacySignerName: obj(old.spec).signerName === legacyUnknownSignerName,
    allowDuplicateConditionTypes: new Set(types).size !== types.length,
    allowEmptyConditionType: types.includes(''),
    allowArbitraryCertificate: newCert === oldCert || certificateError(bytesOf(oldCert)) !== undefined,
    allowUnknownUsages: oldUsages.some((u) => !validUsages.includes(u)),
    allowDuplicateUsages: new Set(oldUsages).size !== oldUsages.length,
  };
}

/**
 * Updates: `subresource` is 'approval' for the approval subresource, 'status'
 * for /status, undefined for the object itself.
 */
export function validateCSRUpdate(csr: Obj, old: Obj, subresource?: string): FieldError[] {
  const opts = optionsFor(csr, old, subresource);
  const errs = validateCSR(csr, opts);
  for (const t of trueOnlyTypes) {
    if (conditionsOf(csr, t).length < conditionsOf(old, t).length) errs.push(forbidden('status.conditions', `updates may not remove a condition of type "${t}"`));
  }
  if (!opts.allowSettingApprovalConditions) {
    for (const t of ['Approved', 'Denied']) {
      const n = conditionsOf(csr, t);
      const o = conditionsOf(old, t);
      if (n.length > o.length) errs.push(forbidden('status.conditions', `updates may not add a condition of type "${t}"`));
      else if (n.length === o.length && !deepEqual(n, o)) errs.push(forbidden('status.conditions', `updates may not modify a condition of type "${t}"\n`));
    }
  }
  const newCert = str(obj(csr.status).certificate);
  const oldCert = str(obj(old.status).certificate);
  if (newCert !== oldCert) {
    if (!opts.allowSettingCertificate) errs.push(forbidden('status.certificate', 'updates may not set certificate content'));
    else if (oldCert) errs.push(forbidden('status.certificate', 'updates may not modify existing certificate content'));
  }
  return [...errs, ...validateObjectMetaUpdate(csr.metadata, old.metadata)];
}
