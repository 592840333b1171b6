/**
 * The controller manager and scheduler: every controller runs against the API
 * server through the public API (a kubeconfig), behind a leader-election
 * Lease so that two control planes never both act.
 */
import { hostname } from 'node:os';
import { randomUUID } from 'node:crypto';
import { ObjectSharing } from '../util/shared-objects.js';
import { Clientset, SharedInformers, stripManagedFields, EventRecorder, LeaderElector, loadKubeconfig } from '../client/index.js';
import { coldOptionsFrom } from '../client/cold-sweep.js';
import type { InformerScope } from '../client/index.js';
import type { ClientConfig } from '../client/index.js';
import type { Controller, ControllerConfig, ControllerContext, ControllerFactory } from '../controllers/types.js';
import { defaultControllerConfig } from '../controllers/types.js';
import type { Logger } from '../util/log.js';
import { realClock } from '../util/clock.js';
import { controllerFactories, schedulerFactory } from './controller-list.js';
import { componentUserAgent } from '../util/user-agent.js';

export interface ControllerManagerOptions {
  client: ClientConfig | string;
  logger: Logger;
  config?: Partial<ControllerConfig>;
  /** Which to run (default: all controllers and the scheduler). */
  controllers?: string[];
  scheduler?: boolean;
  leaderElect?: boolean;
  /** The leader-election Lease in kube-system (default kube-controller-manager, as upstream's; the scheduler alone uses kube-scheduler). */
  leaseName?: string;
  userAgent?: string;
  /**
   * Informers shared with another component of the same isolate (control-loops.ts: the controller
   * manager and the scheduler read one set); default: this component's own, through its client.
   */
  informers?: SharedInformers;
  /** A client to use instead of one made from `client` (left open at stop: its owner closes it). */
  clients?: Clientset;
}

/**
 * `--controllers` as kube-controller-manager reads it: `all` or `*` for every
 * controller, names to enable, `-name` to disable (`*,-scheduler`).
 * `scheduler` selects k8ts's in-process scheduler.
 */
export function parseControllersFlag(value: string): { controllers?: string[]; scheduler: boolean } {
  const items = value.split(',').map((s) => s.trim()).filter(Boolean);
  const all = items.some((i) => i === 'all' || i === '*');
  const off = new Set(items.filter((i) => i.startsWith('-')).map((i) => i.slice(1)));
  if (all) {
    return {
      controllers: off.size ? Object.keys(controllerFactories).filter((n) => !off.has(n)) : undefined,
      scheduler: !off.has('scheduler'),
    };
  }
  const on = items.filter((i) => !i.startsWith('-') && !off.has(i));
  return { controllers: on.filter((n) => n !== 'scheduler'), scheduler: on.includes('scheduler') };
}

export interface RunningControllers { stop(): Promise<void> }

/**
 * The strings of the objects the informers keep and the subtrees alike objects have in common
 * (util/shared-objects.ts), shared by every informer of the isolate.
 */
const informerObjects = new ObjectSharing();

/**
 * The members whose subtrees are shared, by resource: only where objects are many and alike
 * (a ReplicaSet's or DaemonSet's pods: containers, volumes, tolerations, labels, owner references,
 * conditions); a unique subtree would cost its entry in the pool. Others get their strings pooled.
 */
const sharedMembers: Record<string, readonly string[]> = { pods: ['spec', 'status', 'metadata'] };

/**
 * Pods left untouched for a while are kept compressed (client/cold-objects.ts): they are the
 * objects counted by the hundred thousand, and the scheduler's cache keeps only what it counts of
 * them (scheduler/cached-pod.ts), so the decoded pod is the informer's alone.
 * K8TS_INFORMER_COLD_AFTER_MS turns it on ("on": 60-120 s; a delay; 0 in tests); unset or "off"
 * keeps every pod decoded, the default since it did not pay at 150,000 pods (client/cold-sweep.ts).
 */
const coldPods = coldOptionsFrom(process.env.K8TS_INFORMER_COLD_AFTER_MS);

/**
 * The informers of kube-controller-manager and kube-scheduler: no control loop reads managedFields,
 * which are about half of a pod's decoded size (bench/memory.ts); an update without them keeps the
 * live ones. Their strings are pooled and pods' common subtrees shared (util/shared-objects.ts, as
 * the API server's watch cache does), one pool for every component of the isolate: shared subtrees
 * are frozen, so a control loop must copy before it changes a cached object (as upstream's listers
 * require). The watches' events are parsed without managedFields (client/skip-managed-fields.ts):
 * the same objects, less work.
 */
export function controlLoopInformers(clients: Clientset, logger: Logger): SharedInformers {
  return new SharedInformers(clients, {
    logger: logger.with('informer'), skipManagedFields: true,
    cold: (resource) => (resource === 'pods' ? coldPods : undefined),
    transform: (o, { resource, prev, like }) => informerObjects.compact(stripManagedFields(o), prev, sharedMembers[resource] ?? [], like),
  });
}

export function startControllerManager(opts: ControllerManagerOptions): RunningControllers {
  const config = typeof opts.client === 'string' ? loadKubeconfig(opts.client) : opts.client;
  const clients = opts.clients ?? new Clientset(config, { qps: 0, userAgent: opts.userAgent ?? componentUserAgent('kube-controller-manager') });
  const closeClients = () => { if (!opts.clients) clients.close(); };
  const logger = opts.logger;
  const identity = `${hostname()}_${randomUUID()}`;
  const shared = opts.informers ?? controlLoopInformers(clients, logger);
  let running: { informers: InformerScope; controllers: Controller[] } | undefined;

  // Set by stop(): a term that would start after it (a leader callback already on its way) starts nothing.
  let stopping = false;
  const startAll = async () => {
    if (stopping) return;
    const informers = shared.scope();
    const ctx: ControllerContext = {
      clients, informers, logger, clock: realClock,
      config: { ...defaultControllerConfig, rootCA: config.caPem, ...(opts.config ?? {}) },
      recorder: (component) => new EventRecorder(clients, component, logger, hostname()),
    };
    const wanted = opts.controllers;
    const controllers = Object.entries(controllerFactories)
      .filter(([name]) => !wanted || wanted.includes(name))
      .map(([, f]) => (f as ControllerFactory)(ctx));
    if (opts.scheduler !== false && schedulerFactory) controllers.push(schedulerFactory(ctx));
    running = { informers, controllers };
    informers.start();
    await informers.waitForSync();
    if (running?.informers !== informers) return;
    for (const c of controllers) { c.run(); logger.info('started controller', { controller: c.name }); }
  };
  const stopAll = () => {
    if (!running) return;
    for (const c of running.controllers) c.stop();
    running.informers.stop();
    running = undefined;
  };
  const fail = (e: unknown) => logger.error('controllers failed to start', { err: e });

  if (opts.leaderElect === false) {
    startAll().catch(fail);
    return { stop: async () => { stopping = true; stopAll(); closeClients(); } };
  }
  const elector = new LeaderElector(clients, {
    namespace: 'kube-system', name: opts.leaseName ?? 'kube-controller-manager', identity, logger,
    onStartedLeading: () => { startAll().catch(fail); },
    onStoppedLeading: () => stopAll(),
  });
  elector.start();
  return {
    stop: async () => {
      // The loops stop acting first, then the Lease is given up (client-go's ReleaseOnCancel order).
      stopping = true;
      stopAll();
      await elector.stop();
      closeClients();
    },
  };
}
