/**
 * v1 ComponentStatus (`kubectl get cs`): deprecated upstream since 1.19 but
 * still in many tutorials. kube-apiserver probes fixed local ports of the
 * scheduler, the controller manager and each etcd member; k8ts's control
 * components may run inside the server or as other processes, so it reads
 * what they publish through the API instead:
 *
 *  1. scheduler, controller-manager: Healthy when the leader-election Lease
 *     (kube-system/kube-scheduler, kube-system/kube-controller-manager) has
 *     a holder that renewed it within its leaseDurationSeconds; otherwise
 *     Unhealthy, with the reason in `error`.
 *  2. storage (k8ts's embedded SQLite, where upstream lists etcd-N):
 *     Healthy when the server is ready.
 *  3. Get and list only, each answer with upstream's deprecation warning;
 *     a Table has upstream's columns (Name, Status, Message, Error).
 */
import type { ServerResponse } from 'node:http';
import type { ComponentCondition, ComponentStatus } from 'kubernetes-types/core/v1.js';
import type { Lease } from 'kubernetes-types/coordination/v1.js';
import type { ResourceInfo } from '../api/resources.js';
import { methodNotAllowed, notFound } from '../api/status.js';
import type { Registry } from '../registry/registry.js';
import type { Rendering } from './negotiate.js';
import type { RequestInfo } from './request-info.js';
import { writeJSON } from './respond.js';
import { includeObjectParam, partialObjectMetadata } from './table.js';
import { warningHeaderValues } from './warnings.js';

export const componentStatusResource: ResourceInfo = {
  group: '', version: 'v1', kind: 'ComponentStatus', listKind: 'ComponentStatusList', plural: 'componentstatuses', singular: 'componentstatus',
  namespaced: false, shortNames: ['cs'], categories: [], verbs: ['get', 'list'], subresources: [],
};

export interface ComponentStatusRequest {
  res: ServerResponse;
  url: URL;
  info: RequestInfo;
  rendering: Rendering;
  registry: Registry;
  ready: () => boolean;
  now: Date;
}

const leases: [component: string, lease: string][] = [['scheduler', 'kube-scheduler'], ['controller-manager', 'kube-controller-manager']];

/** Rule 1: the condition a leader Lease shows, or undefined for a healthy one. */
export function leaseProblem(lease: Lease | undefined, now: Date): string | undefined {
  if (!lease?.spec?.holderIdentity) return 'no leader holds its lease';
  const renewed = Date.parse(String(lease.spec.renewTime ?? lease.spec.acquireTime ?? ''));
  const duration = (lease.spec.leaseDurationSeconds ?? 15) * 1000;
  if (!(renewed + duration >= now.getTime())) return `its leader ${lease.spec.holderIdentity} has not renewed its lease for ${lease.spec.leaseDurationSeconds ?? 15}s`;
  return undefined;
}

const condition = (problem: string | undefined): ComponentCondition => (problem === undefined
  ? { type: 'Healthy', status: 'True', message: 'ok' }
  : { type: 'Healthy', status: 'False', error: problem });

async function componentStatuses(r: ComponentStatusRequest): Promise<ComponentStatus[]> {
  const store = r.registry.store('coordination.k8s.io', 'v1', 'leases')!;
  const out: ComponentStatus[] = [];
  for (const [component, name] of leases) {
    const lease = await store.get('kube-system', name).catch(() => undefined) as Lease | undefined;
    out.push({ kind: 'ComponentStatus', apiVersion: 'v1', metadata: { name: component }, conditions: [condition(leaseProblem(lease, r.now))] });
  }
  out.push({ kind: 'ComponentStatus', apiVersion: 'v1', metadata: { name: 'storage' }, conditions: [condition(r.ready() ? undefined : 'storage not ready')] });
  return out;
}

const columns = ['Name', 'Status', 'Message', 'Error'].map((name) => ({ name, type: 'string', format: name === 'Name' ? 'name' : '', description: '', priority: 0 }));

function tableOf(items: ComponentStatus[], r: ComponentStatusRequest): unknown {
  const include = includeObjectParam(r.url.searchParams.get('includeObject'));
  const rows = items.map((cs) => {
    const c = cs.conditions![0];
    const row: Record<string, unknown> = { cells: [cs.metadata!.name, c.status === 'True' ? 'Healthy' : 'Unhealthy', c.message ?? '', c.error ?? ''] };
    if (include === 'Metadata') row.object = partialObjectMetadata(cs);
    else if (include === 'Object') row.object = cs;
    return row;
  });
  return { kind: 'Table', apiVersion: 'meta.k8s.io/v1', metadata: {}, columnDefinitions: columns, rows };
}

export async function handleComponentStatuses(r: ComponentStatusRequest): Promise<void> {
  const { info } = r;
  if (info.verb !== 'get' && info.verb !== 'list') throw methodNotAllowed();
  let items = await componentStatuses(r);
  if (info.verb === 'get') {
    items = items.filter((cs) => cs.metadata!.name === info.name);
    if (!items.length) throw notFound({ group: '', resource: 'componentstatuses' }, info.name!);
  }
  r.res.setHeader('Warning', warningHeaderValues(['v1 ComponentStatus is deprecated in v1.19+']));
  if (r.rendering === 'table') return writeJSON(r.res, 200, tableOf(items, r));
  writeJSON(r.res, 200, info.verb === 'get' ? items[0] : { kind: 'ComponentStatusList', apiVersion: 'v1', metadata: {}, items });
}
