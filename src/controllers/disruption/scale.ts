/**
 * The disruption controller's scale finders (upstream finders()): a pod's
 * controller is a ReplicaSet (whose own controlling Deployment's replicas
 * count when it has one), a Deployment, a StatefulSet, or a
 * ReplicationController read through its /scale subresource. The uid must
 * match the reference, so a recreated controller of the same name is not
 * mistaken for the old one.
 */
import type { Clientset, Informer } from '../../client/index.js';
import { isNotFound } from '../../client/index.js';
import { controllerRef } from '../../api/pods.js';
import type { ScaleOf } from './budget.js';

export interface ScaleSources {
  clients: Clientset;
  replicasets: Informer;
  deployments: Informer;
  statefulsets: Informer;
}

const key = (ns: string, name: string) => `${ns}/${name}`;

export function scaleFinder(src: ScaleSources): ScaleOf {
  const cached = (inf: Informer, ns: string, name: string, uid: string) => {
    const o = inf.get(key(ns, name));
    return o && o.metadata.uid === uid ? o : undefined;
  };
  return async (ref, ns) => {
    const group = ref.apiVersion.includes('/') ? ref.apiVersion.split('/')[0] : '';
    if (group === 'apps' && ref.kind === 'ReplicaSet') {
      const rs = cached(src.replicasets, ns, ref.name, ref.uid);
      if (!rs) return undefined;
      const owner = controllerRef(rs);
      const deploy = owner?.kind === 'Deployment' ? cached(src.deployments, ns, owner.name, owner.uid) : undefined;
      return deploy ? { uid: deploy.metadata.uid, scale: deploy.spec?.replicas ?? 1 } : { uid: rs.metadata.uid, scale: rs.spec?.replicas ?? 1 };
    }
    if (group === 'apps' && (ref.kind === 'Deployment' || ref.kind === 'StatefulSet')) {
      const o = cached(ref.kind === 'Deployment' ? src.deployments : src.statefulsets, ns, ref.name, ref.uid);
      return o ? { uid: o.metadata.uid, scale: o.spec?.replicas ?? 1 } : undefined;
    }
    if (group === '' && ref.kind === 'ReplicationController') {
      try {
        const scale = await src.clients.rest.request('GET', `/api/v1/namespaces/${ns}/replicationcontrollers/${ref.name}/scale`);
        return scale.metadata?.uid === ref.uid ? { uid: ref.uid, scale: scale.spec?.replicas ?? 0 } : undefined;
      } catch (e) {
        if (isNotFound(e)) return undefined;
        throw e;
      }
    }
    return undefined;
  };
}
