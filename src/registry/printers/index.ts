/**
 * Server-side printing: the meta.k8s.io/v1 Table that kube-apiserver 1.32
 * returns for `kubectl get`, with upstream's columns (names, types,
 * descriptions, priorities) and cell values.
 *
 * Like upstream's TableConvertor the server prints with Wide: true, so every
 * column comes back and kubectl hides the priority-1 ones unless `-o wide`.
 * The apiserver adds `kind`, `apiVersion`, `metadata` and each row's `object`.
 */
import { apiVersionOf } from '../../api/resources.js';
import { controllerRevisionPrinter, daemonSetPrinter, deploymentPrinter, replicaSetPrinter, statefulSetPrinter } from './apps.js';
import { cronJobPrinter, jobPrinter } from './batch.js';
import { csrPrinter } from './certificates.js';
import { leasePrinter } from './coordination.js';
import { configMapPrinter, namespacePrinter, secretPrinter, serviceAccountPrinter } from './core.js';
import { defaultPrinter } from './default.js';
import { eventPrinter, eventsV1EventPrinter } from './events.js';
import { nodePrinter } from './nodes.js';
import { podPrinter } from './pods.js';
import { endpointSlicePrinter, podDisruptionBudgetPrinter, priorityClassPrinter } from './disruption.js';
import { replicationControllerPrinter } from './replicationcontrollers.js';
import { endpointsPrinter, servicePrinter } from './services.js';
import { persistentVolumeClaimPrinter, persistentVolumePrinter, storageClassPrinter } from './storage.js';
import { ingressClassPrinter, ingressPrinter, networkPolicyPrinter } from './networking.js';
import { clusterRoleBindingPrinter, roleBindingPrinter } from './rbac.js';
import { horizontalPodAutoscalerPrinter, horizontalPodAutoscalerV1Printer } from './autoscaling.js';
import { scalePrinter } from './scale.js';
import { podTemplatePrinter, resourceQuotaPrinter, runtimeClassPrinter } from './quota-templates.js';
import { apiServicePrinter } from './apiregistration.js';
import { webhookConfigurationPrinter } from './admissionregistration.js';
import { csiDriverPrinter, csiNodePrinter, csiStorageCapacityPrinter, volumeAttachmentPrinter } from './csi.js';
import { flowSchemaPrinter, priorityLevelConfigurationPrinter } from './flowcontrol.js';
import type { ColumnDefinition, KindPrinter, TableRow } from './types.js';

export type { ColumnDefinition, KindPrinter, PrintContext, TableRow, TableRowCondition } from './types.js';
export { humanDuration } from './duration.js';

const key = (group: string, version: string, kind: string) => `${apiVersionOf({ group, version })}/${kind}`;

