/**
 * The options of create, update and patch requests that managed fields need:
 * the field manager (validated as upstream's ValidateFieldManager, with the
 * User-Agent prefix as default) and apply's `force`; and the dryRun of every
 * write, validated as upstream's ValidateDryRun.
 */
import { GoValue, forbidden, invalid, notSupported, required, tooLong, type FieldError } from '../../api/field-errors.js';
import { queryBool } from '../../api/list-options.js';
import { invalidObject } from '../../api/status.js';
import { queryValues, type RequestInfo } from '../request-info.js';
import { HandlerContext, query } from './context.js';

const fieldManagerMaxLength = 128;

export type WriteOptionsKind = 'CreateOptions' | 'UpdateOptions' | 'PatchOptions';

/** Go's unicode.IsPrint: letters, marks, numbers, punctuation, symbols and the ASCII space. */
const printable = /^[\p{L}\p{M}\p{N}\p{P}\p{S} ]$/u;

function fieldManagerErrors(manager: string): FieldError[] {
  const errs: FieldError[] = [];
  if (Buffer.byteLength(manager) > fieldManagerMaxLength) errs.push(tooLong('fieldManager', fieldManagerMaxLength));
  let position = 0;
  for (const ch of manager) {
    if (!printable.test(ch)) {
      const code = ch.codePointAt(0)!;
      errs.push(invalid('fieldManager', new GoValue(goQuote(manager)), `invalid character U+${code.toString(16).toUpperCase().padStart(4, '0')} (at position ${position})`));
    }
    position += Buffer.byteLength(ch);
  }
  return errs;
}

const goEscapes: Record<string, string> = { '\x07': '\\a', '\b': '\\b', '\f': '\\f', '\n': '\\n', '\r': '\\r', '\t': '\\t', '\v': '\\v', '\\': '\\\\', '"': '\\"' };

/** Go's strconv.Quote (%q), which field errors use to show a string value. */
function goQuote(s: string): string {
  let out = '"';
  for (const ch of s) {
    const code = ch.codePointAt(0)!;
    if (goEscapes[ch]) out += goEscapes[ch];
    else if (printable.test(ch)) out += ch;
    else if (code < 0x80) out += `\\x${code.toString(16).padStart(2, '0')}`;
    else if (code < 0x10000) out += `\\u${code.toString(16).padStart(4, '0')}`;
    else out += `\\U${code.toString(16).padStart(8, '0')}`;
  }
  return `${out}"`;
}

/**
 * Upstream's prefixFromUserAgent: the User-Agent up to its first '/',
 * printable characters only, at most 128 bytes.
 */
export function managerFromUserAgent(userAgent: string | undefined): string {
  let out = '';
  for (const ch of (userAgent ?? '').split('/')[0]) {
    if (!printable.test(ch)) continue;
    if (Buffer.byteLength(out) >= fieldManagerMaxLength) break;
    out += ch;
  }
  return out;
}

export interface WriteOptions {
  /** The manager the write is recorded under. */
  manager: string;
  /** Apply only: take ownership of conflicting fields. */
  force: boolean;
}

/** Reads and validates fieldManager and force; throws upstream's 422 for `<kind>.meta.k8s.io ""`. */
export function readWriteOptions(ctx: Pick<HandlerContext, 'url' | 'req'>, kind: WriteOptionsKind, apply = false): WriteOptions {
  const given = query(ctx, 'fieldManager') ?? '';
  const force = query(ctx, 'force');
  const errs: FieldError[] = [];
  if (apply && given === '') errs.push(required('fieldManager', 'is required for apply patch'));
  if (kind === 'PatchOptions' && !apply && force !== undefined) errs.push(forbidden('force', 'may not be specified for non-apply patch'));
  errs.push(...fieldManagerErrors(given));
  if (errs.length) throw invalidObject(kind, 'meta.k8s.io', '', errs);
  return { manager: given || managerFromUserAgent(ctx.req.headers['user-agent']), force: queryBool(force) };
}

/**
 * Upstream's ValidateDryRun: every dryRun value must be `All`. Anything else
 * (`all`, `true`, an empty value) is a 422 before anything is written, never
 * taken for a real write the client did not mean.
 */
export function dryRunErrors(values: string[]): FieldError[] {
  if (values.every((v) => v === 'All')) return [];
  return [notSupported('dryRun', new GoValue(`[]string{${values.map(goQuote).join(', ')}}`), ['All'])];
}

const optionsKinds: Record<string, string> = { create: 'CreateOptions', update: 'UpdateOptions', patch: 'PatchOptions', delete: 'DeleteOptions', deletecollection: 'DeleteOptions' };

/** The query's dryRun: true when it asks for one; upstream's 422 `<verb>Options.meta.k8s.io ""` for a value it does not support. */
export function isDryRun(ctx: { url: URL; info: Pick<RequestInfo, 'verb'> }): boolean {
  const values = queryValues(ctx.url, 'dryRun');
  const errs = dryRunErrors(values);
  if (errs.length) throw invalidObject(optionsKinds[ctx.info.verb] ?? 'CreateOptions', 'meta.k8s.io', '', errs);
  return values.length > 0;
}
