/**
 * apps/v1 defaulting (pkg/apis/apps/v1/defaults.go): replicas, strategies,
 * history limits, StatefulSet policies and claim templates, and the pod-spec
 * defaults of every template.
 */
import { defaultPVCSpec, defaultPodTemplate } from './pod.js';
import { Obj, ensure, isObj, objects, setDefault } from './util.js';

export function defaultDaemonSet(ds: Obj): void {
  const spec = ensure(ds, 'spec');
  const strategy = ensure(spec, 'updateStrategy');
  setDefault(strategy, 'type', 'RollingUpdate');
  if (strategy.type === 'RollingUpdate') {
    const ru = ensure(strategy, 'rollingUpdate');
    setDefault(ru, 'maxUnavailable', 1);
    setDefault(ru, 'maxSurge', 0);
  }
  setDefault(spec, 'revisionHistoryLimit', 10);
  defaultPodTemplate(spec.template);
}

/** Claim templates read back as full PVCs: apiVersion, kind, status.phase Pending, volumeMode Filesystem. */
function defaultClaimTemplate(pvc: Obj): void {
  setDefault(pvc, 'apiVersion', 'v1');
  setDefault(pvc, 'kind', 'PersistentVolumeClaim');
  defaultPVCSpec(ensure(pvc, 'spec'));
  setDefault(ensure(pvc, 'status'), 'phase', 'Pending');
}

export function defaultStatefulSet(sts: Obj): void {
  const spec = ensure(sts, 'spec');
  setDefault(spec, 'podManagementPolicy', 'OrderedReady');
  const strategy = ensure(spec, 'updateStrategy');
  if (!strategy.type) {
    strategy.type = 'RollingUpdate';
    if (!isObj(strategy.rollingUpdate)) strategy.rollingUpdate = {};
  }
  if (strategy.type === 'RollingUpdate' && isObj(strategy.rollingUpdate)) setDefault(strategy.rollingUpdate, 'partition', 0);
  const retention = ensure(spec, 'persistentVolumeClaimRetentionPolicy');
  setDefault(retention, 'whenDeleted', 'Retain');
  setDefault(retention, 'whenScaled', 'Retain');
  setDefault(spec, 'replicas', 1);
  setDefault(spec, 'revisionHistoryLimit', 10);
  defaultPodTemplate(spec.template);
  for (const pvc of objects(spec.volumeClaimTemplates)) defaultClaimTemplate(pvc);
}

export function defaultDeployment(d: Obj): void {
  const spec = ensure(d, 'spec');
  setDefault(spec, 'replicas', 1);
  const strategy = ensure(spec, 'strategy');
  setDefault(strategy, 'type', 'RollingUpdate');
  if (strategy.type === 'RollingUpdate') {
    const ru = ensure(strategy, 'rollingUpdate');
    setDefault(ru, 'maxUnavailable', '25%');
    setDefault(ru, 'maxSurge', '25%');
  }
  setDefault(spec, 'revisionHistoryLimit', 10);
  setDefault(spec, 'progressDeadlineSeconds', 600);
  defaultPodTemplate(spec.template);
}

export function defaultReplicaSet(rs: Obj): void {
  const spec = ensure(rs, 'spec');
  setDefault(spec, 'replicas', 1);
  defaultPodTemplate(spec.template);
}

/** SetDefaults_ReplicationController: selector and labels from the template's labels when empty; replicas 1. */
export function defaultReplicationController(rc: Obj): void {
  const spec = ensure(rc, 'spec');
  const labels = isObj(spec.template) && isObj(spec.template.metadata) && isObj(spec.template.metadata.labels) ? spec.template.metadata.labels : undefined;
  if (labels) {
    if (!isObj(spec.selector) || Object.keys(spec.selector).length === 0) spec.selector = { ...labels };
    const meta = ensure(rc, 'metadata');
    if (!isObj(meta.labels) || Object.keys(meta.labels).length === 0) meta.labels = { ...labels };
  }
  setDefault(spec, 'replicas', 1);
  if (isObj(spec.template)) defaultPodTemplate(spec.template);
}
