/**
 * The two kinds one controller drives (upstream's ReplicationManager wraps the
 * ReplicaSet controller the same way, with conversions): apps/v1 ReplicaSet
 * and core/v1 ReplicationController. They differ in their resource, their
 * selector (a LabelSelector vs a plain label map) and their event source.
 */
import type { ReplicaSet } from 'kubernetes-types/apps/v1.js';
import type { ReplicationController } from 'kubernetes-types/core/v1.js';
import type { ResourceName } from '../../client/index.js';
import { selectorFromLabelSelector, selectorFromSet } from '../../api/labels.js';
import type { Selector } from '../../api/labels.js';
import type { OwnerKind } from '../controller-ref.js';

/** An object either kind drives: a ReplicaSet or a ReplicationController. */
export type ReplicaOwner = ReplicaSet | ReplicationController;

export interface ReplicaKind {
  /** The name kube-controller-manager's --controllers takes. */
  controllerName: string;
  resource: ResourceName;
  owner: OwnerKind;
  /** The event source component. */
  component: string;
  /** The parsed selector, or undefined when it does not parse. */
  selector(obj: ReplicaOwner): Selector | undefined;
}

export const replicaSetKind: ReplicaKind = {
  controllerName: 'replicaset',
  resource: 'replicasets',
  owner: { apiVersion: 'apps/v1', kind: 'ReplicaSet' },
  component: 'replicaset-controller',
  selector(rs) {
    try {
      return selectorFromLabelSelector((rs as ReplicaSet).spec?.selector);
    } catch {
      return undefined;
    }
  },
};

export const replicationControllerKind: ReplicaKind = {
  controllerName: 'replicationcontroller',
  resource: 'replicationcontrollers',
  owner: { apiVersion: 'v1', kind: 'ReplicationController' },
  component: 'replication-controller',
  selector: (rc) => selectorFromSet((rc as ReplicationController).spec?.selector ?? {}),
};
