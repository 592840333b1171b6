/**
 * /openapi/v3: the index of group-version documents and the documents
 * themselves, as kube-apiserver 1.32 serves them (kube-openapi handler3).
 * Every served group-version gets one, plus the group-versions of
 * subresource kinds (autoscaling/v1 Scale, policy/v1 Eviction), which carry
 * those kinds' schemas. Documents are built once, on first request, and cached.
 */
import { apiVersionOf, groupVersions, kindKey, resources } from '../../api/resources.js';
import { definitionNameFor, openapiDefinitions, reachableDefinitions } from '../../api/schema/index.js';
import { buildPaths, documentedResources, gvPath, type GroupVersion } from './paths.js';
import type { CustomCatalogue } from '../../registry/custom/catalogue.js';
import { customDocuments } from './custom.js';
import { openapiInfo, withHash, type OpenAPIV3Document } from './document.js';

export { gvPath } from './paths.js';

export type { OpenAPIV3Document } from './document.js';

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
      built.set(gvPath(gv), withHash(JSON.stringify(buildDocument(gv, subresourceKinds))));
    }
    cache = built;
  }
  return cache;
}

function buildDocument(gv: GroupVersion, subresourceKinds: { group: string; version: string; kind: string }[]): object {
  const { paths, refs } = buildPaths(gv, documentedResources);
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
    info: openapiInfo,
    paths: Object.fromEntries(Object.keys(paths).sort().map((p) => [p, paths[p]])),
    components: { schemas },
  };
}

/** Built-in documents, then those of the served custom resources' group-versions. */
function allDocuments(custom?: CustomCatalogue): Map<string, OpenAPIV3Document> {
  if (!custom?.versions().length) return documents();
  return new Map([...documents(), ...customDocuments(custom)]);
}

/** `GET /openapi/v3`: `{paths: {"apis/apps/v1": {serverRelativeURL: "/openapi/v3/apis/apps/v1?hash=..."}}}`. */
export function openapiV3Index(custom?: CustomCatalogue): { paths: Record<string, { serverRelativeURL: string }> } {
  const paths: Record<string, { serverRelativeURL: string }> = {};
  for (const [path, doc] of allDocuments(custom)) paths[path] = { serverRelativeURL: `/openapi/v3/${path}?hash=${doc.hash}` };
  return { paths };
}

/** `GET /openapi/v3/<gvPath>` (`api/v1`, `apis/apps/v1`); undefined for an unknown group-version. */
export function openapiV3Document(gvPathArg: string, custom?: CustomCatalogue): OpenAPIV3Document | undefined {
  return allDocuments(custom).get(gvPathArg.replace(/^\/+|\/+$/g, ''));
}

