/**
 * kube-scheduler for k8ts: watches nodes and pods through shared informers,
 * schedules pending pods (spec.schedulerName default-scheduler, no
 * spec.nodeName, not terminating) one at a time with the default profile,
 * and binds them through pods/binding. It talks to the API server only
 * through the public API.
 *
 * One cycle (scheduleOne): pop the next pod, run the framework over the
 * cache, then either
 *  - assume the pod on the chosen node (the cache counts it at once) and
 *    bind asynchronously, many bindings in flight; success records the event
 *    `Scheduled` ("Successfully assigned ns/pod to node"); failure forgets the
 *    assumed pod and retries the pod after its back-off; or
 *  - record the failure: event `FailedScheduling` with upstream's message,
 *    condition PodScheduled=False (reason Unschedulable, or SchedulerError for
 *    errors) through pods/status, and park the pod in the queue until a
 *    cluster event may help it (see queue.ts).
 * Terminal pods (Succeeded, Failed) hold no resources, as upstream's informer
 * filter drops them.
 */
import type { Unstructured } from '../api/unstructured.js';
import type { Node, Pod } from 'kubernetes-types/core/v1.js';
import type { Clientset, EventRecorder, InformerSource, Informer } from '../client/index.js';
import { isNotFound, metaKey } from '../client/index.js';
import type { Logger } from '../util/log.js';
import { rfc3339, type Clock } from '../util/clock.js';
import { podCondition, podIsTerminal } from '../api/pods.js';
import { SchedulerCache } from './cache.js';
import { SchedulingQueue, type QueuedPodInfo } from './queue.js';
import { Framework, type ScheduleResult } from './runtime.js';
import { defaultProfile, eventMayHelp, type Profile } from './profile.js';
import type { ClusterEvent } from './framework.js';
import { EventSink, asPod } from './events.js';
import { VolumeBinding } from './plugins/volumebinding.js';
import { Nominator, Preemptor } from './preemptor.js';
import { DefaultSelectorSource } from './default-selector.js';
import { withMembers } from '../util/with-members.js';
import { BindWindow, defaultBindWindow, type BindWindowOptions } from './bind-window.js';

export interface SchedulerContext {
  clients: Clientset;
  informers: InformerSource;
  /** A recorder, or a factory of recorders by component name (the controller context's). */
  recorder: EventRecorder | ((component: string) => EventRecorder);
  logger: Logger;
  clock: Clock;
}

export interface SchedulerOptions {
  /**
   * Upstream's parallelism (16): goroutines filtering and scoring nodes.
   * Plugins run on one thread here; kept for configuration parity.
   */
  parallelism?: number;
  /** 0 (default): adaptive, max(5, 50 - nodes/125) percent of the nodes. */
  percentageOfNodesToScore?: number;
  /**
   * Bindings in flight at most (upstream: a goroutine each, unbounded). Default 128: the client
   * sends at most 64 at once (its pool's connections), so 128 keeps every connection busy with as
   * many waiting; at 512 the other 448 waited in the pool with their assumed pods and request
   * bodies, for a higher peak RSS (the benchmark's scheduler process 226-278 MB against 218-235)
   * and no CPU difference that a loaded machine could show (bench/RESULTS.md, `sched5`).
   */
  maxInFlightBinds?: number;
  /**
   * The bindings' congestion window (bind-window.ts): fewer in flight, down to `min`, while
   * answers take longer than `targetMs` (defaults: defaultBindWindow). Off by default (false:
   * maxInFlightBinds fixed): on a machine loaded by others it cut the scheduler benchmark's
   * throughput by a third (bench/RESULTS.md `slo1`); K8TS_SCHEDULER_BIND_TARGET_MS turns it on in k8ts.
   */
  bindWindow?: Partial<Omit<BindWindowOptions, 'max'>> | false;
  initialBackoffMs?: number;
  maxBackoffMs?: number;
  podMaxInUnschedulablePodsDurationMs?: number;
  /**
   * Events written per second and burst (kube-scheduler's default client
   * connection: 50 and 100); at most 1000 wait, more are dropped, as upstream.
   */
  eventQPS?: number;
  eventBurst?: number;
  /** Tie-breaking among equally scored nodes (tests). */
  random?: () => number;
  profile?: Profile;
}

