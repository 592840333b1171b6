/**
 * /openapi/v3: the index of group-version documents and the documents
 * themselves, as kube-apiserver 1.32 serves them (kube-openapi handler3).
 * Every served group-version gets one, plus the group-versions of
 * subresource kinds (autoscaling/v1 Scale, policy/v1 Eviction), which carry
 * those kinds' schemas. Documents are built once, on first request, and cached.
 */
import { createHash } from 'node:crypto';
import { apiVersionOf, groupVersions, kindKey, resources } from '../../api/resources.js';
import { definitionNameFor, openapiDefinitions, reachableDefinitions } from '../../api/schema/index.js';
import { buildPaths, gvPath, type GroupVersion } from './paths.js';

export { gvPath } from './paths.js';

export interface OpenAPIV3Document {
  /** The JSON text served for `GET /openapi/v3/<gvPath>`. */
  body: string;
  /** Upper-case hex SHA-512 of `body`: the `?hash=` of the index and the ETag. */
  hash: string;
}

const KUBERNETES_VERSION = 'v1.32.0';

let cache: Map<string, OpenAPIV3Document> | undefined;

/** Group-versions with a document: discovery's order, then subresource kinds' own group-versions. */
export function openapiGroupVersions(): GroupVersion[] {
  const out = new Map<string, GroupVersion>();
  for (const gv of groupVersions()) out.set(apiVersionOf(gv), gv);
  for (const r of resources) {
    for (const s of r.subresources) if (!out.has(apiVersionOf(s))) out.set(apiVersionOf(s), { group: s.group, version: s.version });
  }
  return [...out.values()];
}

function documents(): Map<string, OpenAPIV3Document> {
  if (!cache) {
    const built = new Map<string, OpenAPIV3Document>();
    const subresourceKinds = resources.flatMap((r) => r.subresources).filter((s) => !s.streamed);
    for (const gv of openapiGroupVersions()) {
      const body = JSON.stringify(buildDocument(gv, subresourceKinds));
      built.set(gvPath(gv), { body, hash: createHash('sha512').update(body).digest('hex').toUpperCase() });
    }
    cache = built;
  }
  return cache;
}

function buildDocument(gv: GroupVersion, subresourceKinds: { group: string; version: string; kind: string }[]): object {
  const { paths, refs } = buildPaths(gv, resources);
  // Kinds of this group-version that only subresources speak (Scale, Eviction) still get their schema.
  for (const s of subresourceKinds) {
    if (s.group === gv.group && s.version === gv.version) {
      const name = definitionNameFor(kindKey(s));
      if (name) refs.add(name);
    }
  }
  const defs = openapiDefinitions();
  const schemas: Record<string, unknown> = {};
  for (const name of reachableDefinitions(refs)) schemas[name] = defs[name];
  return {
    openapi: '3.0.0',
    info: { title: 'Kubernetes', version: KUBERNETES_VERSION },
    paths: Object.fromEntries(Object.keys(paths).sort().map((p) => [p, paths[p]])),
    components: { schemas },
  };
}

/** `GET /openapi/v3`: `{paths: {"apis/apps/v1": {serverRelativeURL: "/openapi/v3/apis/apps/v1?hash=..."}}}`. */
export function openapiV3Index(): { paths: Record<string, { serverRelativeURL: string }> } {
  const paths: Record<string, { serverRelativeURL: string }> = {};
  for (const [path, doc] of documents()) paths[path] = { serverRelativeURL: `/openapi/v3/${path}?hash=${doc.hash}` };
  return { paths };
}

/** `GET /openapi/v3/<gvPath>` (`api/v1`, `apis/apps/v1`); undefined for an unknown group-version. */
export function openapiV3Document(gvPathArg: string): OpenAPIV3Document | undefined {
  return documents().get(gvPathArg.replace(/^\/+|\/+$/g, ''));
}
