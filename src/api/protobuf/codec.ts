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
 * messages such as ExtraValue (the list itself); apiextensions' JSON and
 * JSONSchemaPropsOr* messages (json-schema.ts). Bytes are base64 in JSON.
 */
import { jsonValueType, schemaPropsType, schemaUnionFromJSON, schemaUnionToJSON, schemaUnionTypes } from './json-schema.js';
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

/** A table field with its Go facts resolved once, so the walks do no string work per value. */
export interface Field {
  name: string;
  json: string;
  type: string;
  scalar: boolean;
  bytes: boolean;
  map: boolean;
  repeated: boolean;
  inline: boolean;
  /** Go's omitempty on a non-pointer scalar: a zero value is not in the JSON form. */
  omitZero: boolean;
  /** Go's omitempty at all: an empty slice or map is not in the JSON form either. */
  omitEmpty: boolean;
}

interface Compiled { fields: Field[]; slice: boolean }

const compiled = new Map<string, Compiled | null>();

/** The compiled fields of a message, or null without a schema or for the types with their own JSON form. */
export function jsonFields(type: string): readonly Field[] | null {
  if (specialTypes.has(type)) return null;
  const c = compile(type);
  return c && !c.slice ? c.fields : null;
}

function compile(type: string): Compiled | null {
  let c = compiled.get(type);
  if (c === undefined) {
    const table = protoMessage(type);
    c = table ? {
      slice: !!table.slice,
      fields: Object.entries(table.fields).map(([name, f]: [string, ProtoField]) => ({
        name, json: f.json ?? name, type: f.type, scalar: isScalar(f.type), bytes: f.type === 'bytes',
        map: !!f.keyType, repeated: f.rule === 'repeated', inline: f.go?.includes('i') ?? false,
        omitZero: isScalar(f.type) && (f.go?.includes('o') ?? false) && !(f.go?.includes('p') ?? false),
        omitEmpty: f.go?.includes('o') ?? false,
      })),
    } : null;
    compiled.set(type, c);
  }
  return c;
}

// ---- wire → JSON ----

/** The JSON form of a decoded message of the full name `type`. */
export function messageToJSON(type: string, msg: any, raw: RawCodec, depth = 0): any {
  if (depth > maxMessageDepth) throw new ProtoDecodeError('exceeded max depth');
  const special = specialToJSON(type, msg, raw, depth);
  if (special !== noSpecial) return special;
  const table = compile(type);
  if (!table) throw new ProtoDecodeError(`no schema for ${type}`);
  if (table.slice) return [...(msg.items ?? [])];
  const out: Record<string, unknown> = {};
  for (const f of table.fields) {
    const v = msg[f.name];
    if (v == null) continue;
    if (f.map) {
      const keys = Object.keys(v);
      if (!keys.length) continue;
      const m: Record<string, unknown> = {};
      for (const k of keys) m[k] = valueToJSON(f, v[k], raw, depth);
      out[f.json] = m;
    } else if (f.repeated) {
      if (!v.length) continue;
      const a = new Array(v.length);
      for (let i = 0; i < v.length; i++) a[i] = valueToJSON(f, v[i], raw, depth);
      out[f.json] = a;
    } else if (Object.prototype.hasOwnProperty.call(msg, f.name)) {
      const value = valueToJSON(f, v, raw, depth);
      if (f.inline) Object.assign(out, value);
      else if (!(f.omitZero && isZero(value))) out[f.json] = value;
    }
  }
  return out;
}

function valueToJSON(f: Field, v: any, raw: RawCodec, depth: number): unknown {
  if (!f.scalar) return messageToJSON(f.type, v, raw, depth + 1);
  if (f.bytes) return Buffer.from(v as Uint8Array).toString('base64');
  // int64 decodes as a Long: the nearest double, as the JSON path holds integers past 2^53.
  if (typeof v === 'object' && v !== null) return Number(String(v));
  return v;
}

const isZero = (v: unknown) => v === '' || v === 0 || v === false;