export interface SchedulerStats {
  scheduled: number;
  bound: number;
  unschedulable: number;
  errors: number;
  bindErrors: number;
  /** performance.now() of the first and last successful binding. */
  firstBindAt?: number;
  lastBindAt?: number;
}

const eventNoteLengthLimit = 1024;

/** truncateMessage: events carry at most 1024 characters. */
export function truncateMessage(message: string): string {
  if (message.length <= eventNoteLengthLimit) return message;
  const suffix = ' ...';
  return message.slice(0, eventNoteLengthLimit - suffix.length) + suffix;
}

const assigned = (pod: Pod) => !!pod?.spec?.nodeName;

/** Node changes that matter to scheduling (nodeSchedulingPropertiesChange). */
function nodeSchedulingChanged(a: Node | undefined, b: Node | undefined): boolean {
  const j = (x: unknown) => JSON.stringify(x ?? null);
  return !!a?.spec?.unschedulable !== !!b?.spec?.unschedulable
    || j(a?.status?.allocatable) !== j(b?.status?.allocatable)
    || j(a?.metadata?.labels) !== j(b?.metadata?.labels)
    || j(a?.spec?.taints) !== j(b?.spec?.taints);
}

export class Scheduler {
  /** The name the controller manager lists it under. */
  readonly name = 'scheduler';
  readonly stats: SchedulerStats = { scheduled: 0, bound: 0, unschedulable: 0, errors: 0, bindErrors: 0 };
  private readonly profile: Profile;
  private readonly framework: Framework;
  private readonly cache = new SchedulerCache();
  private readonly queue: SchedulingQueue;
  private readonly nodes: Informer;
  private readonly pods: Informer;
  private readonly events: EventSink;
  private readonly preemption: Preemptor;
  private readonly nominator = new Nominator();
  private readonly log: Logger;
  private readonly window: BindWindow;
  private inFlight = 0;
  private slotWaiter?: () => void;
  private running = false;
  private stopped = false;

  constructor(private readonly ctx: SchedulerContext, opts: SchedulerOptions = {}) {
    const pdbs = ctx.informers.informer('poddisruptionbudgets');
    const namespaces = ctx.informers.informer('namespaces');
    const workloads = new DefaultSelectorSource({
      services: ctx.informers.informer('services'), replicationcontrollers: ctx.informers.informer('replicationcontrollers'),
      replicasets: ctx.informers.informer('replicasets'), statefulsets: ctx.informers.informer('statefulsets'),
    });
    this.profile = opts.profile ?? defaultProfile(new VolumeBinding({
      pvcs: ctx.informers.informer('persistentvolumeclaims'), pvs: ctx.informers.informer('persistentvolumes'),
      classes: ctx.informers.informer('storageclasses'),
    }), { claims: ctx.informers.informer('persistentvolumeclaims'), pdbs: () => pdbs.list(), namespaceLabels: (ns) => namespaces.get(ns)?.metadata?.labels, defaultSelector: workloads.selectorFor });
    this.preemption = new Preemptor({ clients: ctx.clients, events: () => this.events, logger: ctx.logger.with('preemption'), clock: ctx.clock, schedulerName: this.profile.schedulerName });
    this.framework = new Framework(this.profile.plugins, {
      percentageOfNodesToScore: opts.percentageOfNodesToScore, random: opts.random, nominated: this.nominator,
    });
    this.log = ctx.logger.with('scheduler');
    const recorder = typeof ctx.recorder === 'function' ? ctx.recorder(this.profile.schedulerName) : ctx.recorder;
    this.events = new EventSink(recorder, { qps: opts.eventQPS, burst: opts.eventBurst });
    const max = opts.maxInFlightBinds ?? 128;
    const w = opts.bindWindow ?? false;
    this.window = new BindWindow(w === false ? { max, min: max, targetMs: Infinity } : { max, ...defaultBindWindow, ...w, min: Math.min(max, w.min ?? defaultBindWindow.min) });
    this.queue = new SchedulingQueue({
      clock: ctx.clock, hint: (info, event) => this.queueingHint(info, event), initialBackoffMs: opts.initialBackoffMs,
      maxBackoffMs: opts.maxBackoffMs, podMaxInUnschedulablePodsDurationMs: opts.podMaxInUnschedulablePodsDurationMs,
    });
    this.nodes = ctx.informers.informer('nodes');
    this.pods = ctx.informers.informer('pods');
    this.nodes.addEventHandler({
      add: (n) => this.onNodeAdd(n), update: (o, n) => this.onNodeUpdate(o, n), delete: (n) => this.cache.removeNode(n),
    });
    this.pods.addEventHandler({ add: (p) => this.onPodAdd(p), update: (o, n) => this.onPodUpdate(o, n), delete: (p) => this.onPodDelete(p) });
    this.pods.addEventHandler({ add: (p) => this.nominator.update(p), update: (_o, n) => this.nominator.update(n), delete: (p) => this.nominator.delete(p) });
    if (this.profile.volumeBinding) {
      for (const resource of ['persistentvolumeclaims', 'persistentvolumes', 'storageclasses'] as const) {
        const changed = (obj: Unstructured) => this.queue.moveAllToActiveOrBackoffQueue({ type: 'StorageChange', resource, obj });
        ctx.informers.informer(resource).addEventHandler({ add: changed, update: (_o, n) => changed(n) });
      }
    }
  }

