#!/usr/bin/env node
/**
 * Derives the OpenAPI v3 schemas of the served API types from the npm package
 * kubernetes-types (upstream's Go types with their field documentation, as
 * TypeScript declarations) with ts-json-schema-generator, and writes
 * generated/openapi-defs.json: `{ "<upstream definition name>": <schema> }`,
 * sorted, in the form kube-apiserver publishes under /openapi/v3
 * (`io.k8s.api.apps.v1.DaemonSet`, `io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta` ...).
 *
 * This file is the one source for /openapi/v3, kubectl explain and the
 * server's strict field validation (src/api/schema, src/apiserver/openapi).
 *
 * Steps:
 * 1. One TypeScript program over the modules below and those they import.
 * 2. Per module, every exported declaration is a root; the generator's
 *    definitions are kept only for the module that declares them, so equal
 *    short names in two modules (core/v1 Event, events/v1 Event) never meet.
 * 3. JSON Schema -> OpenAPI v3 as upstream writes it: refs under
 *    #/components/schemas, a described ref as `allOf: [{$ref}]`, numbers as
 *    integers (the served types have no floating-point field), `number | string`
 *    as IntOrString, Time/MicroTime as date-time strings, Quantity as
 *    string-or-number, RawExtension as an object that keeps unknown fields,
 *    and `x-kubernetes-group-version-kind` read from the literal
 *    apiVersion/kind the package gives top-level kinds and their lists.
 *
 * Runs on every build; deterministic (sorted output, no timestamps).
 */
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import tsj from 'ts-json-schema-generator';
import ts from 'typescript';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const typesDir = path.join(root, 'node_modules', 'kubernetes-types');
/** `--out <file>` writes elsewhere (the determinism test compares two runs). */
const outArg = process.argv.indexOf('--out');
const outFile = outArg > 0 && process.argv[outArg + 1]
  ? path.resolve(process.argv[outArg + 1])
  : path.join(root, 'generated', 'openapi-defs.json');

/** The API groups we serve, their subresource kinds, and (found below) what they import. */
const MODULES = [
  'core/v1', 'apps/v1', 'batch/v1', 'meta/v1', 'coordination/v1', 'certificates/v1',
  'events/v1', 'storage/v1', 'autoscaling/v1', 'policy/v1', 'scheduling/v1', 'discovery/v1', 'apiextensions/v1',
  'networking/v1', 'node/v1', 'rbac/v1', 'autoscaling/v2',
  'authentication/v1', 'authorization/v1',
  'admissionregistration/v1', 'flowcontrol/v1',
];

/** kubernetes-types module -> upstream Go package, as OpenAPI names it. */
function packageOf(mod) {
  switch (mod) {
    case 'meta/v1': return 'io.k8s.apimachinery.pkg.apis.meta.v1';
    case 'api/resource': return 'io.k8s.apimachinery.pkg.api.resource';
    case 'runtime': return 'io.k8s.apimachinery.pkg.runtime';
    case 'version': return 'io.k8s.apimachinery.pkg.version';
    case 'apiextensions/v1': return 'io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1';
    default: return `io.k8s.api.${mod.replace('/', '.')}`;
  }
}

const INT_OR_STRING = 'io.k8s.apimachinery.pkg.util.intstr.IntOrString';
const REF_PREFIX = '#/components/schemas/';

/**
 * kubernetes-types inlines intstr.IntOrString as `number | string`, so the
 * package has no declaration (nor doc comment) to derive it from; this is
 * upstream's definition (apimachinery util/intstr), plus the CRD marker.
 */
const intOrStringDefinition = {
  description: 'IntOrString is a type that can hold an int32 or a string.  When used in JSON or YAML marshalling and unmarshalling, it produces or consumes the inner type.  This allows you to have, for example, a JSON field that can accept a name or number.',
  format: 'int-or-string',
  oneOf: [{ type: 'integer' }, { type: 'string' }],
  'x-kubernetes-int-or-string': true,
};

const moduleFile = (mod) => path.join(typesDir, `${mod}.d.ts`);

/** Module name of a kubernetes-types file: .../kubernetes-types/apps/v1.d.ts -> apps/v1. */
const moduleOf = (fileName) => path.relative(typesDir, fileName).replace(/\\/g, '/').replace(/\.d\.ts$/, '');

