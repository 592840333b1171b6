/**
 * Objects every cluster has from the start: the system namespaces, and a
 * "default" ServiceAccount in every namespace (upstream's serviceaccounts
 * controller; kept in-process because nothing can run without it).
 */
import type { Registry } from './registry.js';
import type { Logger } from '../util/log.js';

export const systemNamespaces = ['default', 'kube-system', 'kube-public', 'kube-node-lease'];

export async function ensureSystemNamespaces(registry: Registry): Promise<void> {
  for (const name of systemNamespaces) {
    await createIfAbsent(() => registry.namespaces.create(undefined, { metadata: { name, labels: { 'kubernetes.io/metadata.name': name } } }));
  }
}

export async function ensureDefaultServiceAccount(registry: Registry, namespace: string): Promise<void> {
  const sa = registry.store('', 'v1', 'serviceaccounts')!;
  await createIfAbsent(() => sa.create(namespace, { metadata: { name: 'default' } }));
}

async function createIfAbsent(create: () => Promise<unknown>): Promise<void> {
  try {
    await create();
  } catch (e: any) {
    if (e?.code !== 409 && e?.code !== 403) throw e;
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