  /** Starts scheduling once the node and pod informers have synced (the owner starts the informers). */
  run(): void {
    if (this.running) return;
    this.running = true;
    void (async () => {
      await Promise.all([this.nodes.waitForSync(), this.pods.waitForSync()]);
      if (this.stopped) return;
      this.log.info('scheduler started', { nodes: this.cache.nodeCount, pending: this.queue.sizes.active });
      this.queue.run();
      await this.loop();
    })().catch((e) => this.log.error('scheduling loop failed', { err: e }));
  }

  stop(): void {
    this.stopped = true;
    this.queue.close();
    this.events.close();
    this.slotWaiter?.();
  }

  /** Queue sizes, bindings in flight and the bindings' window (diagnostics, benchmarks, tests). */
  get pending(): { active: number; backoff: number; unschedulable: number; binding: number; bindWindow: number; events: number; eventsDropped: number } {
    return { ...this.queue.sizes, binding: this.inFlight, bindWindow: this.window.size, events: this.events.queued, eventsDropped: this.events.dropped };
  }

  // ---- informer events ------------------------------------------------------

  private onNodeAdd(node: Node): void {
    this.cache.addNode(node);
    this.queue.moveAllToActiveOrBackoffQueue({ type: 'NodeAdd', node });
  }

  private onNodeUpdate(oldNode: Node, node: Node): void {
    this.cache.updateNode(oldNode, node);
    if (nodeSchedulingChanged(oldNode, node)) this.queue.moveAllToActiveOrBackoffQueue({ type: 'NodeUpdate', oldNode, newNode: node });
  }

  /** A pending pod for this scheduler: its schedulerName, not terminating, not finished. */
  private responsible(pod: Pod): boolean {
    return (pod?.spec?.schedulerName ?? this.profile.schedulerName) === this.profile.schedulerName
      && !pod?.metadata?.deletionTimestamp && !podIsTerminal(pod);
  }

  private onPodAdd(pod: Pod): void {
    if (assigned(pod)) {
      if (!podIsTerminal(pod)) {
        this.cache.addPod(pod);
        this.assignedPodAdded(pod);
      }
      return;
    }
    if (this.responsible(pod) && !this.cache.isAssumed(metaKey(pod))) this.queue.add(pod);
  }

