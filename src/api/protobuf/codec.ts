/**
 * One message between its JSON form (what the JSON API reads and writes) and
 * the plain object protobufjs encodes or decodes, field by field along the
 * schema table, as Go would: decode the wire into the typed struct, then
 * json.Marshal it (omitempty drops zero values of non-pointer fields; inline
 * structs merge into their parent), or json.Unmarshal and marshal to the wire.
 *
 * Upstream's types with their own JSON form: Time and MicroTime (seconds and
 * nanos ↔ RFC 3339), Quantity (its string), IntOrString (a number or a
 * string), FieldsV1 and RawExtension (raw bytes holding JSON, or a
 * `k8s\0`-prefixed protobuf object inside watch events), and slice-wrapper
 * messages such as ExtraValue (the list itself). Bytes are base64 in JSON.
 */
import { protoMessage, type ProtoField } from './table.js';

const meta = 'k8s.io.apimachinery.pkg.apis.meta.v1';
export const timeType = `${meta}.Time`;
export const microTimeType = `${meta}.MicroTime`;
const fieldsType = `${meta}.FieldsV1`;
const quantityType = 'k8s.io.apimachinery.pkg.api.resource.Quantity';
const intOrStringType = 'k8s.io.apimachinery.pkg.util.intstr.IntOrString';
export const rawExtensionType = 'k8s.io.apimachinery.pkg.runtime.RawExtension';

/** How raw bytes inside a RawExtension become JSON (a nested `k8s\0` object or JSON text). */
export interface RawCodec {
  decodeRaw(raw: Uint8Array, depth: number): unknown;
}

/** Protobuf holds messages at most this deep here; deeper input is refused, not recursed into. */
export const maxMessageDepth = 100;

/** A body that does not decode; `gvk` when its envelope already named a kind (upstream's words then name it). */
export class ProtoDecodeError extends Error {
  constructor(message: string, readonly gvk?: { kind: string; version: string }) {
    super(message);
  }
}

const isScalar = (type: string) => /^[a-z0-9]+$/.test(type);
const flag = (f: ProtoField, c: string) => f.go?.includes(c) ?? false;
const jsonName = (name: string, f: ProtoField) => f.json ?? name;

// ---- wire → JSON ----

/** The JSON form of a decoded message of the full name `type`. */
export function messageToJSON(type: string, msg: any, raw: RawCodec, depth = 0): any {
  if (depth > maxMessageDepth) throw new ProtoDecodeError('exceeded max depth');
  const special = specialToJSON(type, msg, raw, depth);
  if (special !== noSpecial) return special;
  const table = protoMessage(type);
  if (!table) throw new ProtoDecodeError(`no schema for ${type}`);
  if (table.slice) return (msg.items ?? []).map((v: unknown) => v);
  const out: Record<string, unknown> = {};
  for (const [name, f] of Object.entries(table.fields)) {
    const v = msg[name];
    if (f.keyType) {
      if (v && Object.keys(v).length) out[jsonName(name, f)] = mapValues(v, (x) => valueToJSON(f, x, raw, depth));
    } else if (f.rule === 'repeated') {
      if (v?.length) out[jsonName(name, f)] = v.map((x: unknown) => valueToJSON(f, x, raw, depth));
    } else if (Object.prototype.hasOwnProperty.call(msg, name) && v != null) {
      const value = valueToJSON(f, v, raw, depth);
      if (flag(f, 'i')) Object.assign(out, value);
      else if (!(isScalar(f.type) && flag(f, 'o') && !flag(f, 'p') && isZero(value))) out[jsonName(name, f)] = value;
    }
  }
  return out;
}

function valueToJSON(f: ProtoField, v: any, raw: RawCodec, depth: number): unknown {
  if (!isScalar(f.type)) return messageToJSON(f.type, v, raw, depth + 1);
  if (f.type === 'bytes') return Buffer.from(v as Uint8Array).toString('base64');
  // int64 decodes as a Long: the nearest double, as the JSON path holds integers past 2^53.
  if (typeof v === 'object' && v !== null) return Number(String(v));
  return v;
}

const isZero = (v: unknown) => v === '' || v === 0 || v === false;

const noSpecial = Symbol('noSpecial');

function specialToJSON(type: string, msg: any, raw: RawCodec, depth: number): unknown {
  switch (type) {
    case timeType: return formatTime(msg, false);
    case microTimeType: return formatTime(msg, true);
    case quantityType: return msg.string || '0';
    case intOrStringType: return Number(msg.type ?? 0) === 1 ? (msg.strVal ?? '') : (msg.intVal ?? 0);
    case fieldsType: return msg.Raw?.length ? raw.decodeRaw(msg.Raw, depth + 1) : null;
    case rawExtensionType: return msg.raw?.length ? raw.decodeRaw(msg.raw, depth + 1) : null;
  }
  return noSpecial;
}

