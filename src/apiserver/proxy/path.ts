/**
 * The path below a namespaced proxy subresource:
 * `/api/v1/namespaces/NS/pods/NAME/proxy/a/b?q` → prefix
 * `/api/v1/namespaces/NS/pods/NAME/proxy`, path `/a/b`. The path stays
 * %-encoded, as the caller sent it; '' when the URL stops at `proxy`, '/'
 * when it ends `proxy/` (upstream redirects the first to the second).
 */
export interface ProxyPath { prefix: string; path: string }

export function splitProxyPath(pathname: string, apiPrefix: 'api' | 'apis'): ProxyPath | undefined {
  const segs = pathname.split('/');
  // '', api, v1, namespaces, NS, RESOURCE, NAME, proxy (apis: one more for the group).
  const at = apiPrefix === 'api' ? 7 : 8;
  if (segs[at] !== 'proxy' || segs[apiPrefix === 'api' ? 3 : 4] !== 'namespaces') return undefined;
  const rest = segs.slice(at + 1);
  return { prefix: segs.slice(0, at + 1).join('/'), path: rest.length ? `/${rest.join('/')}` : '' };
}
