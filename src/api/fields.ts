/**
 * Field selectors as apimachinery `pkg/fields` (v1.32) parses and matches
 * them, and the selectable fields of each kind as kube-apiserver's field-label
 * conversion funcs accept them and its registries compute them.
 *
 * Grammar: terms joined by ','; a term is `field=value`, `field==value` or
 * `field!=value` (the first operator in the term splits it). In values, ',',
 * '=' and '\' are escaped with '\'. Terms are sorted; a term with an empty
 * field and value selects everything. A term matches when the object's field
 * (missing fields read as "") equals, or for `!=` differs from, the value.
 */

export interface FieldRequirement {
  readonly field: string;
  /** `==` parses as `=`, as upstream's hasTerm. */
  readonly operator: '=' | '!=';
  readonly value: string;
}

export interface FieldSelector {
  readonly requirements: readonly FieldRequirement[];
}

export type Fields = Readonly<Record<string, string>>;

export class FieldSelectorError extends Error {}

export const everythingFields: FieldSelector = { requirements: [] };

/** fields.EscapeValue: prefixes '\', ',' and '=' with '\'. */
export function escapeValue(s: string): string {
  return s.replace(/[\\,=]/g, (c) => `\\${c}`);
}

/** fields.UnescapeValue; throws on an unknown escape or an unescaped ',' or '='. */
export function unescapeValue(s: string): string {
  if (!/[\\,=]/.test(s)) return s;
  let out = '';
  let inSlash = false;
  for (const c of s) {
    if (inSlash) {
      if (c !== '\\' && c !== ',' && c !== '=') {
        throw new FieldSelectorError(`invalid field selector: invalid escape sequence: \\${c}`);
      }
      out += c;
      inSlash = false;
    } else if (c === '\\') {
      inSlash = true;
    } else if (c === ',' || c === '=') {
      // Go prints the rune with %v: its code point.
      throw new FieldSelectorError(`invalid field selector: unescaped character in value: ${c.codePointAt(0)}`);
    } else {
      out += c;
    }
  }
  if (inSlash) throw new FieldSelectorError('invalid field selector: invalid escape sequence: \\');
  return out;
}

/** Splits on unescaped commas, keeping escapes in the terms. */
function splitTerms(selector: string): string[] {
  if (selector === '') return [];
  const terms: string[] = [];
  let start = 0;
  let inSlash = false;
  for (let i = 0; i < selector.length; i++) {
    const c = selector[i];
    if (inSlash) inSlash = false;
    else if (c === '\\') inSlash = true;
    else if (c === ',') {
      terms.push(selector.slice(start, i));
      start = i + 1;
    }
  }
  terms.push(selector.slice(start));
  return terms;
}

const termOperators = ['!=', '==', '='] as const;

function splitTerm(term: string): [string, (typeof termOperators)[number], string] | undefined {
  for (let i = 0; i < term.length; i++) {
    for (const op of termOperators) {
      if (term.startsWith(op, i)) return [term.slice(0, i), op, term.slice(i + op.length)];
    }
  }
  return undefined;
}

/** fields.ParseSelector. Throws `FieldSelectorError` with upstream's message. */
export function parseFieldSelector(selector: string): FieldSelector {
  const requirements: FieldRequirement[] = [];
  for (const part of splitTerms(selector).sort()) {
    if (part === '') continue;
    const split = splitTerm(part);
    if (!split) throw new FieldSelectorError(`invalid selector: '${selector}'; can't understand '${part}'`);
    const [field, op, rhs] = split;
    const value = unescapeValue(rhs);
    if (field === '' && value === '') continue; // transforms to Everything
    requirements.push({ field, operator: op === '!=' ? '!=' : '=', value });
  }
  return { requirements };
}

/** fields.SelectorFromSet: field=value for every entry. */
export function fieldSelectorFromSet(set: Fields): FieldSelector {
  return { requirements: Object.entries(set).map(([field, value]) => ({ field, operator: '=', value })) };
}

export function matchesFieldSelector(sel: FieldSelector, fields: Fields): boolean {
  return sel.requirements.every((r) => {
    const actual = Object.hasOwn(fields, r.field) ? fields[r.field] : '';
    return r.operator === '=' ? actual === r.value : actual !== r.value;
  });
}

/** Selector.String(): `a=b,c!=d` with values escaped. */
export function fieldSelectorToString(sel: FieldSelector): string {
  return sel.requirements.map((r) => `${r.field}${r.operator}${escapeValue(r.value)}`).join(',');
}

/** Selector.RequiresExactMatch: the value an `=` term demands of the field. */
export function requiresExactFieldMatch(sel: FieldSelector, field: string): string | undefined {
  return sel.requirements.find((r) => r.field === field && r.operator === '=')?.value;
}

export function isEverythingFields(sel: FieldSelector): boolean {
  return sel.requirements.length === 0;
}

// ---- selectable fields per kind ----

type Computer = (obj: any) => Record<string, string>;