/** The modules to read: MODULES and everything they import, transitively. */
function collectModules() {
  const seen = new Set();
  const queue = [...MODULES];
  while (queue.length) {
    const mod = queue.shift();
    if (seen.has(mod)) continue;
    seen.add(mod);
    const text = readFileSync(moduleFile(mod), 'utf8');
    const sf = ts.createSourceFile(moduleFile(mod), text, ts.ScriptTarget.Latest);
    for (const imp of importsOf(sf)) queue.push(imp.module);
  }
  return [...seen].sort();
}

/** `import { A, B } from "../meta/v1"` -> [{module: 'meta/v1', names: ['A', 'B']}]. */
function importsOf(sf) {
  const out = [];
  for (const st of sf.statements) {
    if (!ts.isImportDeclaration(st) || !ts.isStringLiteral(st.moduleSpecifier)) continue;
    const target = path.resolve(path.dirname(sf.fileName), st.moduleSpecifier.text);
    const names = [];
    const bindings = st.importClause?.namedBindings;
    if (bindings && ts.isNamedImports(bindings)) for (const el of bindings.elements) names.push(el.name.text);
    out.push({ module: moduleOf(`${target}.d.ts`), names });
  }
  return out;
}

/** Generator definitions (short names) of the declarations one module exports. */
function generateModule(ctx, sf) {
  const nodes = sf.statements.filter((s) => (ts.isInterfaceDeclaration(s) || ts.isTypeAliasDeclaration(s))
    && s.modifiers?.some((m) => m.kind === ts.SyntaxKind.ExportKeyword));
  const own = new Set(nodes.map((n) => n.name.text));
  const definitions = {};
  for (const node of nodes) {
    const name = node.name.text;
    const type = new tsj.DefinitionType(name, ctx.parser.createType(node, new tsj.Context()));
    definitions[name] = ctx.formatter.getDefinition(type.getType());
  }
  return { definitions, own };
}