const noSpecial = Symbol('noSpecial');
const specialTypes = new Set([timeType, microTimeType, quantityType, intOrStringType, fieldsType, rawExtensionType, jsonValueType, ...schemaUnionTypes]);

function specialToJSON(type: string, msg: any, raw: RawCodec, depth: number): unknown {
  switch (type) {
    case timeType: return formatTime(msg, false);
    case microTimeType: return formatTime(msg, true);
    case quantityType: return msg.string || '0';
    case intOrStringType: return Number(msg.type ?? 0) === 1 ? (msg.strVal ?? '') : (msg.intVal ?? 0);
    case fieldsType: return msg.Raw?.length ? raw.decodeRaw(msg.Raw, depth + 1) : null;
    case rawExtensionType: case jsonValueType: return msg.raw?.length ? raw.decodeRaw(msg.raw, depth + 1) : null;
  }
  if (schemaUnionTypes.has(type)) return schemaUnionToJSON(type, msg, (m) => messageToJSON(schemaPropsType, m, raw, depth + 1));
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

// ---- JSON → wire ----

/** The plain object protobufjs encodes as the message `type`, from its JSON form. Nulls and absent fields are left out. */
export function messageFromJSON(type: string, json: any): any {
  const special = specialFromJSON(type, json);
  if (special !== noSpecial) return special;
  const table = compile(type);
  if (!table) throw new Error(`no protobuf schema for ${type}`);
  if (table.slice) return { items: Array.isArray(json) ? json.map(String) : [] };
  const out: Record<string, unknown> = {};
  if (json === null || typeof json !== 'object') return out;
  for (const f of table.fields) {
    if (f.inline) { out[f.name] = messageFromJSON(f.type, json); continue; }
    const v = json[f.json];
    if (v == null) continue;
    if (f.map) {
      if (typeof v !== 'object' || Array.isArray(v)) continue;
      const m: Record<string, unknown> = {};
      for (const k of Object.keys(v)) m[k] = v[k] == null ? fieldDefault(f) : valueFromJSON(f, v[k]);
      out[f.name] = m;
    } else if (f.repeated) {
      if (!Array.isArray(v)) continue;
      const a: unknown[] = [];
      // A null in a list of JSON values (enum: [null]) is kept: an empty JSON message.
      for (const x of v) if (x != null || f.type === jsonValueType) a.push(valueFromJSON(f, x));
      out[f.name] = a;
    } else {
      const value = valueFromJSON(f, v);
      if (value !== undefined) out[f.name] = value;
    }
  }
  return out;
}

function fieldDefault(f: Field): unknown {
  if (!f.scalar) return {};
  return f.type === 'string' ? '' : f.type === 'bool' ? false : f.bytes ? Buffer.alloc(0) : 0;
}

function valueFromJSON(f: Field, v: any): unknown {
  if (!f.scalar) return messageFromJSON(f.type, v);
  switch (f.type) {
    case 'string': return typeof v === 'string' ? v : typeof v === 'object' ? JSON.stringify(v) : String(v);
    case 'bool': return v === true || v === 'true';
    case 'bytes': return Buffer.from(String(v), 'base64');
    case 'double': case 'float': return Number(v);
  }
  const n = typeof v === 'number' ? v : Number(v);
  return Number.isFinite(n) ? Math.trunc(n) : undefined;
}

function specialFromJSON(type: string, json: any): unknown {
  switch (type) {
    case timeType: case microTimeType: return parseTime(json);
    case quantityType: return { string: String(json) };
    case intOrStringType: return typeof json === 'number' ? { type: 0, intVal: json } : { type: 1, strVal: String(json) };
    case fieldsType: return { Raw: Buffer.from(JSON.stringify(json)) };
    case rawExtensionType: return { raw: Buffer.from(JSON.stringify(json)) };
    // A JSON null is no raw bytes, as JSON.UnmarshalJSON leaves Raw empty for it.
    case jsonValueType: return json === null ? {} : { raw: Buffer.from(JSON.stringify(json)) };
  }
  if (schemaUnionTypes.has(type)) return schemaUnionFromJSON(type, json, (j) => messageFromJSON(schemaPropsType, j));
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
