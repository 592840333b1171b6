/** Request-level types shared by the registry and the apiserver. */

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
