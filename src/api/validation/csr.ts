/**
 * CertificateSigningRequests (certificates.k8s.io/v1): any name; a PEM
 * "CERTIFICATE REQUEST" (the signature itself is not verified here); usages
 * required, known and unique; a well-formed signerName; expirationSeconds >= 600;
 * sane conditions. Updates may not remove Approved/Denied/Failed conditions,
 * add or change Approved/Denied ones, or set the certificate.
 */
import { FieldError, duplicate, forbidden, invalid, notSupported, required } from '../field-errors.js';
import { anyName } from '../names.js';
import { validateSignerName } from './signername.js';
import { validateObjectMeta, validateObjectMetaUpdate } from './objectmeta.js';
import { Obj, arr, child, deepEqual, goValue, has, index, obj, str } from './util.js';

export const validUsages = ['any', 'cert sign', 'client auth', 'code signing', 'content commitment', 'crl sign', 'data encipherment',
  'decipher only', 'digital signature', 'email protection', 'encipher only', 'ipsec end system', 'ipsec tunnel', 'ipsec user',
  'key agreement', 'key encipherment', 'microsoft sgc', 'netscape sgc', 'ocsp signing', 's/mime', 'server auth', 'signing', 'timestamping'];

/** `[]byte{0x2d, ...}` as Go's %#v prints the request bytes. */
function goBytes(b: Buffer): ReturnType<typeof goValue> {
  return goValue(b.length === 0 ? '[]byte(nil)' : `[]byte{${[...b].map((x) => `0x${x.toString(16)}`).join(', ')}}`);
}

/** ParseCSR's first checks: one PEM block of type CERTIFICATE REQUEST holding a DER SEQUENCE. */
function csrError(request: Buffer): string | undefined {
  const text = request.toString('latin1');
  const m = /-----BEGIN ([^-\r\n]+)-----\r?\n([\s\S]*?)-----END \1-----/.exec(text);
  if (!m || m[1] !== 'CERTIFICATE REQUEST') return 'PEM block type must be CERTIFICATE REQUEST';
  const der = Buffer.from(m[2].replace(/\s+/g, ''), 'base64');
  if (der.length < 2 || der[0] !== 0x30) return "asn1: structure error: tags don't match";
  return undefined;
}

function validateConditions(conditions: unknown): FieldError[] {
  const path = 'status.conditions';
  const errs: FieldError[] = [];
  const seen = new Set<string>();
  let approved = false;
  let denied = false;
  arr(conditions).forEach((raw, i) => {
    const c = obj(raw);
    const p = index(path, i);
    const type = str(c.type);
    if (!type) errs.push(required(child(p, 'type')));
    const allowed = ['Approved', 'Denied', 'Failed'].includes(type) ? ['True'] : ['False', 'True', 'Unknown'];
    if (!str(c.status)) errs.push(required(child(p, 'status')));
    else if (!allowed.includes(str(c.status))) errs.push(notSupported(child(p, 'status'), str(c.status), allowed));
    if (type === 'Approved') { approved = true; if (denied) errs.push(invalid(child(p, 'type'), type, 'Approved and Denied conditions are mutually exclusive')); }
    if (type === 'Denied') { denied = true; if (approved) errs.push(invalid(child(p, 'type'), type, 'Approved and Denied conditions are mutually exclusive')); }
    if (seen.has(type)) errs.push(duplicate(child(p, 'type'), type));
    seen.add(type);
  });
  return errs;
}

export function validateCSRCreate(csr: Obj): FieldError[] {
  const spec = obj(csr.spec);
  const errs = validateObjectMeta(csr.metadata, false, anyName);
  const request = Buffer.from(str(spec.request), 'base64');
  const err = csrError(request);
  if (err) errs.push(invalid('spec.request', goBytes(request), err));
  const usages = arr(spec.usages).map(str);
  if (usages.length === 0) errs.push(required('spec.usages'));
  usages.forEach((u, i) => { if (!validUsages.includes(u)) errs.push(notSupported(index('spec.usages', i), u, validUsages)); });
  const seen = new Set<string>();
  usages.forEach((u, i) => { if (seen.has(u)) errs.push(duplicate(index('spec.usages', i), u)); seen.add(u); });
  if (spec.signerName === 'kubernetes.io/legacy-unknown') {
    errs.push(invalid('spec.signerName', spec.signerName, 'the legacy signerName is not allowed via this API version'));
  } else {
    errs.push(...validateSignerName('spec.signerName', str(spec.signerName)));
  }
  if (has(spec.expirationSeconds) && spec.expirationSeconds < 600) {
    errs.push(invalid('spec.expirationSeconds', spec.expirationSeconds, 'may not specify a duration less than 600 seconds (10 minutes)'));
  }
  errs.push(...validateConditions(obj(csr.status).conditions));
  return errs;
}

const conditionsOf = (csr: Obj, type: string) => arr(obj(csr.status).conditions).filter((c) => obj(c).type === type);

/**
 * Updates. Status and approval changes reach validation only through the /status
 * and /approval subresources (a plain update keeps the stored status), so by
 * default both are allowed; pass the subresource to get upstream's exact rules.
 */
export function validateCSRUpdate(csr: Obj, old: Obj, subresource?: string): FieldError[] {
  const errs = validateCSRCreate(csr);
  for (const t of ['Approved', 'Denied', 'Failed']) {
    if (conditionsOf(csr, t).length < conditionsOf(old, t).length) errs.push(forbidden('status.conditions', `updates may not remove a condition of type "${t}"`));
  }
  if (subresource !== undefined && subresource !== 'approval') {
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
    if (subresource !== undefined && subresource !== 'status') errs.push(forbidden('status.certificate', 'updates may not set certificate content'));
    else if (oldCert) errs.push(forbidden('status.certificate', 'updates may not modify existing certificate content'));
  }
  return [...errs, ...validateObjectMetaUpdate(csr.metadata, old.metadata)];
}
