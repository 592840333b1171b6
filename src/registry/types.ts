/** Request-level types shared by the registry and the apiserver. */
import type { ObjectMeta } from 'kubernetes-types/meta/v1.js';

/**
 * An object as the store hands it out: kubernetes-types makes every field optional (they are
 * request bodies too), but a stored object always has its name and resourceVersion.
 */
export type Stored<T extends { metadata?: ObjectMeta }> = T & { metadata: ObjectMeta & { name: string; resourceVersion: string } };

export interface DeleteOptions {
  gracePeriodSeconds?: number;
  propagationPolicy?: 'Orphan' | 'Background' | 'Foreground';
  preconditions?: { uid?: string; resourceVersion?: string };
  dryRun?: string[];
  orphanDependents?: boolean;
}

export interface ListOptions {
  labelSelector?: string;
  fieldSelector?: string;
  limit?: number;
  continue?: string;
  resourceVersion?: string;
  resourceVersionMatch?: string;
}

export interface WatchOptions {
  labelSelector?: string;
  fieldSelector?: string;
  resourceVersion?: string;
  allowWatchBookmarks?: boolean;
  /** Send synthetic ADDED events for the current state first (rv "" or "0"). */
  sendInitialEvents?: boolean;
}

export interface WatchEventOut {
  type: 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK' | 'ERROR';
  object: any;
}

export interface WriteOptions {
  dryRun?: boolean;
}
