/**
 * /openapi/v3 documents: the shape kubectl 1.32 reads for create/apply
 * (cli-runtime query_param_verifier_v3.go), apply (apply/patcher.go) and
 * explain (pkg/explain/v2 plaintext.tmpl).
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { apiVersionOf, groupVersions, resources } from '../../src/api/resources.js';
import { gvPath, openapiGroupVersions, openapiV3Document, openapiV3Index } from '../../src/apiserver/openapi/index.js';

interface Gvk { group: string; version: string; kind: string }
interface Param { name: string; in: string }
interface Operation {
  parameters?: Param[];
  requestBody?: unknown;
  'x-kubernetes-action'?: string;
  'x-kubernetes-group-version-kind'?: Gvk;
}
type PathItem = Partial<Record<'get' | 'put' | 'post' | 'patch' | 'delete', Operation>> & { parameters?: Param[] };
interface Schema {
  description?: string;
  type?: string;
  $ref?: string;
  allOf?: Schema[];
  items?: Schema;
  additionalProperties?: Schema;
  properties?: Record<string, Schema>;
  required?: string[];
  'x-kubernetes-group-version-kind'?: Record<string, string>[];
}
interface Doc {
  openapi: string;
  info: { title: string; version: string };
  paths: Record<string, PathItem>;
  components: { schemas: Record<string, Schema> };
}

const METHODS = ['get', 'put', 'post', 'patch', 'delete'] as const;

function doc(path: string): Doc {
  const d = openapiV3Document(path);
  assert.ok(d, `no document for ${path}`);
  return JSON.parse(d.body) as Doc;
}

const gvPathOf = (k: { group: string; version: string }) => gvPath(k);

/** cli-runtime supportsQueryParamV3: the first PATCH carrying the GVK decides. */
function supportsFieldValidation(d: Doc, gvk: Gvk): boolean {
  for (const item of Object.values(d.paths)) {
    const op = item.patch;
    if (!op) continue;
    const g = op['x-kubernetes-group-version-kind'];
    if (!g || g.group !== gvk.group || g.version !== gvk.version || g.kind !== gvk.kind) continue;
    return (op.parameters ?? []).some((p) => p.name === 'fieldValidation');
  }
  return false;
}

/** explain's resolveRef: `#/components/schemas/x` within the document. */
function resolve(d: Doc, ref: string): Schema | undefined {
  return d.components.schemas[ref.replace('#/components/schemas/', '')];
}

/** Follows explain's "output" template: properties, then items, maps, then the allOf alternatives. */
function explainField(d: Doc, schema: Schema, path: string[]): Schema | undefined {
  const resolved = schema.$ref ? resolve(d, schema.$ref) : schema;
  if (!resolved) return undefined;
  if (path.length === 0) return schema;
  const sub = resolved.properties?.[path[0]];
  if (sub) return explainField(d, sub, path.slice(1));
  if (resolved.items) return explainField(d, resolved.items, path);
  if (resolved.additionalProperties) return explainField(d, resolved.additionalProperties, path);
  for (const alt of resolved.allOf ?? []) {
    const found = explainField(d, alt, path);
    if (found) return found;
  }
  return undefined;
}

/** explain's "description" template: the schema's own words, then those of its allOf refs. */
function descriptions(d: Doc, schema: Schema): string[] {
  const s = schema.$ref ? resolve(d, schema.$ref) ?? {} : schema;
  return [...(s.description ? [s.description] : []), ...(s.allOf ?? []).flatMap((a) => descriptions(d, a))];
}

/** explain's "fieldList": properties of the schema or of its allOf refs. */
function fieldNames(d: Doc, schema: Schema): string[] {
  const s = schema.$ref ? resolve(d, schema.$ref) ?? {} : schema;
  return [...Object.keys(s.properties ?? {}), ...(s.allOf ?? []).flatMap((a) => fieldNames(d, a))];
}

/** explain finds the kind's schema by deep equality of a GVK entry with the operation's GVK. */
function schemaOfKind(d: Doc, gvk: Gvk): Schema | undefined {
  return Object.values(d.components.schemas).find((s) => (s['x-kubernetes-group-version-kind'] ?? []).some((g) =>
    Object.keys(g).length === 3 && g.group === gvk.group && g.version === gvk.version && g.kind === gvk.kind));
}

