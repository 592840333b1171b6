/**
 * Strict decoding, as kube-apiserver does it with `fieldValidation=Strict`
 * (sigs.k8s.io/json): fields a Go struct does not declare are reported with
 * their path from the object's root — `spec.template.spec.containers[0].imagez`
 * — and values of the wrong JSON type as encoding/json reports them —
 * `json: cannot unmarshal string into Go struct field PodSpec.spec.containers of type []v1.Container`.
 * Maps and preserve-unknown-fields subtrees accept any key.
 */
import { decodeTreeFor, goTypeOf, type DecodeNode } from './compile.js';
import { fitsGoInt, goNumberText } from './goints.js';

/** sigs.k8s.io/json stops collecting strict errors after 100. */
const MAX_ERRORS = 100;

/**
 * Paths of the fields in `obj` that the kind's Go types do not declare, in
 * document order, as upstream prints them inside `unknown field "<path>"`.
 * An unknown kind yields no errors.
 */
export function findUnknownFields(key: string, obj: unknown): string[] {
  const root = decodeTreeFor(key);
  const out: string[] = [];
  if (root) unknownIn(root, obj, [], out);
  return out;
}

/** `strict decoding error: unknown field "a", unknown field "b.c"` (upstream's runtime.strictDecodingError). */
export function strictDecodingError(unknownFields: readonly string[]): string {
  return `strict decoding error: ${unknownFields.map((f) => `unknown field ${JSON.stringify(f)}`).join(', ')}`;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** `path` holds segments: a field name or map key, or a list index; upstream joins them as `a.b[0].c`. */
export function joinPath(path: readonly (string | number)[], last: string): string {
  let s = '';
  for (const seg of path) s += typeof seg === 'number' ? `[${seg}]` : s === '' ? seg : `.${seg}`;
  return s === '' ? last : `${s}.${last}`;
}

function unknownIn(node: DecodeNode, value: unknown, path: (string | number)[], out: string[]): void {
  if (out.length >= MAX_ERRORS) return;
  switch (node.kind) {
    case 'struct':
      if (!isObject(value)) return;
      for (const k in value) {
        const field = node.fields.get(k);
        if (!field) {
          if (out.length < MAX_ERRORS) out.push(joinPath(path, k));
          continue;
        }
        if (field.kind === 'struct' || field.kind === 'array' || field.kind === 'map') {
          path.push(k);
          unknownIn(field, value[k], path, out);
          path.pop();
        }
      }
      return;
    case 'map':
      if (!isObject(value) || !isContainer(node.value)) return;
      for (const k in value) {
        path.push(k);
        unknownIn(node.value, value[k], path, out);
        path.pop();
      }
      return;
    case 'array':
      if (!Array.isArray(value) || !isContainer(node.items)) return;
      for (let i = 0; i < value.length; i++) {
        path.push(i);
        unknownIn(node.items, value[i], path, out);
        path.pop();
      }
      return;
    default:
      return;
  }
}

function isContainer(node: DecodeNode): boolean {
  return node.kind === 'struct' || node.kind === 'array' || node.kind === 'map';
}

/**
 * Values whose JSON type cannot decode into the field's Go type, each as
 * encoding/json words it; numbers must also fit the field's int32/int64
 * (goints.ts). Upstream fails on the first (400 BadRequest,
 * `<Kind> in version "<v>" cannot be handled as a <Kind>: <message>`);
 * null is accepted everywhere, as Go does.
 */
export function findTypeErrors(key: string, obj: unknown): string[] {
  return checkTypes(key, obj).errors;
}

/**
 * findTypeErrors, and whether a list item or map value is null: without type errors this walk saw
 * every value fillNullItems would visit, so with none null that walk has nothing to fill.
 */
export function checkTypes(key: string, obj: unknown): { errors: string[]; nullItems: boolean; unknownFields: boolean } {
  const root = decodeTreeFor(key);
  const out: string[] = [];
  const ctx: Context = { struct: '', fields: [], nullItems: false, unknownFields: false };
  if (root) typesIn(root, obj, ctx, out);
  return { errors: out, nullItems: ctx.nullItems, unknownFields: ctx.unknownFields };
}

/** encoding/json's error context: the innermost struct and the struct-field names from the root (no indices, no map keys). */
interface Context {
  struct: string;
  fields: string[];
  /** A list item or map value was null (zero-values.ts fills them). */
  nullItems: boolean;
  /**
   * A struct had a key its Go type does not declare. Without type errors this walk visited every
   * struct findUnknownFields and pruneUnknownFields would (they skip what it skips: nulls, `any`
   * subtrees, scalars), so with none seen neither would find one.
   */
  unknownFields: boolean;
}

function jsonKind(v: unknown): string {
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'object') return 'object';
  if (typeof v === 'boolean') return 'bool';
  return typeof v;
}

function typeError(value: string, goType: string, ctx: Context): string {
  return ctx.struct
    ? `json: cannot unmarshal ${value} into Go struct field ${ctx.struct}.${ctx.fields.join('.')} of type ${goType}`
    : `json: cannot unmarshal ${value} into Go value of type ${goType}`;
}

const quantityFormat = "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'";

function typesIn(node: DecodeNode, value: unknown, ctx: Context, out: string[]): void {
  if (value === null || value === undefined || node.kind === 'any') return;
  const kind = jsonKind(value);
  switch (node.kind) {
    case 'struct':
      if (kind !== 'object') return void out.push(typeError(kind, node.goType, ctx));
      for (const k in value as Record<string, unknown>) {
        const field = node.fields.get(k);
        if (!field) {
          ctx.unknownFields = true;
          continue;
        }
        const outer = ctx.struct;
        ctx.struct = node.name;
        ctx.fields.push(k);
        typesIn(field, (value as Record<string, unknown>)[k], ctx, out);
        ctx.fields.pop();
        ctx.struct = outer;
      }
      return;
    case 'map':
      if (kind !== 'object') return void out.push(typeError(kind, node.goType, ctx));
      // for-in, not Object.values: about three times faster on a map of many keys (nesting.ts).
      for (const k in value as Record<string, unknown>) {
        const v = (value as Record<string, unknown>)[k];
        if (v === null) ctx.nullItems = true;
        else typesIn(node.value, v, ctx, out);
      }
      return;
    case 'array':
      if (kind !== 'array') return void out.push(typeError(kind, node.goType, ctx));
      for (const v of value as unknown[]) {
        if (v === null) ctx.nullItems = true;
        else typesIn(node.items, v, ctx, out);
      }
      return;
    case 'string':
    case 'time':
      if (kind !== 'string') out.push(typeError(kind, node.goType, ctx));
      return;
    case 'boolean':
      if (kind !== 'bool') out.push(typeError(kind, node.goType, ctx));
      return;
    case 'number':
      if (kind !== 'number') out.push(typeError(kind, node.goType, ctx));
      // JSON.parse makes 1e400 Infinity; strconv.ParseFloat refuses it as out of range.
      else if (!Number.isFinite(value)) out.push(typeError(`number ${goNumberText(value as number)}`, node.goType, ctx));
      return;
    case 'integer':
    case 'intOrString':
      if (kind === 'string' && node.kind === 'intOrString') return;
      if (kind !== 'number') out.push(typeError(kind, goTypeOf(node), ctx));
      // A numeric IntOrString holds an int32 (its UnmarshalJSON decodes into IntVal).
      else if (!fitsGoInt(value as number, node.goType)) out.push(typeError(`number ${goNumberText(value as number)}`, node.goType, ctx));
      return;
    case 'quantity':
      if (kind !== 'string' && kind !== 'number') out.push(quantityFormat);
      return;
  }
}
