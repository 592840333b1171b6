/**
 * A standalone kubelet (upstream: a kubelet started without --kubeconfig):
 * no API server at all. It runs the static pods of the manifest directory on
 * the runtime, admits them against the node it would register (capacity,
 * taints), and keeps their status locally (logged as it changes). Nothing is
 * registered, no Lease, no events.
 */
import type { PodStatus } from 'kubernetes-types/core/v1.js';
import { createLogger, type Logger } from '../../util/log.js';
import type { PodRuntime } from '../runtime/runtime.js';
import { realTimers, type Timers } from '../timers.js';
import { PodWorkers } from '../podworkers.js';
import { nodeConfigFor, type NodeAgentOptions } from '../agent.js';
import { initialNode, type NodeConfig } from '../nodestatus.js';
import { StaticPods, type StaticPodsOptions } from './manager.js';

export interface StandaloneKubeletDeps {
  runtime: PodRuntime;
  logger?: Logger;
  timers?: Timers;
}

export type StandaloneKubeletOptions = NodeAgentOptions & Omit<StaticPodsOptions, 'nodeName' | 'deleteDelayMs'>;

export class StandaloneKubelet {
  readonly nodeName: string;
  readonly config: NodeConfig;
  readonly staticPods: StaticPods;
  private readonly runtime: PodRuntime;
  private readonly workers: PodWorkers;
  private state: 'new' | 'running' | 'stopped' = 'new';

  constructor(deps: StandaloneKubeletDeps, opts: StandaloneKubeletOptions) {
    this.nodeName = opts.nodeName;
    this.runtime = deps.runtime;
    const logger = (deps.logger ?? createLogger('kubelet')).with(opts.nodeName);
    const timers = deps.timers ?? realTimers;
    const deleteDelayMs = opts.deleteDelayMs ?? 200;
    this.config = nodeConfigFor(opts, deps.runtime.version);
    this.staticPods = new StaticPods({ runtime: deps.runtime, logger, timers }, {
      nodeName: opts.nodeName, manifestPath: opts.manifestPath, fileCheckIntervalMs: opts.fileCheckIntervalMs, deleteDelayMs,
    });
    const node = initialNode(this.config, { errors: [] }, timers.now());
    this.workers = new PodWorkers({
      nodeName: opts.nodeName, runtime: deps.runtime, status: this.staticPods.status, node: () => node,
      hostIP: opts.internalIP, timers, logger, deleteDelayMs,
    });
    this.staticPods.attach(this.workers);
  }

  /** Reads the manifest directory and starts its pods; keeps watching it. */
  async start(): Promise<void> {
    if (this.state !== 'new') throw new Error(`standalone kubelet ${this.nodeName} already started`);
    this.state = 'running';
    await this.staticPods.start();
    this.workers.startHousekeeping(() => this.staticPods.synced);
  }

  /** The local status of each static pod, by namespace/name. */
  podStatuses(): Map<string, PodStatus | undefined> {
    const out = new Map<string, PodStatus | undefined>();
    for (const p of this.staticPods.pods()) out.set(`${p.metadata!.namespace}/${p.metadata!.name}`, this.staticPods.status.statusOf(p.metadata!.uid!));
    return out;
  }

  async stop(): Promise<void> {
    if (this.state === 'stopped') return;
    this.state = 'stopped';
    this.staticPods.stop();
    this.workers.close();
    await this.runtime.close();
  }
}
