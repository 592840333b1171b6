/**
 * Static pods of one node: the manifest directory feeds the pod workers
 * directly (no API server involved), mirrors are kept in the API when there
 * is one, and API pods that are mirrors never reach the workers.
 *
 *  1. Each scan's set is compared with the running set by namespace/name: a
 *     pod whose UID (config hash) changed is stopped — within its grace
 *     period, at most deleteDelay — and only then the new version starts
 *     (upstream lets a static pod's new instance start once the old one has
 *     terminated); a pod gone from the directory is stopped.
 *  2. Mirror pods from the pod informer go to the mirror reconciler, not to
 *     the workers: a mirror is a view, and deleting it never stops the pod.
 *  3. Manifests that fail are reported: a log line always, and a Warning
 *     event on the Node (reason FailedValidation) when a recorder exists.
 */
import type { Pod } from 'kubernetes-types/core/v1.js';
import type { Clientset, EventRecorder } from '../../client/index.js';
import type { Logger } from '../../util/log.js';
import type { PodRuntime } from '../runtime/runtime.js';
import type { PodHandler } from '../podsource.js';
import type { Timers } from '../timers.js';
import { ManifestSource, type ManifestProblem } from './source.js';
import { MirrorPods, isMirrorPodOf } from './mirror.js';
import { StaticPodStatus, type PodStatusWriter } from './status.js';
import { isMirrorPod } from './manifest.js';

export interface StaticPodsOptions {
  nodeName: string;
  /** --pod-manifest-path. */
  manifestPath: string;
  /** --file-check-frequency (upstream 20 s). */
  fileCheckIntervalMs?: number;
  /** How often mirrors are re-checked, --sync-frequency (upstream 1 min; k8ts 10 s). */
  mirrorSyncIntervalMs?: number;
  /** Upper bound on stopping a replaced or removed static pod (the agent's deleteDelay). */
  deleteDelayMs: number;
}

export interface StaticPodsDeps {
  runtime: PodRuntime;
  logger: Logger;
  timers: Timers;
  /** The API status manager; absent when standalone. */
  apiStatus?: PodStatusWriter;
  recorder?: EventRecorder;
}

/** What mirror pods need from a connected agent. */
export interface StaticPodsAPI {
  clients: Clientset;
  nodeUID(): Promise<string | undefined>;
  apiPod(key: string): Pod | undefined;
  apiPodsOnNode(): Pod[];
  apiSynced(): boolean;
}

export const defaultFileCheckIntervalMs = 20_000;
export const defaultMirrorSyncIntervalMs = 10_000;

const keyOf = (p: Pod) => `${p.metadata!.namespace}/${p.metadata!.name}`;

export class StaticPods {
  readonly status: StaticPodStatus;
  private readonly source: ManifestSource;
  private readonly running = new Map<string, Pod>();
  private readonly byUID = new Map<string, Pod>();
  private workers?: PodHandler;
  private mirrors?: MirrorPods;
  /** Scans apply one after another: a replacement waits for the old pod to stop. */
  private applying: Promise<void> = Promise.resolve();
  private stopped = false;

  constructor(private readonly deps: StaticPodsDeps, private readonly opts: StaticPodsOptions) {
    this.status = new StaticPodStatus({
      api: deps.apiStatus, logger: deps.logger.with('staticpods'),
      staticPod: (uid) => this.byUID.get(uid),
      mirrorUID: (pod) => {
        const m = this.mirrors ? this.api?.apiPod(keyOf(pod)) : undefined;
        return m && isMirrorPodOf(m, pod) && !m.metadata!.deletionTimestamp ? m.metadata!.uid : undefined;
      },
    });
    this.source = new ManifestSource({
      dir: opts.manifestPath, nodeName: opts.nodeName, checkIntervalMs: opts.fileCheckIntervalMs ?? defaultFileCheckIntervalMs,
      logger: deps.logger.with('staticpods'), timers: deps.timers,
      onPods: (pods) => { this.applying = this.applying.then(() => this.apply(pods)); },
      onProblem: (p) => this.reportProblem(p),
    });
  }

  private api?: StaticPodsAPI;

  /** The pod workers that run the static pods (set before start). */
  attach(workers: PodHandler): void { this.workers = workers; }

