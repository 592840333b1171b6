/**
 * kube-apiserver's priority-and-fairness-config-producer: the mandatory and
 * suggested FlowSchemas and PriorityLevelConfigurations are ensured before
 * the server is ready, then again every minute, so a deleted one comes back,
 * a suggested one whose spec an operator changed without setting
 * `apf.kubernetes.io/autoupdate-spec: "false"` is put back, and one an
 * upgrade dropped is deleted (api/flowcontrol/ensure.ts decides). The stored
 * objects are read from the watch cache (resourceVersion "0"): a restart on
 * an up-to-date store costs no storage read and no write; a fresh store's
 * creates are made concurrently, so they share group commits with the other
 * bootstrap objects.
 */
import type { FlowSchema, PriorityLevelConfiguration } from 'kubernetes-types/flowcontrol/v1.js';
import {
  mandatoryFlowSchemas, mandatoryPriorityLevels, suggestedFlowSchemas, suggestedPriorityLevels,
} from '../api/flowcontrol/bootstrap.js';
import { isUnwanted, reviseIfNeeded, type ConfigurationObject } from '../api/flowcontrol/ensure.js';
import type { Logger } from '../util/log.js';
import type { Registry } from './registry.js';
import type { Store } from './store.js';
import { statusCode } from './status-code.js';

const group = 'flowcontrol.apiserver.k8s.io';
const fieldManager = { manager: 'api-priority-and-fairness-config-producer-v1' };
/** Upstream's wait.PollImmediateUntil(time.Minute, ...) after the first success. */
export const flowControlEnsureIntervalMs = 60_000;

interface Kind<T extends ConfigurationObject> {
  store: Store;
  mandatory: T[];
  suggested: T[];
}

async function ensureKind<T extends ConfigurationObject>({ store, mandatory, suggested }: Kind<T>): Promise<void> {
  const stored = new Map<string, T>();
  for (const o of (await store.list(undefined, { resourceVersion: '0' })).items as T[]) stored.set(o.metadata!.name!, o);
  const writes: Promise<unknown>[] = [];
  const ensure = (boot: T, isMandatory: boolean) => {
    const name = boot.metadata!.name!;
    const current = stored.get(name);
    if (!current) {
      writes.push(ignore(store.create(undefined, structuredClone(boot), { fieldManager }), 409, 403));
      return;
    }
    if (!reviseIfNeeded(current, boot, isMandatory)) return;
    // Decided again on the value the write starts from; unchanged means no write (a no-op update).
    writes.push(ignore(store.guaranteedUpdate(undefined, name, (cur: T) => reviseIfNeeded(cur, boot, isMandatory) ?? cur, { fieldManager }), 404, 409));
  };
  for (const boot of suggested) ensure(boot, false);
  for (const boot of mandatory) ensure(boot, true);
  const names = new Set([...mandatory, ...suggested].map((o) => o.metadata!.name!));
  for (const [name, current] of stored) if (isUnwanted(current, names)) writes.push(ignore(store.delete(undefined, name), 404, 409));
  await Promise.all(writes);
}

/** A create that lost to another server's, an update or delete of what went meanwhile: the next pass looks again. */
async function ignore(write: Promise<unknown>, ...codes: number[]): Promise<void> {
  try {
    await write;
  } catch (e) {
    if (!codes.includes(statusCode(e) ?? 0)) throw e;
  }
}

/** One pass over both kinds. */
export async function ensureFlowControlBootstrap(registry: Registry): Promise<void> {
  await Promise.all([
    ensureKind<PriorityLevelConfiguration>({
      store: registry.store(group, 'v1', 'prioritylevelconfigurations')!, mandatory: mandatoryPriorityLevels(), suggested: suggestedPriorityLevels(),
    }),
    ensureKind<FlowSchema>({
      store: registry.store(group, 'v1', 'flowschemas')!, mandatory: mandatoryFlowSchemas(), suggested: suggestedFlowSchemas(),
    }),
  ]);
}

/** The stored objects of both kinds (their UIDs name a request's schema and level in APF's response headers). */
export async function storedFlowControlObjects(registry: Registry): Promise<{ schemas: FlowSchema[]; levels: PriorityLevelConfiguration[] }> {
  const [levels, schemas] = await Promise.all([
    registry.store(group, 'v1', 'prioritylevelconfigurations')!.list(undefined, { resourceVersion: '0' }),
    registry.store(group, 'v1', 'flowschemas')!.list(undefined, { resourceVersion: '0' }),
  ]);
  return { schemas: schemas.items as FlowSchema[], levels: levels.items as PriorityLevelConfiguration[] };
}

/** Every interval after the first pass; returns a stop function. A failed pass is logged and tried at the next. */
export function runFlowControlEnsurer(registry: Registry, logger: Logger, intervalMs = flowControlEnsureIntervalMs): () => void {
  let running = false;
  const timer = setInterval(() => {
    if (running) return;
    running = true;
    ensureFlowControlBootstrap(registry)
      .catch((err) => logger.warn('APF bootstrap ensurer ran into an error, will retry later', { err }))
      .finally(() => { running = false; });
  }, intervalMs);
  timer.unref();
  return () => clearInterval(timer);
}
