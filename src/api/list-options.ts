/**
 * The query parameters of list and watch, read the way kube-apiserver reads them:
 * integers with Go's strconv rules (a bad one is a 400 before anything else runs),
 * resourceVersion as an unsigned 64-bit revision, and ListOptions validation as a 422
 * `ListOptions.meta.k8s.io "" is invalid: ...`.
 */
import { forbidden, notSupported, type FieldError } from './field-errors.js';
import { badRequest, invalidObject, StatusError, type Status } from './status.js';

const int64Min = -(2n ** 63n);
const int64Max = 2n ** 63n - 1n;
const uint64Max = 2n ** 64n - 1n;

/**
 * strconv.ParseInt(s, 10, 64), which upstream's parameter codec applies to `limit` and
 * `timeoutSeconds`: an optional sign and decimal digits, nothing else (no `1e20`, no `1.5`).
 * Its error, as a 400, is what upstream answers: `strconv.ParseInt: parsing "1e20": invalid syntax`.
 */
export function parseInt64(s: string): bigint {
  if (!/^[+-]?[0-9]+$/.test(s)) throw badRequest(`strconv.ParseInt: parsing ${goQuote(s)}: invalid syntax`);
  const n = BigInt(s);
  if (n < int64Min || n > int64Max) throw badRequest(`strconv.ParseInt: parsing ${goQuote(s)}: value out of range`);
  return n;
}

/**
 * A resourceVersion as upstream's APIObjectVersioner parses it: "" and "0" are 0, anything
 * else must be strconv.ParseUint(rv, 10, 64). A bad one is a 400 in the words upstream's
 * storage uses for it (`invalid resource version: resourceVersion: Invalid value: ...`).
 */
export function parseResourceVersion(rv: string | undefined): bigint {
  if (!rv || rv === '0') return 0n;
  let why: string | undefined;
  if (!/^[0-9]+$/.test(rv)) why = 'invalid syntax';
  else if (BigInt(rv) > uint64Max) why = 'value out of range';
  if (why) {
    const detail = `strconv.ParseUint: parsing ${goQuote(rv)}: ${why}`;
    throw badRequest(`invalid resource version: resourceVersion: Invalid value: ${goQuote(rv)}: ${detail}`);
  }
  return BigInt(rv);
}

/**
 * Upstream's ValidateListOptions for a list (not a watch), in its order:
 * 1. resourceVersionMatch needs a resourceVersion;
 * 2. resourceVersionMatch cannot go with continue;
 * 3. only Exact and NotOlderThan are known;
 * 4. Exact is meaningless for resourceVersion "0".
 */
export function validateListOptions(q: { resourceVersion?: string; resourceVersionMatch?: string; continue?: string }): void {
  const errs: FieldError[] = [];
  const match = q.resourceVersionMatch;
  if (match) {
    if (!q.resourceVersion) errs.push(forbidden('resourceVersionMatch', 'resourceVersionMatch is forbidden unless resourceVersion is provided'));
    if (q.continue) errs.push(forbidden('resourceVersionMatch', 'resourceVersionMatch is forbidden when continue is provided'));
    if (match !== 'Exact' && match !== 'NotOlderThan') errs.push(notSupported('resourceVersionMatch', match, ['Exact', 'NotOlderThan', '']));
    if (match === 'Exact' && q.resourceVersion === '0') errs.push(forbidden('resourceVersionMatch', 'resourceVersionMatch "exact" is forbidden for resourceVersion "0"'));
  }
  if (errs.length) throw invalidObject('ListOptions', 'meta.k8s.io', '', errs);
}

/**
 * Upstream's storage.NewTooLargeResourceVersionError as the watch cache returns it after
 * waiting in vain: 504 Timeout, a ResourceVersionTooLarge cause (clients such as client-go's
 * reflector look for it) and retryAfterSeconds 1 (sent as Retry-After).
 */
export function tooLargeResourceVersion(requested: bigint, current: number): StatusError {
  const status: Status = {
    kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure',
    message: `Timeout: Too large resource version: ${requested}, current: ${current}`,
    reason: 'Timeout',
    details: { causes: [{ reason: 'ResourceVersionTooLarge', message: 'Too large resource version' }], retryAfterSeconds: 1 },
    code: 504,
  };
  return new StatusError(status);
}

/** Go's %q for the ASCII strings these messages quote (JSON escaping agrees with Go there). */
function goQuote(s: string): string {
  return JSON.stringify(s);
}

/**
 * A boolean query parameter as upstream's parameter codec reads it
 * (apimachinery's Convert_Slice_string_To_bool): absent is false, `0` and any
 * casing of `false` are false, and every other value, the empty string
 * included, is true. So the Python client's `watch=True` is a watch.
 */
export function queryBool(value: string | null | undefined): boolean {
  if (value === null || value === undefined) return false;
  return !(value === '0' || value.toLowerCase() === 'false');
}
