/**
 * /openapi/v3 documents of custom resources, as apiextensions-apiserver's
 * openapi builder publishes them: one per served group-version, paths as for
 * built-in kinds, and definitions named by the reversed group
 * (`com.example.stable.v1.CronTab`) holding the version's schema with
 * apiVersion, kind and metadata added, plus the list kind. Rebuilt when the
 * catalogue changes.
 */
import { kindKey } from '../../api/resources.js';
import { openapiDefinitions, reachableDefinitions, REF_PREFIX } from '../../api/schema/index.js';
import type { CustomCatalogue, CustomVersion } from '../../registry/custom/catalogue.js';
import { buildPaths, gvPath } from './paths.js';
import { openapiInfo, withHash, type OpenAPIV3Document } from './document.js';

const OBJECT_META = 'io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta';
const LIST_META = 'io.k8s.apimachinery.pkg.apis.meta.v1.ListMeta';
const apiVersionDoc = 'APIVersion defines the versioned schema of this representation of an object. Servers should convert recognized schemas to the latest internal value, and may reject unrecognized values. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#resources';
const kindDoc = 'Kind is a string value representing the REST resource this object represents. Servers may infer this from the endpoint the client submits requests to. Cannot be updated. In CamelCase. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#types-kinds';

let cache: { generation: number; docs: Map<string, OpenAPIV3Document> } | undefined;

/** `com.example.stable.v1.CronTab`. */
export const customDefinitionName = (group: string, version: string, kind: string) => `${group.split('.').reverse().join('.')}.${version}.${kind}`;

export function customDocuments(custom: CustomCatalogue): Map<string, OpenAPIV3Document> {
  if (cache?.generation === custom.generation) return cache.docs;
  const byGV = new Map<string, CustomVersion[]>();
  for (const v of custom.versions()) {
    const key = gvPath(v.info);
    byGV.set(key, [...(byGV.get(key) ?? []), v]);
  }
  const docs = new Map<string, OpenAPIV3Document>();
  for (const [path, versions] of byGV) docs.set(path, withHash(JSON.stringify(document(versions))));
  cache = { generation: custom.generation, docs };
  return docs;
}

function document(versions: CustomVersion[]): object {
  const names = new Map<string, string>();
  const own: Record<string, unknown> = {};
  for (const v of versions) {
    const { group, version, kind, listKind } = v.info;
    const name = customDefinitionName(group, version, kind);
    const listName = customDefinitionName(group, version, listKind);
    names.set(kindKey(v.info), name);
    names.set(kindKey({ group, version, kind: listKind }), listName);
    own[name] = kindSchema(v);
    own[listName] = listSchema(v, name);
  }
  const gv = { group: versions[0].info.group, version: versions[0].info.version };
  const { paths, refs } = buildPaths(gv, versions.map((v) => v.info), (key) => names.get(key));
  const builtins = [...refs, OBJECT_META, LIST_META].filter((r) => !(r in own));
  const defs = openapiDefinitions();
  const schemas: Record<string, unknown> = { ...own };
  for (const name of reachableDefinitions(builtins)) schemas[name] = defs[name];
  return {
    openapi: '3.0.0',
    info: openapiInfo,
    paths: Object.fromEntries(Object.keys(paths).sort().map((p) => [p, paths[p]])),
    components: { schemas: Object.fromEntries(Object.keys(schemas).sort().map((k) => [k, schemas[k]])) },
  };
}

function kindSchema(v: CustomVersion): object {
  const s: any = structuredClone(v.schema);
  s.type ??= 'object';
  s.properties = {
    ...s.properties,
    apiVersion: { description: apiVersionDoc, type: 'string' },
    kind: { description: kindDoc, type: 'string' },
    metadata: { description: "Standard object's metadata. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata", allOf: [{ $ref: REF_PREFIX + OBJECT_META }] },
  };
  s['x-kubernetes-group-version-kind'] = [{ group: v.info.group, kind: v.info.kind, version: v.info.version }];
  return s;
}

function listSchema(v: CustomVersion, itemName: string): object {
  return {
    description: `${v.info.listKind} is a list of ${v.info.kind}`,
    type: 'object',
    required: ['items'],
    properties: {
      apiVersion: { description: apiVersionDoc, type: 'string' },
      items: { description: `List of ${v.info.plural}. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md`, type: 'array', items: { $ref: REF_PREFIX + itemName } },
      kind: { description: kindDoc, type: 'string' },
      metadata: { description: 'Standard list metadata. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#types-kinds', allOf: [{ $ref: REF_PREFIX + LIST_META }] },
    },
    'x-kubernetes-group-version-kind': [{ group: v.info.group, kind: v.info.listKind, version: v.info.version }],
  };
}
