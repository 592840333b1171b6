/**
 * The JSON of a kind's Go zero value (`objectCreater.New(gvk)` encoded):
 * value structs as {}, slices and maps without omitempty as null. Upstream
 * tracks a create as an update from this object, which is why a create owns
 * `f:spec: {f:replicas: {}}` but `f:labels: {".": {}, ...}`: spec was there
 * (empty) before, labels were not.
 */
import { definitionNameFor, openapiDefinitions, refName, type OpenAPISchema } from '../schema/definitions.js';
import { zeroFields } from './list-types.js';

const timeDefinitions = new Set(['io.k8s.apimachinery.pkg.apis.meta.v1.Time', 'io.k8s.apimachinery.pkg.apis.meta.v1.MicroTime']);

const cache = new Map<string, Record<string, unknown>>();

/**
 * The kind's zero object, computed once and shared by every write: callers
 * only read it (withZeroValues and compare never mutate), so it is not
 * copied per write (a structured clone of it was ~1% of a pod create's CPU).
 */
export function zeroObject(kindKey: string): Readonly<Record<string, unknown>> {
  const name = definitionNameFor(kindKey);
  if (name === undefined) return { metadata: {} };
  let zero = cache.get(name);
  if (!zero) {
    zero = zeroOf(name) ?? {};
    zero.metadata ??= {};
    cache.set(name, zero);
  }
  return zero;
}

function refOf(schema: OpenAPISchema): string | undefined {
  const ref = schema.$ref ?? schema.allOf?.[0]?.$ref;
  return ref ? refName(ref) : undefined;
}

function zeroOf(definition: string): Record<string, unknown> | undefined {
  const schema = openapiDefinitions()[definition];
  if (!schema?.properties) return undefined;
  const out: Record<string, unknown> = {};
  for (const [field, how] of Object.entries(zeroFields[definition] ?? {})) {
    const prop = schema.properties[field];
    if (!prop) continue;
    if (how === 'null') {
      if (prop.type === 'array' || (prop.type === 'object' && prop.additionalProperties)) out[field] = null;
      continue;
    }
    const ref = refOf(prop);
    // metav1.Time is a struct whose zero value encodes as null.
    if (ref && timeDefinitions.has(ref)) { out[field] = null; continue; }
    const child = ref ? zeroOf(ref) : undefined;
    if (child) out[field] = child;
  }
  return out;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * `obj` with the zero value's fields filled in where absent, as a decode into
 * the Go type and back would give them (value structs {}, non-omitempty
 * slices null). Shares unchanged subtrees with `obj` and filled ones with
 * `zero`: the result is for reading (comparing), never for mutating.
 */
export function withZeroValues(obj: Readonly<Record<string, unknown>>, zero: Readonly<Record<string, unknown>>): Record<string, unknown> {
  let out: Record<string, unknown> | undefined;
  for (const [k, z] of Object.entries(zero)) {
    const v = obj[k];
    let filled: unknown = v;
    if (v === undefined) filled = z;
    else if (isObject(v) && isObject(z)) filled = withZeroValues(v, z);
    if (filled !== v) { out ??= { ...obj }; out[k] = filled; }
  }
  return out ?? obj;
}
