/**
 * What the logged-in user may see and do, asked of the API itself
 * (SelfSubjectAccessReview, as `kubectl auth can-i`): the page lists pods in
 * every namespace only when RBAC allows it, nodes only when it may list them,
 * and offers node actions only when it may patch nodes.
 */
import { useEffect, useState } from 'preact/hooks';
import { canI, session } from './api.js';

export interface Scope {
  podsPath: string; namespace?: string; listNodes: boolean; patchNodes: boolean;
  /** kubectl drain's rights: patch the node, list its pods, create pods/eviction anywhere. */
  drainNodes: boolean; deleteNodes: boolean;
}

/** A ServiceAccount token's namespace (its `kubernetes.io.namespace` claim), read without verifying: only a default. */
function tokenNamespace(token: string | null): string | undefined {
  try {
    const payload = JSON.parse(atob((token ?? '').split('.')[1].replace(/-/g, '+').replace(/_/g, '/')));
    return payload?.['kubernetes.io']?.namespace;
  } catch { return undefined; }
}

export function useScope(asked: string): Scope | undefined {
  const [scope, setScope] = useState<Scope>();
  useEffect(() => {
    (async () => {
      const [allPods, listNodes, patchNodes, evict, deleteNodes] = await Promise.all([canI('list', 'pods'), canI('list', 'nodes'), canI('patch', 'nodes'),
        canI('create', 'pods', undefined, { subresource: 'eviction' }), canI('delete', 'nodes')]);
      const namespace = asked || (allPods ? undefined : tokenNamespace(session.token) ?? session.proxy?.namespace ?? 'default');
      setScope({ podsPath: namespace ? `/api/v1/namespaces/${encodeURIComponent(namespace)}/pods` : '/api/v1/pods', namespace, listNodes, patchNodes,
        drainNodes: patchNodes && allPods && evict, deleteNodes });
    })();
  }, [asked]);
  return scope;
}