describe('openapi v3 index', () => {
  it('lists every served group-version and the subresource kinds\' ones', () => {
    const index = openapiV3Index();
    const want = [...groupVersions(), { group: 'autoscaling', version: 'v1' }, { group: 'policy', version: 'v1' }, { group: 'authentication.k8s.io', version: 'v1' }].map(gvPathOf);
    for (const p of want) assert.ok(index.paths[p], `index lacks ${p}`);
    assert.deepEqual(Object.keys(index.paths).sort(), [...new Set(want)].sort());
    assert.deepEqual(openapiGroupVersions().map(gvPathOf).sort(), Object.keys(index.paths).sort());
  });

  it('points at each document with the upper-case sha512 of its body', () => {
    for (const [p, { serverRelativeURL }] of Object.entries(openapiV3Index().paths)) {
      const d = openapiV3Document(p)!;
      assert.match(d.hash, /^[0-9A-F]{128}$/);
      assert.equal(d.hash, createHash('sha512').update(d.body).digest('hex').toUpperCase());
      assert.equal(serverRelativeURL, `/openapi/v3/${p}?hash=${d.hash}`);
    }
  });

  it('serves the same cached body every time and nothing for unknown group-versions', () => {
    assert.equal(openapiV3Document('apis/apps/v1'), openapiV3Document('apis/apps/v1'));
    assert.equal(openapiV3Document('/apis/apps/v1/')?.hash, openapiV3Document('apis/apps/v1')?.hash);
    assert.equal(openapiV3Document('apis/example.com/v1'), undefined);
  });
});

