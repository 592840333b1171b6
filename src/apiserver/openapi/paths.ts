/**
 * The `paths` of one group-version's OpenAPI v3 document, shaped like
 * kube-apiserver's: collection and item paths (under
 * `namespaces/{namespace}` for namespaced kinds), subresources, and on every
 * operation `x-kubernetes-action` and `x-kubernetes-group-version-kind`.
 *
 * What kubectl reads here:
 * - create/apply (cli-runtime query_param_verifier_v3.go): the first PATCH
 *   whose GVK is the kind's must list a `fieldValidation` parameter, so every
 *   PATCH does.
 * - apply (kubectl apply/patcher.go): a PATCH declaring a
 *   strategic-merge-patch requestBody makes kubectl compute the patch from
 *   these schemas' `x-kubernetes-patch-*` markers, which kubernetes-types does
 *   not carry; without a requestBody it uses its compiled-in types. So PATCH
 *   has no requestBody.
 * - explain (kubectl pkg/explain/v2 plaintext.tmpl): finds the GVK on an
 *   operation of `/<prefix>/<version>[/namespaces/{namespace}]/<plural>[/{name}]`.
 */
import { apiVersionOf, kindKey, resources, type ResourceInfo, type SubresourceInfo } from '../../api/resources.js';
import { componentStatusResource } from '../componentstatuses.js';
import { definitionNameFor, REF_PREFIX } from '../../api/schema/index.js';
import {
  deleteParameters, listParameters, pathName, pathNamespace, patchParameters, pretty, writeParameters, type Parameter,
} from './parameters.js';

export interface GroupVersion {
  group: string;
  version: string;
}

type Method = 'get' | 'put' | 'post' | 'patch' | 'delete';
type Action = 'get' | 'list' | 'put' | 'post' | 'patch' | 'delete' | 'deletecollection';

export interface PathItem {
  get?: object;
  put?: object;
  post?: object;
  patch?: object;
  delete?: object;
  parameters: Parameter[];
}

const STATUS = 'io.k8s.apimachinery.pkg.apis.meta.v1.Status';
const DELETE_OPTIONS = 'io.k8s.apimachinery.pkg.apis.meta.v1.DeleteOptions';
export const API_RESOURCE_LIST = 'io.k8s.apimachinery.pkg.apis.meta.v1.APIResourceList';

/** `api/v1`, `apis/apps/v1`: the key of the /openapi/v3 index. */
export const gvPath = (gv: GroupVersion) => (gv.group ? `apis/${gv.group}/${gv.version}` : `api/${gv.version}`);

/** The definition names the paths reference, so the document can carry them and what they reach. */
export interface Built {
  paths: Record<string, PathItem>;
  refs: Set<string>;
}

/** Paths of every resource in `gv` (plus the group-version's discovery path). */
/** The built-in resources the documents describe: the registry's catalogue and those served without storage (ComponentStatus). */
export const documentedResources: readonly ResourceInfo[] = [...resources, componentStatusResource];

export function buildPaths(gv: GroupVersion, resources: readonly ResourceInfo[], customName?: (kindKey: string) => string | undefined): Built {
  const b = new Builder(gv, customName);
  b.discoveryPath();
  for (const r of resources) if (r.group === gv.group && r.version === gv.version) b.resource(r);
  return { paths: b.paths, refs: b.refs };
}

interface OpSpec {
  action: Action;
  gvk: { group: string; version: string; kind: string };
  description: string;
  operationId: string;
  parameters?: Parameter[];
  /** The definition in the request body (POST, PUT, DELETE). */
  body?: string;
  /** Response code -> definition. */
  responses: Record<string, string>;
}

class Builder {
  readonly paths: Record<string, PathItem> = {};
  readonly refs = new Set<string>();
  private readonly tag: string;
  private readonly idPart: string;

  constructor(private readonly gv: GroupVersion, private readonly customName?: (kindKey: string) => string | undefined) {
    const group = gv.group ? gv.group.replace(/\.k8s\.io$/, '').split('.').map(capitalize).join('') : 'Core';
    this.tag = `${group.toLowerCase()}_${gv.version}`;
    this.idPart = `${group}${capitalize(gv.version)}`;
  }

  discoveryPath(): void {
    this.add(`/${gvPath(this.gv)}/`, [], 'get', {
      description: 'get available resources', operationId: `get${this.idPart}APIResources`, responses: { 200: API_RESOURCE_LIST },
    });
  }

