#!/usr/bin/env node
/**
 * Writes scripts/openapi-integer-formats.json, the Go integer type of every
 * integer field of the served API types: `{ "<definition>": { "<field>":
 * "int32" | "int64" | "double" } }`. kubernetes-types writes every integer as
 * `number`; upstream's OpenAPI says int32 or int64 (`format`), which the
 * server's decoder needs to refuse numbers a field cannot hold, and
 * scripts/gen-openapi.mjs adds them from that file on every build.
 *
 * @kubernetes/client-node is generated from upstream's OpenAPI and keeps the
 * format per field (`attributeTypeMap`), so this reads them from there:
 * `io.k8s.api.core.v1.PodSpec` is the model `CoreV1PodSpec` or `V1PodSpec`.
 * The package is not installed with the project; rerun this when
 * kubernetes-types or the served types change:
 *
 *   bash scripts/fetch-test-deps.sh && node scripts/gen-openapi.mjs && node scripts/gen-integer-formats.mjs
 *
 * then `node scripts/gen-openapi.mjs` again. It reads generated/openapi-defs.json
 * for the integer fields (a Go float64, JSONSchemaProps.maximum, is
 * already `number`/`double` there once its format has been applied).
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const modelsDir = path.join(root, 'build', 'test-deps', 'node_modules', '@kubernetes', 'client-node', 'dist', 'gen', 'models');
const outFile = path.join(root, 'scripts', 'openapi-integer-formats.json');
if (!existsSync(modelsDir)) {
  console.error(`gen-integer-formats: ${modelsDir} not found: run \`bash scripts/fetch-test-deps.sh\` first`);
  process.exit(1);
}
const defs = JSON.parse(readFileSync(path.join(root, 'generated', 'openapi-defs.json'), 'utf8'));
// kube-aggregator's definitions are upstream's as written down, formats included.
const written = JSON.parse(readFileSync(path.join(root, 'scripts', 'openapi-apiregistration.json'), 'utf8'));
for (const name of Object.keys(written)) delete defs[name];
const cap = (w) => w.charAt(0).toUpperCase() + w.slice(1);
const numeric = (s) => s?.type === 'integer' || (s?.type === 'number' && s.format === 'double');
const numberLeaf = (prop) => [prop, prop.items, prop.additionalProperties].some(numeric);

const formats = {};
for (const [full, def] of Object.entries(defs)) {
  const fields = Object.entries(def.properties ?? {}).filter(([, prop]) => numberLeaf(prop)).map(([field]) => field);
  if (fields.length === 0) continue;
  const parts = full.split('.');
  const [name, version, group] = [parts.at(-1), parts.at(-2), parts.at(-3)];
  const file = [`${cap(group)}${cap(version)}${name}`, `${cap(version)}${name}`]
    .map((c) => path.join(modelsDir, `${c}.js`)).find((f) => existsSync(f));
  if (!file) continue;
  const model = Object.values(await import(pathToFileURL(file).href))[0];
  const byJSONName = new Map((model.attributeTypeMap ?? []).map((a) => [a.baseName, a.format]));
  const found = Object.fromEntries(fields.map((f) => [f, byJSONName.get(f)]).filter(([, f]) => ['int32', 'int64', 'double'].includes(f)));
  if (Object.keys(found).length > 0) formats[full] = found;
}
const sorted = Object.fromEntries(Object.keys(formats).sort().map((k) => [k, formats[k]]));
writeFileSync(outFile, `${JSON.stringify(sorted, null, 1)}\n`);
console.log(`gen-integer-formats: ${Object.values(sorted).reduce((n, f) => n + Object.keys(f).length, 0)} fields of ${Object.keys(sorted).length} definitions -> ${path.relative(root, outFile)}`);
