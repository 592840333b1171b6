/**
 * helper.DefaultSelector: the labels that stand for "the pods of the same
 * workload" when a pod names no topology spread constraints: the selectors
 * of the Services in its namespace selecting it, merged, plus the selector
 * of its controller when that is a ReplicationController, ReplicaSet or
 * StatefulSet. PodTopologySpread's system defaults spread over it.
 * Services are kept by namespace from the informer's events, so a pod costs
 * its namespace's Services, not the cluster's.
 */
import type { Pod, Service } from 'kubernetes-types/core/v1.js';
import type { Informer } from '../client/index.js';
import { everything, matchesSelector, selectorFromLabelSelector, selectorFromSet, type Selector } from '../api/labels.js';
import { controllerRef } from '../api/pods.js';

export interface WorkloadInformers {
  services: Informer;
  replicationcontrollers: Informer;
  replicasets: Informer;
  statefulsets: Informer;
}

export class DefaultSelectorSource {
  private readonly services = new Map<string, Map<string, Service>>();

  constructor(private readonly informers: WorkloadInformers) {
    const put = (s: Service) => {
      const ns = s.metadata?.namespace ?? 'default';
      let m = this.services.get(ns);
      if (!m) this.services.set(ns, (m = new Map()));
      m.set(s.metadata!.name!, s);
    };
    const drop = (s: Service) => {
      const m = this.services.get(s.metadata?.namespace ?? 'default');
      m?.delete(s.metadata!.name!);
      if (m?.size === 0) this.services.delete(s.metadata?.namespace ?? 'default');
    };
    informers.services.addEventHandler({ add: put, update: (_o: Service, n: Service) => put(n), delete: drop });
  }

  readonly selectorFor = (pod: Pod): Selector => {
    const ns = pod.metadata?.namespace ?? 'default';
    const labels = pod.metadata?.labels ?? {};
    let set: Record<string, string> = {};
    for (const svc of this.services.get(ns)?.values() ?? []) {
      const sel = svc.spec?.selector;
      if (!sel || Object.keys(sel).length === 0) continue;
      if (matchesSelector(selectorFromSet(sel), labels)) set = { ...set, ...sel };
    }
    let selector = Object.keys(set).length ? selectorFromSet(set) : everything;
    const owner = controllerRef(pod);
    if (!owner) return selector;
    const group = String(owner.apiVersion ?? '').split('/');
    const key = `${ns}/${owner.name}`;
    if (owner.kind === 'ReplicationController' && group.length === 1) {
      const rc = this.informers.replicationcontrollers.get(key);
      if (rc?.spec?.selector) selector = selectorFromSet({ ...set, ...rc.spec.selector });
    } else if ((owner.kind === 'ReplicaSet' || owner.kind === 'StatefulSet') && group[0] === 'apps') {
      const obj = (owner.kind === 'ReplicaSet' ? this.informers.replicasets : this.informers.statefulsets).get(key);
      if (obj?.spec?.selector) {
        try {
          const other = selectorFromLabelSelector(obj.spec.selector);
          if (!other.nothing) selector = { requirements: [...selector.requirements, ...other.requirements] };
        } catch {
          // An unparsable selector adds nothing, as upstream ignores the error.
        }
      }
    }
    return selector;
  };
}