  private onPodUpdate(oldPod: Pod, pod: Pod): void {
    if (assigned(pod)) {
      if (!assigned(oldPod)) this.queue.delete(oldPod);
      if (podIsTerminal(pod)) {
        this.onAssignedPodGone(pod);
        return;
      }
      this.cache.updatePod(oldPod, pod);
      if (!assigned(oldPod) || JSON.stringify(oldPod.metadata?.labels ?? {}) !== JSON.stringify(pod.metadata?.labels ?? {})) this.assignedPodAdded(pod);
      return;
    }
    if (!this.responsible(pod)) { this.queue.delete(pod); return; }
    if (this.cache.isAssumed(metaKey(pod))) return;
    this.queue.update(oldPod, pod);
  }

  private onPodDelete(pod: Pod): void {
    if (assigned(pod)) { this.onAssignedPodGone(pod); return; }
    this.queue.delete(pod);
  }

  /** A pod bound or relabelled may satisfy a waiting pod's affinity or spreading; only worth a pass when pods wait. */
  private assignedPodAdded(pod: Pod): void {
    if (this.queue.unschedulableCount > 0) this.queue.moveAllToActiveOrBackoffQueue({ type: 'AssignedPodAdd', pod });
  }

  private onAssignedPodGone(pod: Pod): void {
    this.cache.removePod(pod);
    this.queue.moveAllToActiveOrBackoffQueue({ type: 'AssignedPodDelete', pod });
  }

  /** Whether the plugins that rejected the pod say the event may help it. */
  private queueingHint(info: QueuedPodInfo, event: ClusterEvent): boolean {
    return eventMayHelp(this.profile, info.unschedulablePlugins, event, info.pod);
  }

  // ---- the scheduling loop --------------------------------------------------

  private async loop(): Promise<void> {
    let sliceStart = performance.now();
    while (!this.stopped) {
      if (this.inFlight >= this.window.size) {
        await new Promise<void>((r) => { this.slotWaiter = r; });
        this.slotWaiter = undefined;
        continue;
      }
      const next = this.queue.pop();
      if (!next) {
        await this.queue.waitForPod();
        sliceStart = performance.now();
        continue;
      }
      this.scheduleOne(next.info, next.cycle);
      // Let I/O (binding responses, watch events) in every few milliseconds.
      if (performance.now() - sliceStart > 5) {
        await new Promise<void>((r) => setImmediate(r));
        sliceStart = performance.now();
      }
    }
  }

  private scheduleOne(info: QueuedPodInfo, cycle: number): void {
    const pod = info.pod;
    if (pod.metadata!.deletionTimestamp || this.cache.isAssumed(info.key)) return; // skipPodSchedule
    let result: ScheduleResult;
    try {
      result = this.framework.schedulePod(pod, this.cache);
    } catch (e) {
      result = { kind: 'Error', message: (e as Error).message };
    }
    if (result.kind !== 'Scheduled') {
      this.handleFailure(info, cycle, result);
      return;
    }
    const nodeName = result.node.name;
    this.cache.assumePod(pod, nodeName);
    // Reserve: the next cycles see the claims' and volumes' decisions before PreBind writes them.
    if (result.node.node && this.profile.volumeBinding?.needsPreBind(pod)) this.profile.volumeBinding.reserve(pod, result.node.node);
    this.stats.scheduled++;
    this.inFlight++;
    void this.bind(info, nodeName);
  }

