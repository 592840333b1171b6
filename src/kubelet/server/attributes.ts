/**
 * What a request to the kubelet asks for, in API terms (upstream
 * pkg/kubelet/server/auth.go, nodeAuthorizerAttributesGetter, v1.32 with
 * KubeletFineGrainedAuthz off, its default): resource `nodes`, name the
 * node's, API version v1, and
 *
 *  1. the verb from the HTTP method: POST create, GET get, PUT update,
 *     PATCH patch, DELETE delete; any other method (HEAD included) has the
 *     empty verb, which only a `*` rule grants, as upstream;
 *  2. the subresource from the path: /stats and below `stats`, /metrics and
 *     below `metrics`, /logs/ and below `log`, /checkpoint/ and below
 *     `checkpoint`; everything else (/pods, /healthz, /containerLogs, /exec,
 *     /run, /attach, /portForward, unknown paths) `proxy`.
 *
 * The path is the one the server routes on (dot segments resolved by the URL
 * parser, nothing percent-decoded), so a request cannot be authorized as one
 * path and served as another.
 */
import type { KubeletUser } from './authn.js';

export interface KubeletRequestAttributes {
  user: KubeletUser;
  verb: string;
  nodeName: string;
  subresource: 'stats' | 'metrics' | 'log' | 'checkpoint' | 'proxy';
}

const verbs: Record<string, string> = { POST: 'create', GET: 'get', PUT: 'update', PATCH: 'patch', DELETE: 'delete' };

/** upstream's isSubpath: `path` itself or anything below it. */
export function isSubpath(subpath: string, path: string): boolean {
  const p = path.endsWith('/') ? path.slice(0, -1) : path;
  return subpath === p || (subpath.startsWith(p) && subpath[p.length] === '/');
}

export function subresourceFor(path: string): KubeletRequestAttributes['subresource'] {
  if (isSubpath(path, '/stats/')) return 'stats';
  if (isSubpath(path, '/metrics')) return 'metrics';
  if (isSubpath(path, '/logs/')) return 'log';
  if (isSubpath(path, '/checkpoint/')) return 'checkpoint';
  return 'proxy';
}

export function requestAttributes(user: KubeletUser, method: string | undefined, path: string, nodeName: string): KubeletRequestAttributes {
  return { user, verb: verbs[method ?? ''] ?? '', nodeName, subresource: subresourceFor(path) };
}

/** The words of upstream's filter: `Forbidden (user=mallory, verb=get, resource=nodes, subresource=proxy)`. */
export function describeAttributes(a: KubeletRequestAttributes): string {
  return `(user=${a.user.name}, verb=${a.verb}, resource=nodes, subresource=${a.subresource})`;
}
