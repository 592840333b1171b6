/**
 * apps/v1: DaemonSet, StatefulSet, Deployment, ReplicaSet, ControllerRevision,
 * as upstream's printDaemonSet, printStatefulSet, printDeployment,
 * printReplicaSet and printControllerRevision.
 */
import type { ControllerRevision, DaemonSet, Deployment, ReplicaSet, StatefulSet } from 'kubernetes-types/apps/v1.js';
import { ageColumn, column, containersColumn, docColumn, imagesColumn, nameColumn } from './columns.js';
import { timestampSince } from './duration.js';
import { formatLabels, formatLabelSelector, labelSelectorString, layoutContainerCells } from './format.js';
import type { KindPrinter, PrintContext, TableRow } from './types.js';

const age = (obj: { metadata?: { creationTimestamp?: string } }, ctx: PrintContext) => timestampSince(obj.metadata?.creationTimestamp, ctx.now);

/** spec.replicas as the API serves it: defaulted to 1 when omitted. */
const desired = (spec: { replicas?: number } | undefined) => spec?.replicas ?? 1;

export const daemonSetPrinter: KindPrinter = {
  columns: [
    nameColumn(),
    docColumn('Desired', 'extensionsv1beta1.DaemonSetStatus.desiredNumberScheduled', { type: 'integer' }),
    docColumn('Current', 'extensionsv1beta1.DaemonSetStatus.currentNumberScheduled', { type: 'integer' }),
    docColumn('Ready', 'extensionsv1beta1.DaemonSetStatus.numberReady', { type: 'integer' }),
    docColumn('Up-to-date', 'extensionsv1beta1.DaemonSetStatus.updatedNumberScheduled', { type: 'integer' }),
    docColumn('Available', 'extensionsv1beta1.DaemonSetStatus.numberAvailable', { type: 'integer' }),
    docColumn('Node Selector', 'corev1.PodSpec.nodeSelector'),
    ageColumn(),
    containersColumn(),
    imagesColumn(),
    docColumn('Selector', 'extensionsv1beta1.DaemonSetSpec.selector', { priority: 1 }),
  ],
  row(ds: DaemonSet, ctx): TableRow {
    const s = ds.status;
    const podSpec = ds.spec?.template?.spec;
    const [names, images] = layoutContainerCells(podSpec?.containers);
    return {
      cells: [
        ds.metadata?.name ?? '', s?.desiredNumberScheduled ?? 0, s?.currentNumberScheduled ?? 0, s?.numberReady ?? 0,
        s?.updatedNumberScheduled ?? 0, s?.numberAvailable ?? 0, formatLabels(podSpec?.nodeSelector), age(ds, ctx),
        names, images, formatLabelSelector(ds.spec?.selector),
      ],
    };
  },
};

export const statefulSetPrinter: KindPrinter = {
  columns: [
    nameColumn(),
    column('Ready', 'Number of the pod with ready state'),
    ageColumn(),
    containersColumn(),
    imagesColumn(),
  ],
  row(sts: StatefulSet, ctx): TableRow {
    const [names, images] = layoutContainerCells(sts.spec?.template?.spec?.containers);
    return { cells: [sts.metadata?.name ?? '', `${sts.status?.readyReplicas ?? 0}/${desired(sts.spec)}`, age(sts, ctx), names, images] };
  },
};

export const deploymentPrinter: KindPrinter = {
  columns: [
    nameColumn(),
    column('Ready', 'Number of the pod with ready state'),
    docColumn('Up-to-date', 'extensionsv1beta1.DeploymentStatus.updatedReplicas'),
    docColumn('Available', 'extensionsv1beta1.DeploymentStatus.availableReplicas'),
    ageColumn(),
    containersColumn(),
    imagesColumn(),
    docColumn('Selector', 'extensionsv1beta1.DeploymentSpec.selector', { priority: 1 }),
  ],
  row(d: Deployment, ctx): TableRow {
    const s = d.status;
    const [names, images] = layoutContainerCells(d.spec?.template?.spec?.containers);
    // printDeployment prints the bare selector: "" when empty, "<invalid>" when it does not parse.
    const selector = labelSelectorString(d.spec?.selector) ?? '<invalid>';
    return {
      cells: [
        d.metadata?.name ?? '', `${s?.readyReplicas ?? 0}/${desired(d.spec)}`, s?.updatedReplicas ?? 0, s?.availableReplicas ?? 0,
        age(d, ctx), names, images, selector,
      ],
    };
  },
};

export const replicaSetPrinter: KindPrinter = {
  columns: [
    nameColumn(),
    docColumn('Desired', 'extensionsv1beta1.ReplicaSetSpec.replicas', { type: 'integer' }),
    docColumn('Current', 'extensionsv1beta1.ReplicaSetStatus.replicas', { type: 'integer' }),
    docColumn('Ready', 'extensionsv1beta1.ReplicaSetStatus.readyReplicas', { type: 'integer' }),
    ageColumn(),
    containersColumn(),
    imagesColumn(),
    docColumn('Selector', 'extensionsv1beta1.ReplicaSetSpec.selector', { priority: 1 }),
  ],
  row(rs: ReplicaSet, ctx): TableRow {
    const [names, images] = layoutContainerCells(rs.spec?.template?.spec?.containers);
    return {
      cells: [
        rs.metadata?.name ?? '', desired(rs.spec), rs.status?.replicas ?? 0, rs.status?.readyReplicas ?? 0, age(rs, ctx),
        names, images, formatLabelSelector(rs.spec?.selector),
      ],
    };
  },
};

/**
 * CONTROLLER: the controlling owner as `kind.group/name`, lower-cased kind and
 * group (`daemonset.apps/fluentd`; a core kind has no group), or "<none>".
 */
export function controllerName(obj: { metadata?: { ownerReferences?: { apiVersion: string; kind: string; name: string; controller?: boolean }[] } }): string {
  const ref = (obj.metadata?.ownerReferences ?? []).find((r) => r.controller === true);
  if (!ref) return '<none>';
  const slash = ref.apiVersion.indexOf('/');
  const group = slash < 0 ? '' : ref.apiVersion.slice(0, slash);
  if (group === '' && ref.kind === '') return ref.name;
  const groupKind = group === '' ? ref.kind : `${ref.kind}.${group}`;
  return `${groupKind.toLowerCase()}/${ref.name}`;
}

export const controllerRevisionPrinter: KindPrinter = {
  columns: [
    nameColumn(),
    column('Controller', 'Controller of the object'),
    docColumn('Revision', 'appsv1beta1.ControllerRevision.revision'),
    ageColumn(),
  ],
  row(cr: ControllerRevision, ctx): TableRow {
    return { cells: [cr.metadata?.name ?? '', controllerName(cr), cr.revision ?? 0, age(cr, ctx)] };
  },
};