const str = (v: unknown): string => (typeof v === 'string' ? v : v === undefined || v === null ? '' : String(v));
const bool = (v: unknown): string => (v === true ? 'true' : 'false');
const int = (v: unknown): string => (typeof v === 'number' ? String(Math.trunc(v)) : '0');

/**
 * metadata.name and .namespace, then the kind's own fields, in that order. Assigned onto the
 * metadata literal rather than spread into the kind's (`{ ...objectMeta(o), ... }`): on Node 20 a
 * member added after a spread gives every result a hidden class of its own (util/with-members.ts),
 * and a pod's fields are computed for every event each field-selecting watcher is sent.
 */
type Named = { metadata?: { name?: unknown; namespace?: unknown } } | undefined;
const objectMeta = (o: Named, own?: Record<string, string>): Record<string, string> =>
  Object.assign({ 'metadata.name': str(o?.metadata?.name), 'metadata.namespace': str(o?.metadata?.namespace) }, own);
const nameOnly = (o: Named, own: Record<string, string>): Record<string, string> => Object.assign({ 'metadata.name': str(o?.metadata?.name) }, own);

/** core Pod: the v1 fields read the way conversion to the internal type fills them. */
const podFields: Computer = (o) => {
  const spec = o?.spec ?? {};
  const status = o?.status ?? {};
  const nodeName = str(spec.nodeName);
  return objectMeta(o, {
    'spec.nodeName': nodeName,
    'spec.host': nodeName, // v1 clients' old name, converted to spec.nodeName
    'spec.restartPolicy': str(spec.restartPolicy),
    'spec.schedulerName': str(spec.schedulerName),
    'spec.serviceAccountName': str(spec.serviceAccountName || spec.serviceAccount),
    'spec.hostNetwork': bool(spec.hostNetwork),
    'status.phase': str(status.phase),
    'status.podIP': str(status.podIPs?.[0]?.ip ?? status.podIP),
    'status.podIPs': '', // accepted by the conversion func, absent from the field set: matches as ""
    'status.nominatedNodeName': str(status.nominatedNodeName),
  });
};

const eventFields: Computer = (o) => {
  const io = o?.involvedObject ?? {};
  return objectMeta(o, {
    'involvedObject.kind': str(io.kind),
    'involvedObject.namespace': str(io.namespace),
    'involvedObject.name': str(io.name),
    'involvedObject.uid': str(io.uid),
    'involvedObject.apiVersion': str(io.apiVersion),
    'involvedObject.resourceVersion': str(io.resourceVersion),
    'involvedObject.fieldPath': str(io.fieldPath),
    'reason': str(o?.reason),
    'reportingComponent': str(o?.reportingComponent),
    'source': str(o?.source?.component || o?.reportingComponent),
    'type': str(o?.type),
  });
};

/** Kinds with a field-label conversion func: exactly these labels, worded "field label not supported". */
const converted: Readonly<Record<string, Computer>> = {
  'v1/Pod': podFields,
  'v1/Node': (o) => nameOnly(o, { 'spec.unschedulable': bool(o?.spec?.unschedulable) }),
  'v1/Event': eventFields,
  'v1/Namespace': (o) => nameOnly(o, { 'status.phase': str(o?.status?.phase) }),
  'v1/Secret': (o) => objectMeta(o, { 'type': str(o?.type) }),
  'v1/Service': (o) => objectMeta(o, { 'spec.clusterIP': str(o?.spec?.clusterIP), 'spec.type': str(o?.spec?.type) }),
  'v1/ReplicationController': (o) => objectMeta(o, { 'status.replicas': int(o?.status?.replicas) }),
  'batch/v1/Job': (o) => objectMeta(o, { 'status.successful': int(o?.status?.succeeded) }),
  'certificates.k8s.io/v1/CertificateSigningRequest': (o) => nameOnly(o, { 'spec.signerName': str(o?.spec?.signerName) }),
};

/**
 * The fields a field selector may name for objects of kind `key`, with the
 * object's values: exactly the labels upstream's conversion accepts (other
 * kinds: metadata.name and metadata.namespace), valued as its registries
 * compute them (a field upstream's set lacks reads "", as a missing field does).
 */
export function fieldsForObject(key: string, obj: any): Record<string, string> {
  return (converted[key] ?? objectMeta)(obj);
}

/** The labels accepted for the kind. */
export function supportedFieldLabels(key: string): string[] {
  return Object.keys(fieldsForObject(key, {}));
}

/** Upstream's error for a label the kind does not support, or undefined when it does. */
export function fieldLabelError(key: string, label: string): string | undefined {
  if (Object.hasOwn(fieldsForObject(key, {}), label)) return undefined;
  if (Object.hasOwn(converted, key)) return `field label not supported: ${label}`;
  return `${JSON.stringify(label)} is not a known field selector: only "metadata.name", "metadata.namespace"`;
}

/** The first unsupported label's error for the selector, as the apiserver's 400 says it. */
export function checkFieldSelector(key: string, sel: FieldSelector): string | undefined {
  for (const r of sel.requirements) {
    const err = fieldLabelError(key, r.field);
    if (err) return err;
  }
  return undefined;
}