  resource(r: ResourceInfo): void {
    const prefix = `/${gvPath(this.gv)}`;
    const scope = r.namespaced ? `${prefix}/namespaces/{namespace}` : prefix;
    const ns = r.namespaced ? 'Namespaced' : '';
    const kind = this.definition(r);
    const list = () => this.definition({ ...r, kind: r.listKind });
    const gvk = { group: r.group, version: r.version, kind: r.kind };
    const collection = `${scope}/${r.plural}`;
    const item = `${collection}/{name}`;
    const nsParams = r.namespaced ? [pathNamespace] : [];
    const itemParams = [pathName(r.kind), ...nsParams, pretty];
    const has = (verb: string) => r.verbs.includes(verb);
    const id = (verb: string, suffix = '') => `${verb}${this.idPart}${ns}${r.kind}${suffix}`;

    if (has('list')) this.add(collection, [...nsParams, pretty], 'get', { action: 'list', gvk, description: `list or watch objects of kind ${r.kind}`, operationId: id('list'), parameters: listParameters, responses: { 200: list() } });
    if (has('create')) this.add(collection, [...nsParams, pretty], 'post', { action: 'post', gvk, description: `create ${article(r.kind)}`, operationId: id('create'), parameters: writeParameters, body: kind, responses: { 200: kind, 201: kind, 202: kind } });
    if (has('deletecollection')) this.add(collection, [...nsParams, pretty], 'delete', { action: 'deletecollection', gvk, description: `delete collection of ${r.kind}`, operationId: `delete${this.idPart}Collection${ns}${r.kind}`, parameters: [...deleteParameters(), ...listParameters], body: DELETE_OPTIONS, responses: { 200: STATUS } });
    if (has('get')) this.add(item, itemParams, 'get', { action: 'get', gvk, description: `read the specified ${r.kind}`, operationId: id('read'), responses: { 200: kind } });
    if (has('update')) this.add(item, itemParams, 'put', { action: 'put', gvk, description: `replace the specified ${r.kind}`, operationId: id('replace'), parameters: writeParameters, body: kind, responses: { 200: kind, 201: kind } });
    if (has('patch')) this.add(item, itemParams, 'patch', { action: 'patch', gvk, description: `partially update the specified ${r.kind}`, operationId: id('patch'), parameters: patchParameters, responses: { 200: kind, 201: kind } });
    if (has('delete')) this.add(item, itemParams, 'delete', { action: 'delete', gvk, description: `delete ${article(r.kind)}`, operationId: id('delete'), parameters: deleteParameters(), body: DELETE_OPTIONS, responses: { 200: STATUS, 202: STATUS } });
    if (r.namespaced && has('list')) {
      this.add(`${prefix}/${r.plural}`, [pretty], 'get', { action: 'list', gvk, description: `list or watch objects of kind ${r.kind}`, operationId: `list${this.idPart}${r.kind}ForAllNamespaces`, parameters: listParameters, responses: { 200: list() } });
    }
    for (const sub of r.subresources) if (!sub.streamed) this.subresource(r, sub, item, itemParams, id);
  }

  private subresource(r: ResourceInfo, sub: SubresourceInfo, item: string, params: Parameter[], id: (verb: string, suffix?: string) => string): void {
    const path = `${item}/${sub.name}`;
    const kind = this.definition(sub);
    const gvk = { group: sub.group, version: sub.version, kind: sub.kind };
    const suffix = capitalize(sub.name);
    const of = `${sub.name} of the specified ${r.kind}`;
    for (const verb of sub.verbs) {
      if (verb === 'get') this.add(path, params, 'get', { action: 'get', gvk, description: `read ${of}`, operationId: id('read', suffix), responses: { 200: kind } });
      if (verb === 'update') this.add(path, params, 'put', { action: 'put', gvk, description: `replace ${of}`, operationId: id('replace', suffix), parameters: writeParameters, body: kind, responses: { 200: kind, 201: kind } });
      if (verb === 'patch') this.add(path, params, 'patch', { action: 'patch', gvk, description: `partially update ${of}`, operationId: id('patch', suffix), parameters: patchParameters, responses: { 200: kind, 201: kind } });
      if (verb === 'create') this.add(path, params, 'post', { action: 'post', gvk, description: `create ${sub.name} of ${article(r.kind)}`, operationId: id('create', suffix), parameters: writeParameters, body: kind, responses: { 200: kind, 201: kind, 202: kind } });
    }
  }

  /** The definition name of a kind; every served kind must have one. */
  private definition(k: { group: string; version: string; kind: string }): string {
    const name = this.customName?.(kindKey(k)) ?? definitionNameFor(kindKey(k));
    if (!name) throw new Error(`no OpenAPI definition for ${apiVersionOf(k)} ${k.kind}; is its module in scripts/gen-openapi.mjs?`);
    return name;
  }

  private add(path: string, pathParams: Parameter[], method: Method, spec: Omit<OpSpec, 'action' | 'gvk'> & Partial<OpSpec>): void {
    const item = (this.paths[path] ??= { parameters: pathParams });
    const operation: Record<string, unknown> = {
      tags: [this.tag],
      description: spec.description,
      operationId: spec.operationId,
    };
    if (spec.parameters?.length) operation.parameters = spec.parameters;
    if (spec.body) operation.requestBody = { content: { '*/*': { schema: this.ref(spec.body) } } };
    operation.responses = this.responses(spec);
    if (spec.action) operation['x-kubernetes-action'] = spec.action;
    if (spec.gvk) operation['x-kubernetes-group-version-kind'] = { group: spec.gvk.group, version: spec.gvk.version, kind: spec.gvk.kind };
    item[method] = operation;
  }

  private responses(spec: Partial<OpSpec>): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    for (const [code, name] of Object.entries(spec.responses ?? {})) {
      const content: Record<string, unknown> = { 'application/json': { schema: this.ref(name) } };
      if (spec.action === 'list') content['application/json;stream=watch'] = { schema: this.ref(name) };
      out[code] = { description: codeText[code] ?? 'OK', content };
    }
    out['401'] = { description: 'Unauthorized' };
    return out;
  }

  private ref(name: string): { $ref: string } {
    this.refs.add(name);
    return { $ref: REF_PREFIX + name };
  }
}

const codeText: Record<string, string> = { 200: 'OK', 201: 'Created', 202: 'Accepted' };

function capitalize(s: string): string {
  return s.charAt(0).toUpperCase() + s.slice(1);
}

/** `a DaemonSet`, `an Event`. */
function article(kind: string): string {
  return `${/^[AEIOU]/.test(kind) ? 'an' : 'a'} ${kind}`;
}