describe('openapi v3 documents', () => {
  it('are OpenAPI 3.0.0 documents titled Kubernetes v1.32.0', () => {
    for (const p of Object.keys(openapiV3Index().paths)) {
      const d = doc(p);
      assert.equal(d.openapi, '3.0.0');
      assert.deepEqual(d.info, { title: 'Kubernetes', version: 'v1.32.0' });
      assert.ok(Object.keys(d.components.schemas).length > 0, `${p} has no components`);
    }
  });

  it('declare fieldValidation and the GVK on DaemonSet PATCH', () => {
    const d = doc('apis/apps/v1');
    const patch = d.paths['/apis/apps/v1/namespaces/{namespace}/daemonsets/{name}'].patch!;
    assert.deepEqual(patch['x-kubernetes-group-version-kind'], { group: 'apps', version: 'v1', kind: 'DaemonSet' });
    assert.equal(patch['x-kubernetes-action'], 'patch');
    assert.ok(patch.parameters!.some((p) => p.name === 'fieldValidation' && p.in === 'query'));
  });

  it('let kubectl use server-side field validation for every patchable kind', () => {
    for (const r of resources) {
      if (!r.verbs.includes('patch')) continue;
      const gvk = { group: r.group, version: r.version, kind: r.kind };
      assert.ok(supportsFieldValidation(doc(gvPathOf(r)), gvk), `${apiVersionOf(r)} ${r.kind}`);
    }
  });

  it('declare fieldValidation on every POST, PUT and PATCH', () => {
    for (const p of Object.keys(openapiV3Index().paths)) {
      for (const [path, item] of Object.entries(doc(p).paths)) {
        for (const m of ['post', 'put', 'patch'] as const) {
          const op = item[m];
          if (op) assert.ok(op.parameters?.some((x) => x.name === 'fieldValidation'), `${m} ${path}`);
        }
      }
    }
  });

  it('leave PATCH without a requestBody, so kubectl apply uses its compiled-in strategic merge metadata', () => {
    for (const p of Object.keys(openapiV3Index().paths)) {
      for (const [path, item] of Object.entries(doc(p).paths)) assert.equal(item.patch?.requestBody, undefined, path);
    }
  });

  it('carry the GVK and an action on every resource operation', () => {
    for (const p of Object.keys(openapiV3Index().paths)) {
      for (const [path, item] of Object.entries(doc(p).paths)) {
        if (path.endsWith('/')) continue; // the group-version's discovery path
        for (const m of METHODS) {
          const op = item[m];
          if (!op) continue;
          assert.ok(op['x-kubernetes-group-version-kind'], `${m} ${path}`);
          assert.ok(op['x-kubernetes-action'], `${m} ${path}`);
        }
      }
    }
  });

  it('have collection, item and subresource paths with their parameters', () => {
    const d = doc('apis/apps/v1');
    const item = d.paths['/apis/apps/v1/namespaces/{namespace}/statefulsets/{name}'];
    assert.deepEqual(item.parameters!.map((p) => p.name), ['name', 'namespace', 'pretty']);
    assert.deepEqual(METHODS.filter((m) => item[m]), ['get', 'put', 'patch', 'delete']);
    const coll = d.paths['/apis/apps/v1/namespaces/{namespace}/statefulsets'];
    assert.equal(coll.get!['x-kubernetes-action'], 'list');
    assert.equal(coll.post!['x-kubernetes-action'], 'post');
    assert.equal(coll.delete!['x-kubernetes-action'], 'deletecollection');
    assert.ok(d.paths['/apis/apps/v1/statefulsets'].get);
    const scale = d.paths['/apis/apps/v1/namespaces/{namespace}/statefulsets/{name}/scale'];
    assert.deepEqual(scale.patch!['x-kubernetes-group-version-kind'], { group: 'autoscaling', version: 'v1', kind: 'Scale' });
    assert.ok(d.components.schemas['io.k8s.api.autoscaling.v1.Scale']);
    assert.ok(d.paths['/apis/apps/v1/namespaces/{namespace}/daemonsets/{name}/status'].patch);

    const core = doc('api/v1');
    assert.ok(core.paths['/api/v1/nodes/{name}'].get, 'cluster-scoped item path');
    assert.equal(core.paths['/api/v1/nodes/{name}'].parameters!.some((p) => p.name === 'namespace'), false);
    assert.deepEqual(core.paths['/api/v1/namespaces/{namespace}/pods/{name}/eviction'].post!['x-kubernetes-group-version-kind'],
      { group: 'policy', version: 'v1', kind: 'Eviction' });
    assert.deepEqual(core.paths['/api/v1/namespaces/{namespace}/pods/{name}/binding'].post!['x-kubernetes-group-version-kind'],
      { group: '', version: 'v1', kind: 'Binding' });
    assert.ok(core.paths['/api/v1/namespaces/{name}/finalize'].put);
  });

  it('resolve every $ref inside the same document', () => {
    for (const p of Object.keys(openapiV3Index().paths)) {
      const d = doc(p);
      const dangling: string[] = [];
      const walk = (node: unknown): void => {
        if (Array.isArray(node)) return node.forEach(walk);
        if (!node || typeof node !== 'object') return;
        const ref = (node as { $ref?: unknown }).$ref;
        if (typeof ref === 'string' && !resolve(d, ref)) dangling.push(ref);
        Object.values(node).forEach(walk);
      };
      walk(d);
      assert.deepEqual(dangling, [], p);
    }
  });

  it('let explain find every served kind: GVK on a searched path, and a schema with that GVK', () => {
    for (const r of resources) {
      const d = doc(gvPathOf(r));
      const prefix = r.group ? `/apis/${r.group}` : '/api';
      const search = [
        `${prefix}/${r.version}/${r.plural}`, `${prefix}/${r.version}/${r.plural}/{name}`,
        `${prefix}/${r.version}/namespaces/{namespace}/${r.plural}`, `${prefix}/${r.version}/namespaces/{namespace}/${r.plural}/{name}`,
      ];
      let gvk: Gvk | undefined;
      for (const s of search) for (const m of ['get', 'post', 'put', 'patch', 'delete'] as const) gvk ??= d.paths[s]?.[m]?.['x-kubernetes-group-version-kind'];
      assert.deepEqual(gvk, { group: r.group, version: r.version, kind: r.kind }, `${r.plural}: GVK on a searched path`);
      assert.ok(schemaOfKind(d, gvk), `${r.kind}: schema with GVK`);
    }
  });

  it('explain daemonset.spec.updateStrategy: description, and fields rollingUpdate and type', () => {
    const d = doc('apis/apps/v1');
    const strategy = d.components.schemas['io.k8s.api.apps.v1.DaemonSetUpdateStrategy'];
    assert.match(strategy.description ?? '', /DaemonSetUpdateStrategy is a struct used to control the update strategy/);
    const ds = schemaOfKind(d, { group: 'apps', version: 'v1', kind: 'DaemonSet' })!;
    const field = explainField(d, ds, ['spec', 'updateStrategy']);
    assert.ok(field);
    assert.deepEqual(descriptions(d, field), [
      'An update strategy to replace existing DaemonSet pods with new pods.',
      strategy.description,
    ]);
    assert.deepEqual(fieldNames(d, field).sort(), ['rollingUpdate', 'type']);
  });

  it('explain reaches into lists and maps: pod.spec.containers.image, pod.spec.containers.resources.limits', () => {
    const d = doc('api/v1');
    const pod = schemaOfKind(d, { group: '', version: 'v1', kind: 'Pod' })!;
    const image = explainField(d, pod, ['spec', 'containers', 'image']);
    assert.equal(image?.type, 'string');
    assert.match(image?.description ?? '', /Container image name/);
    const limits = explainField(d, pod, ['spec', 'containers', 'resources', 'limits']);
    assert.equal(limits?.type, 'object');
    assert.equal(limits?.additionalProperties?.$ref, '#/components/schemas/io.k8s.apimachinery.pkg.api.resource.Quantity');
  });

  it('keep core/v1 Event and events.k8s.io/v1 Event apart', () => {
    const core = schemaOfKind(doc('api/v1'), { group: '', version: 'v1', kind: 'Event' })!;
    const events = schemaOfKind(doc('apis/events.k8s.io/v1'), { group: 'events.k8s.io', version: 'v1', kind: 'Event' })!;
    assert.ok(core.properties?.message && !core.properties.note);
    assert.ok(events.properties?.note && !events.properties.message);
  });
});
