/**
 * Objects every cluster has from the start: the system namespaces, and a
 * "default" ServiceAccount in every namespace (upstream's serviceaccounts
 * controller; kept in-process because nothing can run without it).
 */
import type { Registry } from './registry.js';
import type { Logger } from '../util/log.js';
import { systemPriorityClasses } from '../api/validation/priorityclass.js';
import { statusCode } from './status-code.js';

export const systemNamespaces = ['default', 'kube-system', 'kube-public', 'kube-node-lease'];

/** Who kube-apiserver's own writes are recorded for in managedFields (an Update, as upstream's post-start hooks show). */
export const apiServerFieldManager = { manager: 'kube-apiserver' } as const;

export async function ensureSystemNamespaces(registry: Registry): Promise<void> {
  // Concurrently, so that a fresh store commits them together (one fsync).
  await Promise.all(systemNamespaces.map((name) => createIfAbsent(() => registry.namespaces.create(undefined, { metadata: { name, labels: { 'kubernetes.io/metadata.name': name } } }, { fieldManager: apiServerFieldManager }))));
}

/** system-node-critical and system-cluster-critical, as kube-apiserver's scheduling post-start hook creates them. */
export async function ensureSystemPriorityClasses(registry: Registry): Promise<void> {
  const store = registry.store('scheduling.k8s.io', 'v1', 'priorityclasses')!;
  await Promise.all(systemPriorityClasses.map(({ name, value, description }) => createIfAbsent(() => store.create(undefined, { metadata: { name }, value, description, preemptionPolicy: 'PreemptLowerPriority' }, { fieldManager: apiServerFieldManager }))));
}

export async function ensureDefaultServiceAccount(registry: Registry, namespace: string): Promise<void> {
  const sa = registry.store('', 'v1', 'serviceaccounts')!;
  await createIfAbsent(() => sa.create(namespace, { metadata: { name: 'default' } }));
}

/** Runs a create; an object that already exists (or a namespace being deleted) is fine. */
export async function createIfAbsent(create: () => Promise<unknown>): Promise<void> {
  try {
    await create();
  } catch (e) {
    if (statusCode(e) !== 409 && statusCode(e) !== 403) throw e;
  }
}

/** Keeps the default ServiceAccount in every active namespace; returns a stop function. */
export async function runServiceAccountsLoop(registry: Registry, logger: Logger): Promise<() => void> {
  const w = await registry.namespaces.watch(undefined, {}, (ev) => {
    if ((ev.type === 'ADDED' || ev.type === 'MODIFIED') && !ev.object.metadata.deletionTimestamp) {
      ensureDefaultServiceAccount(registry, ev.object.metadata.name).catch((e) => logger.warn('default serviceaccount', { err: e }));
    }
  }, () => {});
  return () => w.close();
}

/**
 * The `kubernetes` Service in default (ClusterIP 10.96.0.1, port 443), as
 * kube-apiserver creates it; its endpoints are kubernetes-endpoints.ts'.
 */
export async function ensureKubernetesService(registry: Registry): Promise<void> {
  const svc = registry.store('', 'v1', 'services')!;
  await createIfAbsent(() => svc.create('default', {
    metadata: { name: 'kubernetes', labels: { component: 'apiserver', provider: 'kubernetes' } },
    spec: { type: 'ClusterIP', ports: [{ name: 'https', port: 443, protocol: 'TCP', targetPort: 6443 }], sessionAffinity: 'None' },
  }, { fieldManager: apiServerFieldManager }));
}