  /** Reads the directory once, starts the pods it defines, and keeps watching. */
  async start(): Promise<void> {
    if (!this.workers) throw new Error('static pods: attach the pod workers before start');
    await this.source.start();
    await this.applying;
  }

  /** Starts keeping mirror pods once the agent is registered with an API server. */
  connect(api: StaticPodsAPI, opts: { nodeName: string }): void {
    this.api = api;
    this.mirrors ??= new MirrorPods({
      clients: api.clients, nodeName: opts.nodeName, nodeUID: api.nodeUID, apiPod: api.apiPod, apiPodsOnNode: api.apiPodsOnNode,
      apiSynced: api.apiSynced, staticPods: () => [...this.running.values()], staticPodsSynced: () => this.source.hasSynced,
      onMirrored: (pod) => this.status.publish(pod), logger: this.deps.logger.with('staticpods'), timers: this.deps.timers,
      resyncIntervalMs: this.opts.mirrorSyncIntervalMs ?? defaultMirrorSyncIntervalMs,
    });
    if (!this.stopped) this.mirrors.start();
  }

  /** Wraps the workers' handler for API pods: mirrors go to the mirror reconciler instead. */
  apiPodHandler(next: PodHandler): PodHandler {
    return {
      upsert: (pod) => { if (isMirrorPod(pod)) this.mirrors?.trigger(); else next.upsert(pod); },
      remove: (pod) => { if (isMirrorPod(pod)) this.mirrors?.trigger(); else next.remove(pod); },
    };
  }

  /** The static pods running now. */
  pods(): Pod[] { return [...this.running.values()]; }

  /** Whether the manifest directory has been read once (a source ready, for orphan cleanup). */
  get synced(): boolean { return this.source.hasSynced; }

  /** Resolves once the latest scan has been applied and no mirror sync runs (tests). */
  async settled(): Promise<void> {
    await this.applying;
    await this.mirrors?.idle();
  }

  stop(): void {
    this.stopped = true;
    this.source.stop();
    this.mirrors?.stop();
  }

  private async apply(pods: Pod[]): Promise<void> {
    if (this.stopped) return;
    const wanted = new Map(pods.map((p) => [keyOf(p), p]));
    const stopping: Promise<void>[] = [];
    for (const [key, old] of this.running) {
      const next = wanted.get(key);
      if (next && next.metadata!.uid === old.metadata!.uid) continue;
      this.running.delete(key);
      this.deps.logger.info(next ? 'static pod changed, replacing it' : 'static pod removed, stopping it', { pod: key, uid: old.metadata!.uid });
      stopping.push(this.stopPod(old));
    }
    await Promise.all(stopping);
    if (this.stopped) return;
    for (const [key, pod] of wanted) {
      const cur = this.running.get(key);
      if (cur?.metadata!.uid === pod.metadata!.uid) continue;
      this.running.set(key, pod);
      this.byUID.set(pod.metadata!.uid!, pod);
      this.deps.logger.info('static pod added', { pod: key, uid: pod.metadata!.uid });
      this.workers!.upsert(pod);
    }
    this.mirrors?.trigger();
  }

  /** Stops a static pod within its grace period (bounded by deleteDelay), then lets the workers forget it. */
  private async stopPod(pod: Pod): Promise<void> {
    const uid = pod.metadata!.uid!;
    const graceMs = Math.max(0, Math.min((pod.spec?.terminationGracePeriodSeconds ?? 30) * 1000, this.opts.deleteDelayMs));
    await this.deps.runtime.killPod(uid, graceMs).catch((e) => this.deps.logger.warn('failed to stop static pod', { pod: keyOf(pod), err: e }));
    this.byUID.delete(uid);
    this.status.drop(uid);
    this.workers!.remove(pod);
  }

  private reportProblem(p: ManifestProblem): void {
    const { recorder } = this.deps;
    if (!recorder) return;
    const node = { apiVersion: 'v1', kind: 'Node', metadata: { name: this.opts.nodeName, uid: this.opts.nodeName } };
    recorder.event(node, 'Warning', 'FailedValidation', `Could not process manifest file "${p.path}": ${p.error}`);
  }
}
