/**
 * Mirror pods: the API's read-only view of each static pod (upstream
 * pkg/kubelet/pod/mirror_client.go and the static-pod part of syncPod and
 * HandlePodCleanups). Each sync, for every static pod:
 *
 *  1. A mirror is the API pod of the same namespace/name carrying
 *     `kubernetes.io/config.mirror`; it belongs to the static pod when that
 *     annotation equals the pod's config hash (IsMirrorPodOf).
 *  2. A mirror being deleted (deletionTimestamp) or with another hash is
 *     deleted at once (grace 0, precondition on its UID) and created again.
 *  3. A missing mirror is created: the static pod plus the mirror annotation
 *     and an ownerReference to the Node {apiVersion v1, kind Node, name, uid,
 *     controller: true} — not while the Node is unknown or being deleted.
 *     AlreadyExists is fine (our cache is behind, or a user's pod holds the
 *     name, which is left alone as upstream does).
 *  4. Once the manifest directory has been read and the pod cache synced,
 *     mirrors on this node without a static pod are deleted (orphans).
 *
 * One departure: after deleting a mirror that a user was deleting, the new
 * mirror waits recreateDelay (1 s) instead of following at once. Otherwise
 * `kubectl delete` can see the new mirror (same name, new UID) when it starts
 * waiting, and wait for that one to go too, until its timeout.
 *
 * Syncs run on every change (static pods, mirror events) and every
 * resyncInterval (upstream's sync frequency), which also retries after the
 * API server was unreachable. The static pods themselves never depend on it.
 */
import type { Pod } from 'kubernetes-types/core/v1.js';
import type { Clientset } from '../../client/index.js';
import { isAlreadyExists, isConflict, isNotFound } from '../../client/index.js';
import type { Logger } from '../../util/log.js';
import type { Timers, TimerHandle } from '../timers.js';
import { annotationConfigMirror, configHashOf, isMirrorPod } from './manifest.js';

export interface MirrorPodsDeps {
  clients: Clientset;
  nodeName: string;
  /** The Node's UID; undefined while the Node is not registered. */
  nodeUID(): Promise<string | undefined>;
  /** The API pods bound to this node, as the kubelet's pod informer sees them. */
  apiPod(key: string): Pod | undefined;
  apiPodsOnNode(): Pod[];
  apiSynced(): boolean;
  /** The static pods as the manifest directory defines them. */
  staticPods(): Pod[];
  staticPodsSynced(): boolean;
  /** A mirror of this static pod is in place: publish its status. */
  onMirrored(pod: Pod): void;
  logger: Logger;
  timers: Timers;
  resyncIntervalMs: number;
  /** Delay before recreating a mirror a user deleted (default 1 s). */
  recreateDelayMs?: number;
}

const keyOf = (p: Pod) => `${p.metadata!.namespace}/${p.metadata!.name}`;

/** IsMirrorPodOf: same namespace/name, mirror annotation equal to the static pod's hash. */
export function isMirrorPodOf(mirror: Pod | undefined, staticPod: Pod): boolean {
  if (!mirror || !isMirrorPod(mirror)) return false;
  if (keyOf(mirror) !== keyOf(staticPod)) return false;
  return mirror.metadata!.annotations![annotationConfigMirror] === configHashOf(staticPod);
}

/** The mirror pod to create for a static pod (upstream CreateMirrorPod). */
export function mirrorPodFor(staticPod: Pod, nodeName: string, nodeUID: string): Pod {
  const { uid: _uid, resourceVersion: _rv, creationTimestamp: _ct, ...meta } = staticPod.metadata!;
  return {
    apiVersion: 'v1', kind: 'Pod',
    metadata: {
      ...meta,
      annotations: { ...(meta.annotations ?? {}), [annotationConfigMirror]: configHashOf(staticPod) ?? '' },
      ownerReferences: [{ apiVersion: 'v1', kind: 'Node', name: nodeName, uid: nodeUID, controller: true }],
    },
    spec: structuredClone(staticPod.spec),
  };
}

export class MirrorPods {
  private timer?: TimerHandle;
  private running?: Promise<void>;
  private again = false;
  private stopped = true;
  /** Keys whose last write failed, so a server outage is logged once per pod, not every resync. */
  private readonly failing = new Set<string>();
  /** Mirrors a user deleted: not recreated before this time (ms). */
  private readonly holdUntil = new Map<string, number>();

