/**
 * Turns a URL into upstream's RequestInfo: API requests get group, version,
 * namespace, resource, name, subresource and a verb; anything else is a
 * non-resource path (/healthz, /version, /openapi/...).
 */
import { queryBool } from '../api/list-options.js';

export interface RequestInfo {
  isResourceRequest: boolean;
  path: string;
  verb: string;
  apiPrefix?: 'api' | 'apis';
  group: string;
  version: string;
  namespace?: string;
  resource?: string;
  name?: string;
  subresource?: string;
  /** list, watch and deletecollection: the fieldSelector query parameter, which authorization sees (KEP-4601). */
  fieldSelector?: string;
  /** Path segments after the group-version, for discovery. */
  parts: string[];
}

const namespaceSubresources = new Set(['status', 'finalize']);

/**
 * The query's values of `name`. url.searchParams parses the query into a URLSearchParams on its
 * first use: a request without a query (nearly every create, update and get) makes none.
 */
export function queryValues(url: URL, name: string): string[] {
  return url.search === '' ? [] : url.searchParams.getAll(name);
}

/** The query's first value of `name`, as queryValues. */
export function queryValue(url: URL, name: string): string | undefined {
  return url.search === '' ? undefined : url.searchParams.get(name) ?? undefined;
}

export function parseRequestInfo(method: string, url: URL): RequestInfo {
  const path = url.pathname;
  const segs = path.split('/').filter(Boolean);
  const info: RequestInfo = { isResourceRequest: false, path, verb: method.toLowerCase(), group: '', version: '', parts: [] };
  if (segs[0] !== 'api' && segs[0] !== 'apis') return info;
  info.apiPrefix = segs[0];
  let rest: string[];
  if (segs[0] === 'api') {
    if (segs.length < 2) return info;
    info.version = segs[1];
    rest = segs.slice(2);
  } else {
    if (segs.length < 3) { info.group = segs[1] ?? ''; return info; }
    info.group = segs[1];
    info.version = segs[2];
    rest = segs.slice(3);
  }
  info.parts = rest;
  if (rest.length === 0) return info;
  info.isResourceRequest = true;
  let watchPath = false;
  if (rest[0] === 'watch') { watchPath = true; rest = rest.slice(1); }
  if (rest[0] === 'namespaces' && rest.length >= 3 && !(rest.length === 3 && namespaceSubresources.has(rest[2]))) {
    info.namespace = rest[1];
    rest = rest.slice(2);
  } else if (rest[0] === 'namespaces' && rest.length >= 2) {
    // /namespaces/{name}[/status|/finalize]: the namespace object itself.
    info.resource = 'namespaces';
    info.name = rest[1];
    info.subresource = rest[2];
    info.verb = verbFor(method, true, url, watchPath);
    return info;
  }
  info.resource = rest[0];
  info.name = rest[1];
  info.subresource = rest[2];
  info.verb = verbFor(method, info.name !== undefined, url, watchPath);
  // The query is parsed (url.searchParams makes its URLSearchParams) only for the verbs that read it.
  if (info.verb === 'list' || info.verb === 'watch' || info.verb === 'deletecollection') {
    const selector = queryValue(url, 'fieldSelector');
    if (selector) info.fieldSelector = selector;
  }
  return info;
}

function verbFor(method: string, hasName: boolean, url: URL, watchPath: boolean): string {
  switch (method) {
    case 'GET': case 'HEAD':
      if (watchPath || queryBool(queryValue(url, 'watch'))) return 'watch';
      return hasName ? 'get' : 'list';
    case 'POST': return 'create';
    case 'PUT': return 'update';
    case 'PATCH': return 'patch';
    case 'DELETE': return hasName ? 'delete' : 'deletecollection';
    default: return method.toLowerCase();
  }
}