/** Rewrites one module's JSON Schema definitions into upstream-named OpenAPI v3 ones. */
function convertModule(mod, sf, generated, out) {
  const pkg = packageOf(mod);
  const refTarget = new Map();
  for (const name of generated.own) refTarget.set(name, `${pkg}.${name}`);
  for (const imp of importsOf(sf)) for (const name of imp.names) refTarget.set(name, `${packageOf(imp.module)}.${name}`);
  const refName = (ref) => {
    const short = decodeURIComponent(ref.replace(/^#\/definitions\//, ''));
    const full = refTarget.get(short);
    if (!full) throw new Error(`${mod}: cannot place reference to ${short}`);
    return full;
  };
  for (const [name, def] of Object.entries(generated.definitions)) {
    const full = `${pkg}.${name}`;
    if (out[full]) throw new Error(`definition ${full} generated twice`);
    out[full] = special(full, def) ?? topLevel(def, refName);
    if (full === JSON_SCHEMA_PROPS) Object.assign(out[full].properties, schemaExtensions);
    if (embeddedRuleHolders.has(full)) Object.assign(out[full].properties, embeddedRuleFields);
  }
}

/**
 * admissionregistration's RuleWithOperations and NamedRuleWithOperations embed Rule
 * (Go `Rule \`json:",inline"\``), whose resources and scope kubernetes-types leaves
 * out; without them strict field validation refused every webhook rule. Upstream's
 * descriptions (k8s.io/api admissionregistration/v1 Rule).
 */
const embeddedRuleHolders = new Set([
  'io.k8s.api.admissionregistration.v1.RuleWithOperations',
  'io.k8s.api.admissionregistration.v1.NamedRuleWithOperations',
]);
const embeddedRuleFields = {
  resources: { description: "Resources is a list of resources this rule applies to.\n\nFor example: 'pods' means pods. 'pods/log' means the log subresource of pods. '*' means all resources, but not subresources. 'pods/*' means all subresources of pods. '*/scale' means all scale subresources. '*/*' means all resources and their subresources.\n\nIf wildcard is present, the validation rule will ensure resources do not overlap with each other.\n\nDepending on the enclosing object, subresources might not be allowed. Required.", type: 'array', items: { type: 'string' } },
  scope: { description: 'scope specifies the scope of this rule. Valid values are \"Cluster\", \"Namespaced\", and \"*\" \"Cluster\" means that only cluster-scoped resources will match this rule. Namespace API objects are cluster-scoped. \"Namespaced\" means that only namespaced resources will match this rule. \"*\" means that there are no scope restrictions. Subresources match the scope of their parent resource. Default is \"*\".', type: 'string' },
};

const JSON_SCHEMA_PROPS = 'io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.JSONSchemaProps';

/**
 * The x-kubernetes-* fields of JSONSchemaProps, which kubernetes-types leaves
 * out (their names are not identifiers); upstream's types.go declares them.
 */
const schemaExtensions = {
  'x-kubernetes-embedded-resource': { description: 'x-kubernetes-embedded-resource defines that the value is an embedded Kubernetes runtime.Object, with TypeMeta and ObjectMeta.', type: 'boolean' },
  'x-kubernetes-int-or-string': { description: 'x-kubernetes-int-or-string specifies that this value is either an integer or a string.', type: 'boolean' },
  'x-kubernetes-list-map-keys': { description: 'x-kubernetes-list-map-keys annotates an array with the x-kubernetes-list-type `map` by specifying the keys used as the index of the map.', type: 'array', items: { type: 'string' } },
  'x-kubernetes-list-type': { description: 'x-kubernetes-list-type annotates an array to further describe its topology.', type: 'string' },
  'x-kubernetes-map-type': { description: 'x-kubernetes-map-type annotates an object to further describe its topology.', type: 'string' },
  'x-kubernetes-preserve-unknown-fields': { description: 'x-kubernetes-preserve-unknown-fields stops the API server decoding step from pruning fields which are not specified in the validation schema.', type: 'boolean' },
  'x-kubernetes-validations': { description: 'x-kubernetes-validations describes a list of validation rules written in the CEL expression language.', type: 'array', items: { $ref: `${REF_PREFIX}io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.ValidationRule` } },
};

/** Types whose JSON form upstream defines by hand-written marshalling, not by their Go fields. */
function special(full, def) {
  const description = def.description;
  switch (full) {
    case 'io.k8s.apimachinery.pkg.apis.meta.v1.Time':
    case 'io.k8s.apimachinery.pkg.apis.meta.v1.MicroTime':
      return { description, type: 'string', format: 'date-time' };
    case 'io.k8s.apimachinery.pkg.api.resource.Quantity':
      return { description, oneOf: [{ type: 'string' }, { type: 'number' }] };
    case 'io.k8s.apimachinery.pkg.runtime.RawExtension':
      return { description, type: 'object', 'x-kubernetes-preserve-unknown-fields': true };
    case 'io.k8s.apimachinery.pkg.apis.meta.v1.FieldsV1':
      return { description, type: 'object' };
    // Hand-marshalled unions of apiextensions: any JSON value, as upstream publishes them.
    case 'io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.JSON':
    case 'io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.JSONSchemaPropsOrArray':
    case 'io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.JSONSchemaPropsOrBool':
    case 'io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.JSONSchemaPropsOrStringArray':
      return { description };
    default:
      return undefined;
  }
}

/** A definition: its schema, plus the GVK when the package gives literal apiVersion and kind. */
function topLevel(def, refName) {
  const schema = convert(def, refName);
  const gvk = gvkOf(def);
  if (gvk) schema['x-kubernetes-group-version-kind'] = [gvk];
  return schema;
}

function gvkOf(def) {
  const apiVersion = def.properties?.apiVersion?.const;
  const kind = def.properties?.kind?.const;
  if (typeof apiVersion !== 'string' || typeof kind !== 'string') return undefined;
  const slash = apiVersion.indexOf('/');
  return slash < 0
    ? { group: '', kind, version: apiVersion }
    : { group: apiVersion.slice(0, slash), kind, version: apiVersion.slice(slash + 1) };
}

/** One JSON Schema node -> OpenAPI v3, upstream's shape. */
function convert(s, refName) {
  const out = {};
  if (s.description) out.description = s.description;
  if (s.$ref) {
    const ref = { $ref: REF_PREFIX + refName(s.$ref) };
    // OpenAPI 3.0 ignores siblings of $ref; upstream wraps described refs in allOf.
    return s.description ? { ...out, allOf: [ref] } : ref;
  }
  const types = Array.isArray(s.type) ? [...s.type].sort() : s.type ? [s.type] : [];
  if (types.length === 2 && types[0] === 'number' && types[1] === 'string') {
    const ref = { $ref: REF_PREFIX + INT_OR_STRING };
    return s.description ? { ...out, allOf: [ref] } : ref;
  }
  if (types.length > 1 || s.anyOf || s.oneOf || s.allOf || (s.enum && types[0] !== 'string')) {
    // Fail the build rather than publish a schema kubectl would misread.
    throw new Error(`unsupported schema ${JSON.stringify(s).slice(0, 200)}`);
  }
  const type = types[0];
  if (type === 'number') out.type = 'integer';
  else if (type) out.type = type;
  if (s.enum) out.enum = [...s.enum].sort();
  if (type === 'object') convertObject(s, out, refName);
  if (type === 'array') out.items = convert(s.items, refName);
  return out;
}

function convertObject(s, out, refName) {
  if (s.required?.length) out.required = [...s.required];
  if (s.properties && Object.keys(s.properties).length) {
    out.properties = {};
    for (const key of Object.keys(s.properties).sort()) out.properties[key] = convert(s.properties[key], refName);
  }
  if (s.additionalProperties && typeof s.additionalProperties === 'object') {
    out.additionalProperties = convert(s.additionalProperties, refName);
  }
}

/** Every `$ref` must name a definition in the output. */
function checkRefs(defs) {
  const walk = (node, where) => {
    if (Array.isArray(node)) return node.forEach((n) => walk(n, where));
    if (!node || typeof node !== 'object') return;
    if (typeof node.$ref === 'string' && !defs[node.$ref.slice(REF_PREFIX.length)]) {
      throw new Error(`${where}: dangling ${node.$ref}`);
    }
    for (const v of Object.values(node)) walk(v, where);
  };
  for (const [name, def] of Object.entries(defs)) walk(def, name);
}

/**
 * Fields 1.31 and 1.32 added to the served types, which kubernetes-types (1.30, its latest) lacks,
 * from scripts/openapi-1.32-fields.json: upstream's schema knows them, so strict decoding accepts
 * them (the strategies then drop those of gates 1.32 leaves off: src/api/disabled-fields.ts). A
 * field the package already has stops the build, so a newer package is noticed.
 */
function addFieldsAfter130(defs) {
  const extra = JSON.parse(readFileSync(path.join(root, 'scripts', 'openapi-1.32-fields.json'), 'utf8'));
  Object.assign(defs, extra.definitions);
  for (const [name, props] of Object.entries(extra.properties)) {
    const def = defs[name];
    if (!def?.properties) throw new Error(`scripts/openapi-1.32-fields.json: ${name} is not a served definition`);
    for (const [field, schema] of Object.entries(props)) {
      if (def.properties[field]) throw new Error(`scripts/openapi-1.32-fields.json: ${name}.${field} is in kubernetes-types now: remove it here`);
      def.properties[field] = schema;
    }
    def.properties = Object.fromEntries(Object.keys(def.properties).sort().map((k) => [k, def.properties[k]]));
  }
}

async function main() {
  const started = Date.now();
  const modules = collectModules();
  // ts-json-schema-generator's programmatic API over our own program: parser and formatter only.
  const config = {
    expose: 'export', jsDoc: 'extended', markdownDescription: true,
    topRef: false, encodeRefs: false, sortProps: true, additionalProperties: false,
  };
  const program = ts.createProgram(modules.map(moduleFile), { noEmit: true, strict: true, skipLibCheck: true });
  const ctx = { parser: tsj.createParser(program, config), formatter: tsj.createFormatter(config) };
  const defs = {};
  for (const mod of modules) {
    const sf = program.getSourceFile(moduleFile(mod));
    if (!sf) throw new Error(`kubernetes-types module ${mod} not found`);
    convertModule(mod, sf, rawDescriptions(generateModule(ctx, sf)), defs);
  }
  defs[INT_OR_STRING] = intOrStringDefinition;
  embedRuleFields(defs);
  const formats = addIntegerFormats(defs);
  // kube-aggregator's types are not in kubernetes-types: upstream's definitions, written down once.
  Object.assign(defs, JSON.parse(readFileSync(path.join(root, 'scripts', 'openapi-apiregistration.json'), 'utf8')));
  addFieldsAfter130(defs);
  checkRefs(defs);
  const sorted = Object.fromEntries(Object.keys(defs).sort().map((k) => [k, defs[k]]));
  const body = `${JSON.stringify(sorted, null, 1)}\n`;
  mkdirSync(path.dirname(outFile), { recursive: true });
  writeFileSync(outFile, body);
  const hash = createHash('sha256').update(body).digest('hex').slice(0, 12);
  console.log(`gen-openapi: ${Object.keys(sorted).length} definitions from ${modules.length} modules -> ${path.relative(root, outFile)} (${(body.length / 1024).toFixed(0)} KiB, sha256 ${hash}, ${formats} integer formats, ${Date.now() - started} ms)`);
}

/**
 * kubernetes-types 1.30 leaves out of RuleWithOperations and
 * NamedRuleWithOperations the fields Go embeds from Rule (`resources`,
 * `scope`); upstream's OpenAPI lists them, with these words, and strict
 * field validation must accept them.
 */
function embedRuleFields(defs) {
  const fields = {
    resources: {
      description: "Resources is a list of resources this rule applies to.\n\nFor example: 'pods' means pods. 'pods/log' means the log subresource of pods. '*' means all resources, but not subresources. 'pods/*' means all subresources of pods. '*/scale' means all scale subresources. '*/*' means all resources and their subresources.\n\nIf wildcard is present, the validation rule will ensure resources do not overlap with each other.\n\nDepending on the enclosing object, subresources might not be allowed. Required.",
      type: 'array', items: { type: 'string', default: '' },
    },
    scope: {
      description: 'scope specifies the scope of this rule. Valid values are "Cluster", "Namespaced", and "*" "Cluster" means that only cluster-scoped resources will match this rule. Namespace API objects are cluster-scoped. "Namespaced" means that only namespaced resources will match this rule. "*" means that there are no scope restrictions. Subresources match the scope of their parent resource. Default is "*".',
      type: 'string',
    },
  };
  for (const name of ['RuleWithOperations', 'NamedRuleWithOperations']) {
    const def = defs[`io.k8s.api.admissionregistration.v1.${name}`];
    if (!def) continue;
    for (const [f, schema] of Object.entries(fields)) def.properties[f] ??= schema;
    def.properties = Object.fromEntries(Object.entries(def.properties).sort(([a], [b]) => a.localeCompare(b)));
  }
}

/**
 * The generator's `description` folds single line breaks; `markdownDescription`
 * is the doc comment as written, which is upstream's text. Keep that one.
 */
function rawDescriptions(generated) {
  const fix = (node) => {
    if (Array.isArray(node)) return node.forEach(fix);
    if (!node || typeof node !== 'object') return;
    if (typeof node.markdownDescription === 'string') {
      node.description = node.markdownDescription;
      delete node.markdownDescription;
    }
    for (const v of Object.values(node)) fix(v);
  };
  fix(generated.definitions);
  return generated;
}

/**
 * kubernetes-types writes every integer as `number`, dropping the Go type;
 * upstream's OpenAPI says int32 or int64 (`format`), which the server's
 * decoder needs to refuse numbers a field cannot hold. They are written down
 * per field in scripts/openapi-integer-formats.json (read from
 * @kubernetes/client-node's generated models by scripts/gen-integer-formats.mjs,
 * which says when to rerun it). Returns how many int32/int64 were set; an
 * integer left without one decodes as int32 (test/unit/numbers.test.ts checks
 * that none is left). A field the file names that is not an integer here
 * means the types changed under it: fail, so the file is regenerated.
 */
function addIntegerFormats(defs) {
  const formats = JSON.parse(readFileSync(path.join(root, 'scripts', 'openapi-integer-formats.json'), 'utf8'));
  const integerLeaf = (prop) => (prop?.type === 'integer' ? prop : prop?.items?.type === 'integer' ? prop.items
    : prop?.additionalProperties?.type === 'integer' ? prop.additionalProperties : undefined);
  let count = 0;
  for (const [full, fields] of Object.entries(formats)) {
    for (const [field, format] of Object.entries(fields)) {
      const target = integerLeaf(defs[full]?.properties?.[field]);
      if (!target) throw new Error(`scripts/openapi-integer-formats.json: ${full}.${field} is not an integer field of the served types: rerun scripts/gen-integer-formats.mjs`);
      target.format = format;
      // A Go float64 (JSONSchemaProps.maximum): upstream says number/double.
      if (format === 'double') target.type = 'number';
      else count++;
    }
  }
  return count;
}

await main();
