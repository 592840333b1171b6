/**
 * Admission: mutations upstream's default admission plugins make on create.
 * - DefaultTolerationSeconds: not-ready/unreachable NoExecute tolerations of 300 s, on
 *   create and update (an apply that replaces the atomic tolerations list gets them back).
 * - ServiceAccount: spec.serviceAccountName defaults to "default"; mirror pods are not
 *   mutated and may not reference service accounts or secrets (mirror-pods.ts).
 * Priority (spec.priority from PriorityClasses) is priority.ts, which reads the registry.
 */
import type { ResourceInfo } from '../../api/resources.js';
import { isMirrorPod, validateMirrorPodReferences } from './mirror-pods.js';

const notReadyTaint = 'node.kubernetes.io/not-ready';
const unreachableTaint = 'node.kubernetes.io/unreachable';

export interface AdmissionConfig {
  /** --default-not-ready-toleration-seconds (upstream 300). */
  notReadyTolerationSeconds: number;
  /** --default-unreachable-toleration-seconds (upstream 300). */
  unreachableTolerationSeconds: number;
  /** The enabled admission plugins (plugins.ts); undefined: all of these steps run. */
  plugins?: ReadonlySet<string>;
}

export const defaultAdmissionConfig: AdmissionConfig = { notReadyTolerationSeconds: 300, unreachableTolerationSeconds: 300 };

export function admit(op: 'create' | 'update', info: ResourceInfo, obj: any, config: AdmissionConfig = defaultAdmissionConfig): void {
  if (info.group !== '' || info.plural !== 'pods') return;
  const spec = obj.spec ?? (obj.spec = {});
  if (enabled(config, 'DefaultTolerationSeconds')) addDefaultTolerations(spec, config);
  if (op !== 'create' || !enabled(config, 'ServiceAccount')) return;
  if (isMirrorPod(obj)) validateMirrorPodReferences(obj);
  else {
    if (!spec.serviceAccountName) spec.serviceAccountName = spec.serviceAccount || 'default';
    spec.serviceAccount = spec.serviceAccountName;
  }
}

const enabled = (config: AdmissionConfig, plugin: string) => !config.plugins || config.plugins.has(plugin);

/** Adds each toleration unless one already tolerates the taint's NoExecute effect (upstream's check). */
function addDefaultTolerations(spec: any, config: AdmissionConfig): void {
  const tolerations: any[] = spec.tolerations ?? [];
  // Checked before either is added, as upstream's plugin checks the pod's own tolerations.
  const notReady = !toleratesNoExecute(tolerations, notReadyTaint);
  const unreachable = !toleratesNoExecute(tolerations, unreachableTaint);
  if (notReady) tolerations.push({ key: notReadyTaint, operator: 'Exists', effect: 'NoExecute', tolerationSeconds: config.notReadyTolerationSeconds });
  if (unreachable) tolerations.push({ key: unreachableTaint, operator: 'Exists', effect: 'NoExecute', tolerationSeconds: config.unreachableTolerationSeconds });
  spec.tolerations = tolerations;
}

function toleratesNoExecute(tolerations: any[], key: string): boolean {
  for (const t of tolerations) {
    if ((t.effect === 'NoExecute' || !t.effect) && (t.key === key || (!t.key && t.operator === 'Exists'))) return true;
  }
  return false;
}
