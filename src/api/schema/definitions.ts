/**
 * The OpenAPI v3 definitions of the served types, as scripts/gen-openapi.mjs
 * derives them at build time from kubernetes-types into
 * generated/openapi-defs.json. One source for /openapi/v3, kubectl explain
 * and strict field validation. Loaded once, on first use.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { readTextInPieces } from '../../util/read-text.js';

/** The parts of an OpenAPI v3 schema object the generator emits. */
export interface OpenAPISchema {
  description?: string;
  type?: 'object' | 'array' | 'string' | 'integer' | 'number' | 'boolean';
  format?: string;
  properties?: Record<string, OpenAPISchema>;
  required?: string[];
  items?: OpenAPISchema;
  additionalProperties?: OpenAPISchema;
  $ref?: string;
  allOf?: OpenAPISchema[];
  oneOf?: OpenAPISchema[];
  'x-kubernetes-group-version-kind'?: GroupVersionKind[];
  'x-kubernetes-preserve-unknown-fields'?: boolean;
  'x-kubernetes-int-or-string'?: boolean;
}

export interface GroupVersionKind {
  group: string;
  kind: string;
  version: string;
}

export const REF_PREFIX = '#/components/schemas/';

const DEFS_FILE = path.join('generated', 'openapi-defs.json');

let loaded: { defs: Readonly<Record<string, OpenAPISchema>>; byKind: Map<string, string> } | undefined;

/** The package root: the nearest directory above this file that holds generated/openapi-defs.json. */
function findDefsFile(): string {
  let dir = path.dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const candidate = path.join(dir, DEFS_FILE);
    if (existsSync(candidate)) return candidate;
    const parent = path.dirname(dir);
    if (parent === dir) {
      throw new Error(`${DEFS_FILE} not found above ${fileURLToPath(import.meta.url)}; run \`node scripts/gen-openapi.mjs\` (part of npm run build)`);
    }
    dir = parent;
  }
}

function load() {
  if (!loaded) {
    // In pieces: readFileSync's 1 MiB buffer would raise glibc's mmap and trim thresholds for good (read-text.ts).
    const defs = JSON.parse(readTextInPieces(findDefsFile())) as Record<string, OpenAPISchema>;
    const byKind = new Map<string, string>();
    for (const [name, def] of Object.entries(defs)) {
      for (const gvk of def['x-kubernetes-group-version-kind'] ?? []) byKind.set(gvkKey(gvk), name);
    }
    loaded = { defs, byKind };
  }
  return loaded;
}

/** `apps/v1/DaemonSet`, `v1/Pod`: the key resources.ts's `kindKey` produces. */
export function gvkKey(gvk: { group: string; version: string; kind: string }): string {
  return `${gvk.group ? `${gvk.group}/` : ''}${gvk.version}/${gvk.kind}`;
}

/** Every definition, by upstream name (`io.k8s.api.apps.v1.DaemonSet`). */
export function openapiDefinitions(): Readonly<Record<string, OpenAPISchema>> {
  return load().defs;
}

/** The definition name for a kind key (`apps/v1/DaemonSet`) or a definition name itself. */
export function definitionNameFor(key: string): string | undefined {
  const { defs, byKind } = load();
  return byKind.get(key) ?? (Object.hasOwn(defs, key) ? key : undefined);
}

/** The schema of a kind (`apps/v1/DaemonSet`, `v1/Pod`, `autoscaling/v1/Scale`) or of a definition name. */
export function definitionFor(key: string): OpenAPISchema | undefined {
  const name = definitionNameFor(key);
  return name === undefined ? undefined : load().defs[name];
}

/** `#/components/schemas/io.k8s.api.apps.v1.DaemonSet` -> `io.k8s.api.apps.v1.DaemonSet`. */
export function refName(ref: string): string {
  return ref.startsWith(REF_PREFIX) ? ref.slice(REF_PREFIX.length) : ref;
}

/** The names of `roots` and of every definition they reach through `$ref`, sorted. */
export function reachableDefinitions(roots: Iterable<string>): string[] {
  const { defs } = load();
  const seen = new Set<string>();
  const stack = [...roots];
  while (stack.length) {
    const name = stack.pop()!;
    if (seen.has(name) || !defs[name]) continue;
    seen.add(name);
    collectRefs(defs[name], stack);
  }
  return [...seen].sort();
}

function collectRefs(schema: OpenAPISchema, out: string[]): void {
  if (schema.$ref) out.push(refName(schema.$ref));
  for (const sub of schema.allOf ?? []) collectRefs(sub, out);
  for (const sub of schema.oneOf ?? []) collectRefs(sub, out);
  if (schema.items) collectRefs(schema.items, out);
  if (schema.additionalProperties) collectRefs(schema.additionalProperties, out);
  for (const sub of Object.values(schema.properties ?? {})) collectRefs(sub, out);
}