/** Printers by kindKey (`apps/v1/DaemonSet`, `v1/Pod`). */
const printers = new Map<string, KindPrinter>([
  [key('', 'v1', 'Pod'), podPrinter],
  [key('', 'v1', 'Node'), nodePrinter],
  [key('', 'v1', 'Service'), servicePrinter],
  [key('', 'v1', 'Endpoints'), endpointsPrinter],
  [key('', 'v1', 'Event'), eventPrinter],
  [key('', 'v1', 'ConfigMap'), configMapPrinter],
  [key('', 'v1', 'Secret'), secretPrinter],
  [key('', 'v1', 'ServiceAccount'), serviceAccountPrinter],
  [key('', 'v1', 'Namespace'), namespacePrinter],
  [key('', 'v1', 'PersistentVolume'), persistentVolumePrinter],
  [key('', 'v1', 'PersistentVolumeClaim'), persistentVolumeClaimPrinter],
  [key('', 'v1', 'ReplicationController'), replicationControllerPrinter],
  [key('apps', 'v1', 'DaemonSet'), daemonSetPrinter],
  [key('apps', 'v1', 'StatefulSet'), statefulSetPrinter],
  [key('apps', 'v1', 'Deployment'), deploymentPrinter],
  [key('apps', 'v1', 'ReplicaSet'), replicaSetPrinter],
  [key('apps', 'v1', 'ControllerRevision'), controllerRevisionPrinter],
  [key('batch', 'v1', 'Job'), jobPrinter],
  [key('batch', 'v1', 'CronJob'), cronJobPrinter],
  [key('events.k8s.io', 'v1', 'Event'), eventsV1EventPrinter],
  [key('coordination.k8s.io', 'v1', 'Lease'), leasePrinter],
  [key('certificates.k8s.io', 'v1', 'CertificateSigningRequest'), csrPrinter],
  [key('storage.k8s.io', 'v1', 'StorageClass'), storageClassPrinter],
  [key('storage.k8s.io', 'v1', 'CSIDriver'), csiDriverPrinter],
  [key('storage.k8s.io', 'v1', 'CSINode'), csiNodePrinter],
  [key('storage.k8s.io', 'v1', 'VolumeAttachment'), volumeAttachmentPrinter],
  [key('storage.k8s.io', 'v1', 'CSIStorageCapacity'), csiStorageCapacityPrinter],
  [key('flowcontrol.apiserver.k8s.io', 'v1', 'FlowSchema'), flowSchemaPrinter],
  [key('flowcontrol.apiserver.k8s.io', 'v1', 'PriorityLevelConfiguration'), priorityLevelConfigurationPrinter],
  [key('apiregistration.k8s.io', 'v1', 'APIService'), apiServicePrinter],
  [key('', 'v1', 'PodTemplate'), podTemplatePrinter],
  [key('', 'v1', 'ResourceQuota'), resourceQuotaPrinter],
  [key('networking.k8s.io', 'v1', 'Ingress'), ingressPrinter],
  [key('networking.k8s.io', 'v1', 'IngressClass'), ingressClassPrinter],
  [key('networking.k8s.io', 'v1', 'NetworkPolicy'), networkPolicyPrinter],
  [key('node.k8s.io', 'v1', 'RuntimeClass'), runtimeClassPrinter],
  [key('autoscaling', 'v2', 'HorizontalPodAutoscaler'), horizontalPodAutoscalerPrinter],
  [key('autoscaling', 'v1', 'HorizontalPodAutoscaler'), horizontalPodAutoscalerV1Printer],
  [key('autoscaling', 'v1', 'Scale'), scalePrinter],
  [key('rbac.authorization.k8s.io', 'v1', 'RoleBinding'), roleBindingPrinter],
  [key('rbac.authorization.k8s.io', 'v1', 'ClusterRoleBinding'), clusterRoleBindingPrinter],
  [key('policy', 'v1', 'PodDisruptionBudget'), podDisruptionBudgetPrinter],
  [key('scheduling.k8s.io', 'v1', 'PriorityClass'), priorityClassPrinter],
  [key('discovery.k8s.io', 'v1', 'EndpointSlice'), endpointSlicePrinter],
  [key('admissionregistration.k8s.io', 'v1', 'MutatingWebhookConfiguration'), webhookConfigurationPrinter],
  [key('admissionregistration.k8s.io', 'v1', 'ValidatingWebhookConfiguration'), webhookConfigurationPrinter],
]);

/** The printer for a kindKey; the default NAME / CREATED AT table for kinds without one. */
export function printerFor(kindKey: string): KindPrinter {
  return printers.get(kindKey) ?? defaultPrinter;
}

/** Whether a kind has its own printer (rather than the default table). */
export const hasPrinter = (kindKey: string): boolean => printers.has(kindKey);

export interface PrintOptions {
  /** The clock AGE and LAST SEEN are measured against. */
  now: Date;
  /**
   * Defaults to true, as kube-apiserver always prints. `false` drops the
   * priority-1 columns and their cells, as upstream's GenerateOptions{Wide: false}.
   */
  wide?: boolean;
}

/** Builds the columns and one row per object (the same for a get of one object: pass `[obj]`). */
export function printTable(kindKey: string, objects: readonly object[], opts: PrintOptions): { columnDefinitions: ColumnDefinition[]; rows: TableRow[] } {
  return printTableWith(printerFor(kindKey), objects, opts);
}

/** printTable with a given printer (custom resources bring theirs from the CRD). */
export function printTableWith(printer: KindPrinter, objects: readonly object[], opts: PrintOptions): { columnDefinitions: ColumnDefinition[]; rows: TableRow[] } {
  const ctx = { now: opts.now };
  const rows = objects.map((o) => printer.row(o, ctx));
  const columns = printer.columns.map((c) => ({ ...c }));
  if (opts.wide !== false) return { columnDefinitions: columns, rows };
  const keep = columns.map((c) => c.priority === 0);
  return {
    columnDefinitions: columns.filter((_, i) => keep[i]),
    rows: rows.map((r) => ({ ...r, cells: r.cells.filter((_, i) => keep[i]) })),
  };
}