  private async bind(info: QueuedPodInfo, nodeName: string): Promise<void> {
    const { namespace, name, uid } = info.pod.metadata!;
    let sentAt: number | undefined;
    try {
      // Only a pod with claims waits for PreBind: the rest (nearly every pod) go straight to the binding.
      const volumeBinding = this.profile.volumeBinding?.needsPreBind(info.pod) ? this.profile.volumeBinding : undefined;
      if (volumeBinding) await volumeBinding.preBind(this.ctx.clients, info.pod, nodeName);
      sentAt = performance.now();
      await this.ctx.clients.pods.createSub(namespace!, name!, 'binding', {
        apiVersion: 'v1', kind: 'Binding', metadata: { name, namespace, uid }, target: { apiVersion: 'v1', kind: 'Node', name: nodeName },
        // As upstream's DefaultBinder, Bind(...) returns only an error. Pipelined: a burst's bindings share
        // connections, writes and TLS records (client/light-pool.ts); a dropped connection fails each
        // binding on it, and each such pod goes back to the queue like every failed binding.
      }, { light: true, noResult: true, pipelined: true });
      const now = performance.now();
      this.stats.bound++;
      this.stats.firstBindAt ??= now;
      this.stats.lastBindAt = now;
      this.log.debug('successfully bound pod to node', { pod: info.key, node: nodeName });
      // Built only if the sink keeps it: in a burst most Scheduled events are dropped (events.ts).
      this.events.eventLazily(() => [asPod(info.pod), 'Normal', 'Scheduled', `Successfully assigned ${namespace}/${name} to ${nodeName}`]);
    } catch (e) {
      this.stats.bindErrors++;
      this.log.warn('binding failed', { pod: info.key, node: nodeName, err: (e as Error).message, code: (e as NodeJS.ErrnoException).code });
      this.cache.forgetPod(info.key);
      this.profile.volumeBinding?.unreserve(info.pod);
      this.queue.moveAllToActiveOrBackoffQueue({ type: 'AssignedPodDelete', pod: { ...info.pod, spec: withMembers(info.pod.spec!, { nodeName }) } });
      this.handleFailure(info, 0, { kind: 'Error', message: `running Bind plugin "DefaultBinder": ${(e as Error).message}` });
    } finally {
      // A failed binding's answer (a 429, a timeout) is as much a sign of the server's queue as a slow one.
      if (sentAt !== undefined) this.window.answered(sentAt, performance.now());
      this.inFlight--;
      this.slotWaiter?.();
    }
  }

  /** handleSchedulingFailure: requeue (if the pod is still pending), event, condition. */
  private handleFailure(info: QueuedPodInfo, cycle: number, result: Exclude<ScheduleResult, { kind: 'Scheduled' }>): void {
    const unschedulable = result.kind === 'Unschedulable';
    if (unschedulable) this.stats.unschedulable++; else this.stats.errors++;
    const reason = unschedulable ? 'Unschedulable' : 'SchedulerError';
    this.log.debug(unschedulable ? 'unable to schedule pod; no fit; waiting' : 'error scheduling pod; retrying', { pod: info.key, err: result.message });
    const current = this.pods.get(info.key);
    if (!current || assigned(current)) return;
    info.pod = current;
    if (unschedulable) {
      info.unschedulablePlugins = new Set(result.unschedulablePlugins);
      this.queue.addUnschedulableIfNotPresent(info, cycle);
    } else {
      this.queue.addBackoff(info);
    }
    if (unschedulable && result.nomination) void this.preemption.prepareCandidate(current, result.nomination);
    this.events.event(asPod(current), 'Warning', 'FailedScheduling', truncateMessage(result.message));
    void this.updatePodScheduledCondition(current, reason, result.message);
  }

  /** Sets PodScheduled=False with the reason and message, unless it already says so (podutil.UpdatePodCondition). */
  private async updatePodScheduledCondition(pod: Pod, reason: string, message: string): Promise<void> {
    const old = podCondition(pod, 'PodScheduled');
    if (old && old.status === 'False' && old.reason === reason && old.message === message && !old.lastProbeTime) return;
    const lastTransitionTime = old?.status === 'False' && old.lastTransitionTime ? old.lastTransitionTime : rfc3339(this.ctx.clock.now());
    const condition = { type: 'PodScheduled', status: 'False', lastProbeTime: null, lastTransitionTime, reason, message };
    try {
      await this.ctx.clients.pods.patch(pod.metadata!.namespace!, pod.metadata!.name!, { status: { conditions: [condition] } }, 'strategic', 'status');
    } catch (e) {
      if (!isNotFound(e)) this.log.warn('updating pod condition failed', { pod: metaKey(pod), err: e });
    }
  }
}

