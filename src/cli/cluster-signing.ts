/** kube-controller-manager's CSR signing flags, shared by `k8ts server` and `k8ts controller-manager`. */
import type { ControllerConfig } from '../controllers/types.js';
import { parseDuration } from './duration.js';

export const clusterSigningFlagOptions = {
  'cluster-signing-cert-file': { type: 'string' }, 'cluster-signing-key-file': { type: 'string' }, 'cluster-signing-duration': { type: 'string' },
} as const;

export function clusterSigningConfig(values: Record<string, string | boolean | undefined>): Partial<ControllerConfig> {
  const c: Partial<ControllerConfig> = {};
  if (typeof values['cluster-signing-cert-file'] === 'string') c.clusterSigningCertFile = values['cluster-signing-cert-file'];
  if (typeof values['cluster-signing-key-file'] === 'string') c.clusterSigningKeyFile = values['cluster-signing-key-file'];
  const d = values['cluster-signing-duration'];
  if (typeof d === 'string') c.clusterSigningDurationMs = parseDuration(d);
  return c;
}
