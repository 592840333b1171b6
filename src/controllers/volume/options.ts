/** Configuration of the persistent-volume controller and its local-path provisioner. */
import { hostname } from 'node:os';
import { defaultLocalPathBase, defaultStorageClassName, localPathProvisionerName } from './provisioner.js';

export interface PersistentVolumeControllerOptions {
  /** The provisioner name we serve (StorageClass.provisioner). */
  provisionerName: string;
  /** Where volume directories live on each node: `<basePath>/<pv>_<namespace>_<claim>`. */
  basePath: string;
  /**
   * Which nodes' directories this process makes and removes with fs calls:
   * 'local' only for the node named like this host, 'all' for every node
   * (one host standing for all nodes: tests, simulated clusters), 'none'.
   */
  createDirectories: 'local' | 'all' | 'none';
  /** The node name of this host (os.hostname()). */
  localNodeName: string;
  /** Create the default StorageClass when absent. */
  ensureDefaultStorageClass: boolean;
  defaultStorageClassName: string;
  /** Re-sync every claim and volume this often (upstream 15 s); 0 disables. */
  resyncPeriodMs: number;
}

/**
 * Defaults: base /var/lib/k8ts/storage with directories only for the local
 * node; an explicitly configured basePath makes directories for every node.
 */
export function resolveOptions(o: Partial<PersistentVolumeControllerOptions> = {}): PersistentVolumeControllerOptions {
  return {
    provisionerName: o.provisionerName ?? localPathProvisionerName,
    basePath: o.basePath ?? defaultLocalPathBase,
    createDirectories: o.createDirectories ?? (o.basePath ? 'all' : 'local'),
    localNodeName: o.localNodeName ?? hostname(),
    ensureDefaultStorageClass: o.ensureDefaultStorageClass ?? true,
    defaultStorageClassName: o.defaultStorageClassName ?? defaultStorageClassName,
    resyncPeriodMs: o.resyncPeriodMs ?? 15_000,
  };
}