  constructor(private readonly deps: MirrorPodsDeps) {}

  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    this.trigger();
  }

  stop(): void {
    this.stopped = true;
    if (this.timer) this.deps.timers.clearTimeout(this.timer);
    this.timer = undefined;
  }

  /** Requests a sync soon; syncs never overlap. */
  trigger(): void {
    if (this.stopped) return;
    if (this.running) { this.again = true; return; }
    this.running = (async () => {
      do {
        this.again = false;
        await this.sync().catch((e) => this.deps.logger.warn('mirror pod sync failed', { err: e }));
      } while (this.again && !this.stopped);
    })().finally(() => {
      this.running = undefined;
      this.schedule();
    });
  }

  /** Resolves when no sync is running (tests). */
  async idle(): Promise<void> { while (this.running) await this.running; }

  private schedule(): void {
    if (this.stopped) return;
    if (this.timer) this.deps.timers.clearTimeout(this.timer);
    this.timer = this.deps.timers.setTimeout(() => { this.timer = undefined; this.trigger(); }, this.deps.resyncIntervalMs);
  }

  private async sync(): Promise<void> {
    let nodeUID: string | undefined;
    try { nodeUID = await this.deps.nodeUID(); } catch { nodeUID = undefined; }
    const statics = this.deps.staticPods();
    for (const pod of statics) {
      if (this.stopped) return;
      await this.syncOne(pod, nodeUID);
    }
    if (this.deps.staticPodsSynced() && this.deps.apiSynced()) await this.deleteOrphans(new Set(statics.map(keyOf)));
  }

  private async syncOne(pod: Pod, nodeUID: string | undefined): Promise<void> {
    const key = keyOf(pod);
    const existing = this.deps.apiPod(key);
    const mine = isMirrorPodOf(existing, pod);
    if (existing && !isMirrorPod(existing)) {
      this.once(key, 'a pod that is not a mirror pod has the static pod\'s name; no mirror pod is created', {});
      return;
    }
    if (mine && !existing!.metadata!.deletionTimestamp) {
      this.failing.delete(key);
      this.deps.onMirrored(pod);
      return;
    }
    if (existing) {
      // Being deleted, or the mirror of an older version of the manifest: replace it.
      this.deps.logger.info('deleting mirror pod because it is outdated', { pod: key, mirrorUID: existing.metadata!.uid });
      if (!(await this.deleteMirror(existing, existing.metadata!.uid))) return;
      if (existing.metadata!.deletionTimestamp) this.hold(key);
    }
    const held = this.holdUntil.get(key);
    if (held !== undefined && held > this.deps.timers.now().getTime()) return;
    this.holdUntil.delete(key);
    if (!nodeUID) { this.once(key, 'no mirror pod yet: the Node is not registered', {}); return; }
    try {
      await this.deps.clients.pods.create(pod.metadata!.namespace, mirrorPodFor(pod, this.deps.nodeName, nodeUID));
      this.failing.delete(key);
      this.deps.logger.info('created mirror pod', { pod: key, hash: configHashOf(pod) });
    } catch (e) {
      if (isAlreadyExists(e)) return;
      this.once(key, 'failed creating a mirror pod', { err: e });
    }
  }

  /** DeleteMirrorPod: grace 0; with a UID precondition when replacing a known mirror. */
  private async deleteMirror(mirror: Pod, uid?: string): Promise<boolean> {
    const { namespace, name } = mirror.metadata!;
    try {
      await this.deps.clients.pods.delete(namespace, name!, { gracePeriodSeconds: 0, ...(uid ? { preconditions: { uid } } : {}) });
      return true;
    } catch (e) {
      if (isNotFound(e) || isConflict(e)) return true;
      this.once(`${namespace}/${name}`, 'failed deleting mirror pod', { err: e });
      return false;
    }
  }

  private hold(key: string): void {
    const delay = this.deps.recreateDelayMs ?? 1000;
    this.holdUntil.set(key, this.deps.timers.now().getTime() + delay);
    this.deps.timers.setTimeout(() => this.trigger(), delay);
  }

  private async deleteOrphans(wanted: Set<string>): Promise<void> {
    for (const pod of this.deps.apiPodsOnNode()) {
      if (this.stopped) return;
      if (!isMirrorPod(pod) || wanted.has(keyOf(pod))) continue;
      this.deps.logger.info('deleting orphaned mirror pod', { pod: keyOf(pod) });
      await this.deleteMirror(pod);
    }
  }

  private once(key: string, msg: string, kv: Record<string, unknown>): void {
    if (this.failing.has(key)) { this.deps.logger.debug(msg, { pod: key, ...kv }); return; }
    this.failing.add(key);
    this.deps.logger.warn(msg, { pod: key, ...kv });
  }
}