/** RFC 3339 in UTC: whole seconds for Time (as metav1.Time marshals), microseconds for MicroTime; null for the zero time. */
function formatTime(msg: any, micro: boolean): string | null {
  const seconds = Number(msg.seconds ?? 0);
  const nanos = Number(msg.nanos ?? 0);
  // Go's zero time.Time is year 1, which proto carries as -62135596800 s; either is "unset".
  if ((seconds === 0 && nanos === 0) || seconds === -62135596800) return null;
  const date = new Date(seconds * 1000);
  if (Number.isNaN(date.getTime())) throw new ProtoDecodeError(`time out of range: ${seconds}s`);
  const base = date.toISOString().slice(0, 19);
  return micro ? `${base}.${String(Math.floor(nanos / 1000)).padStart(6, '0')}Z` : `${base}Z`;
}

function mapValues(obj: Record<string, unknown>, fn: (v: unknown) => unknown): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(obj)) out[k] = fn(v);
  return out;
}

// ---- JSON → wire ----

/** The plain object protobufjs encodes as the message `type`, from its JSON form. Nulls and absent fields are left out. */
export function messageFromJSON(type: string, json: any): any {
  const special = specialFromJSON(type, json);
  if (special !== noSpecial) return special;
  const table = protoMessage(type);
  if (!table) throw new Error(`no protobuf schema for ${type}`);
  if (table.slice) return { items: Array.isArray(json) ? json.map(String) : [] };
  const out: Record<string, unknown> = {};
  if (json === null || typeof json !== 'object') return out;
  for (const [name, f] of Object.entries(table.fields)) {
    if (flag(f, 'i')) { out[name] = messageFromJSON(f.type, json); continue; }
    const v = json[jsonName(name, f)];
    if (v == null) continue;
    if (f.keyType) {
      if (typeof v === 'object' && !Array.isArray(v)) out[name] = mapValues(v, (x) => (x == null ? fieldDefault(f) : valueFromJSON(f, x)));
    } else if (f.rule === 'repeated') {
      if (Array.isArray(v)) out[name] = v.filter((x) => x != null).map((x) => valueFromJSON(f, x));
    } else {
      const value = valueFromJSON(f, v);
      if (value !== undefined) out[name] = value;
    }
  }
  return out;
}

function fieldDefault(f: ProtoField): unknown {
  if (!isScalar(f.type)) return {};
  return f.type === 'string' ? '' : f.type === 'bool' ? false : f.type === 'bytes' ? Buffer.alloc(0) : 0;
}

function valueFromJSON(f: ProtoField, v: any): unknown {
  switch (f.type) {
    case 'string': return typeof v === 'string' ? v : typeof v === 'object' ? JSON.stringify(v) : String(v);
    case 'bool': return v === true || v === 'true';
    case 'bytes': return Buffer.from(String(v), 'base64');
    case 'int32': case 'int64': case 'uint32': case 'uint64': case 'sint32': case 'sint64': {
      const n = typeof v === 'number' ? v : Number(v);
      return Number.isFinite(n) ? Math.trunc(n) : undefined;
    }
    case 'double': case 'float': return Number(v);
  }
  return messageFromJSON(f.type, v);
}

function specialFromJSON(type: string, json: any): unknown {
  switch (type) {
    case timeType: case microTimeType: return parseTime(json);
    case quantityType: return { string: String(json) };
    case intOrStringType: return typeof json === 'number' ? { type: 0, intVal: json } : { type: 1, strVal: String(json) };
    case fieldsType: return { Raw: Buffer.from(JSON.stringify(json)) };
    case rawExtensionType: return { raw: Buffer.from(JSON.stringify(json)) };
  }
  return noSpecial;
}

/** An RFC 3339 text to seconds and nanos, with every fractional digit kept. */
function parseTime(text: unknown): { seconds?: number; nanos?: number } {
  if (typeof text !== 'string' || !text) return {};
  const ms = Date.parse(text);
  if (Number.isNaN(ms)) return {};
  const seconds = Math.floor(ms / 1000);
  const frac = /T\d\d:\d\d:\d\d\.(\d+)/.exec(text)?.[1] ?? '';
  const nanos = frac ? Number(frac.slice(0, 9).padEnd(9, '0')) : 0;
  return nanos ? { seconds, nanos } : { seconds };
}
