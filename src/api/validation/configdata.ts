/**
 * ConfigMaps, Secrets and ServiceAccounts: data keys are config keys, total data
 * at most 1 MiB, type-specific Secret keys, and the `immutable` flag.
 */
import { FieldError, forbidden, invalid, required, tooLong } from '../field-errors.js';
import { isConfigMapKey, nameIsDNSSubdomain } from '../names.js';
import { validateObjectMeta, validateObjectMetaUpdate } from './objectmeta.js';
import { Obj, deepEqual, immutable, key, obj, str } from './util.js';
import { appendAll } from '../append.js';

const maxSecretSize = 1024 * 1024;

const keyErrors = (data: unknown, path: string) =>
  Object.keys(obj(data)).flatMap((k) => isConfigMapKey(k).map((msg) => invalid(key(path, k), k, msg)));

/** Secret data is base64 on the wire; its size is the decoded length. */
const decodedSize = (v: unknown) => Buffer.from(str(v), 'base64').length;

/**
 * One pass over `data` and one over `binaryData`, with no copy of either: the 250,000-key
 * ConfigMap of the hardening issue is validated in the heavy lane's worker, and copying its map
 * (strMap) and walking it four times was half of that worker's CPU, which the serving thread
 * competes with for the cores. Errors keep upstream's order: data keys, duplicates, binaryData keys.
 */
export function validateConfigMapCreate(cm: Obj): FieldError[] {
  const errs = validateObjectMeta(cm.metadata, true, nameIsDNSSubdomain);
  const data = obj(cm.data);
  const binary = obj(cm.binaryData);
  const dataKeys = Object.keys(data);
  let size = 0;
  for (const k of dataKeys) {
    for (const msg of isConfigMapKey(k)) errs.push(invalid(key('data', k), k, msg));
    // A non-string value counts as its text, as strMap shows it.
    size += Buffer.byteLength(str(data[k]));
  }
  const binaryKeys = Object.keys(binary);
  if (binaryKeys.length) for (const k of dataKeys) if (Object.hasOwn(binary, k)) errs.push(invalid(key('data', k), k, 'duplicate of key present in binaryData'));
  for (const k of binaryKeys) {
    for (const msg of isConfigMapKey(k)) errs.push(invalid(key('binaryData', k), k, msg));
    size += decodedSize(binary[k]);
  }
  // Upstream reports the whole object as field.NewPath(""), which prints as "[]".
  if (size > maxSecretSize) errs.push(tooLong('[]', maxSecretSize));
  return errs;
}

function immutableData(n: Obj, o: Obj, fields: string[]): FieldError[] {
  if (o.immutable !== true) return [];
  const errs: FieldError[] = [];
  if (n.immutable !== true) errs.push(forbidden('immutable', 'field is immutable when `immutable` is set'));
  for (const f of fields) if (!deepEqual(n[f], o[f])) errs.push(forbidden(f, 'field is immutable when `immutable` is set'));
  return errs;
}

export const validateConfigMapUpdate = (cm: Obj, old: Obj) =>
  [...validateObjectMetaUpdate(cm.metadata, old.metadata), ...immutableData(cm, old, ['data', 'binaryData']), ...validateConfigMapCreate(cm)];

/** Required data keys per Secret type. */
function validateSecretType(secret: Obj, data: Record<string, unknown>): FieldError[] {
  const need = (k: string) => (k in data ? [] : [required(key('data', k))]);
  switch (str(secret.type)) {
    case 'kubernetes.io/service-account-token':
      return str(obj(obj(secret.metadata).annotations)['kubernetes.io/service-account.name'])
        ? [] : [required(key('metadata.annotations', 'kubernetes.io/service-account.name'))];
    case 'kubernetes.io/dockercfg':
      return validateJSONKey(data, '.dockercfg');
    case 'kubernetes.io/dockerconfigjson':
      return validateJSONKey(data, '.dockerconfigjson');
    case 'kubernetes.io/basic-auth':
      return 'username' in data || 'password' in data ? [] : [...need('username'), ...need('password')];
    case 'kubernetes.io/ssh-auth':
      return decodedSize(data['ssh-privatekey']) > 0 ? [] : [required(key('data', 'ssh-privatekey'))];
    case 'kubernetes.io/tls':
      return [...need('tls.crt'), ...need('tls.key')];
    default:
      return [];
  }
}

function validateJSONKey(data: Record<string, unknown>, k: string): FieldError[] {
  if (!(k in data)) return [required(key('data', k))];
  try {
    const parsed = JSON.parse(Buffer.from(str(data[k]), 'base64').toString('utf8'));
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new Error('json: cannot unmarshal into Go value of type map[string]interface {}');
    return [];
  } catch (e) {
    return [invalid(key('data', k), '<secret contents redacted>', (e as Error).message)];
  }
}

export function validateSecretCreate(secret: Obj): FieldError[] {
  const errs = validateObjectMeta(secret.metadata, true, nameIsDNSSubdomain);
  const data = obj(secret.data);
  appendAll(errs, keyErrors(data, 'data'));
  const size = Object.values(data).reduce((n: number, v) => n + decodedSize(v), 0);
  if (size > maxSecretSize) errs.push(tooLong('data', maxSecretSize));
  appendAll(errs, validateSecretType(secret, data));
  return errs;
}

export const validateSecretUpdate = (secret: Obj, old: Obj) => [
  ...validateObjectMetaUpdate(secret.metadata, old.metadata),
  ...immutable(str(secret.type), str(old.type), 'type'),
  ...immutableData(secret, old, ['data']),
  ...validateSecretCreate(secret),
];

export const validateServiceAccountCreate = (sa: Obj) => validateObjectMeta(sa.metadata, true, nameIsDNSSubdomain);
export const validateServiceAccountUpdate = (sa: Obj, old: Obj) =>
  [...validateObjectMetaUpdate(sa.metadata, old.metadata), ...validateServiceAccountCreate(sa)];
