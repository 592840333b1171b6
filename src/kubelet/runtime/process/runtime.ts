/**
 * The process runtime: each container runs as host processes (`k8ts agent
 * --runtime process`), for machines without containerd and for a kubeadm
 * style control plane run as static pods.
 *
 *  1. A pod runs in the host's network (pod IP = node IP), whether or not
 *     it asks for hostNetwork: there is no pod network without a sandbox.
 *     Its "sandbox" is only a record: ready from the first start until
 *     the pod is killed.
 *  2. A container is its command and args (the image is recorded and shown
 *     but never pulled or read: a container without a command waits with
 *     CreateContainerError), with the environment the CRI runtime would
 *     give it (envFrom, env, valueFrom) over a PATH and HOME of the agent's,
 *     its workingDir, and its volumes on host paths (launch.ts: a private
 *     mount namespace when a volume must appear elsewhere).
 *  3. Sync, restart policy, init containers and CrashLoopBackOff are the
 *     CRI runtime's (../cri/actions.ts, ../cri/backoff.ts, ../cri/podstate.ts).
 *  4. Every relistPeriod (1 s) each running process is checked (its pid
 *     and start time, records.ts) and its output pumped into the CRI log
 *     (logpump.ts); the agent's own children also report their exit at once.
 *  5. Stopping: SIGTERM to the container's process group, SIGKILL when the
 *     grace period (at least 2 s, as upstream's StopContainer) runs out.
 *  6. At start, the records under the root dir are read back: processes a
 *     previous agent started and that still run are adopted (same container
 *     IDs); ended ones are reported with the exit code their wrapper wrote.
 *     close() leaves every process running.
 *  7. exec (a pty from `script` for -t), attach and port-forward are local
 *     streams and sockets the kubelet server carries (streams.ts; ports
 *     are the host's, at 127.0.0.1).
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync, rmSync, statSync } from 'node:fs';
import { constants, homedir, hostname } from 'node:os';
import { dirname } from 'node:path';
import type { Readable } from 'node:stream';
import type { ChildProcess } from 'node:child_process';
import { connect, type Socket } from 'node:net';
import type { Container, Pod } from 'kubernetes-types/core/v1.js';
import type { Timers } from '../../timers.js';
import type { LocalStream, PodRuntime, RuntimeContainerStats, RuntimePodStatus, StreamRequest } from '../runtime.js';
import { processContainerStats } from './stats.js';
import { PodEventEmitter } from '../pod-events.js';
import { containerLogPath, readCRILog, type ContainerLogOptions } from '../../logs/index.js';
import type { CRIRuntimeOptions } from '../cri/runtime.js';
import { computePodActions, type ContainerStart } from '../cri/actions.js';
import { Backoff } from '../cri/backoff.js';
import { PodSyncLoop, crashLoopWait } from '../cri/podsync.js';
import { containerEnv, expandVars, hostAllocatable, type PodContext } from '../cri/config.js';
import { instances, latestSandbox, newPodEntry, podStatus, type ContainerRecord, type PodEntry } from '../cri/podstate.js';
import { holdReason, prepareContainer } from '../cri/prepare.js';
import { removePodDir } from '../cri/volumes.js';
import { launch, lookPath } from './launch.js';
import { addonCommand, isAddonImage } from '../addon-image.js';
import { LogPump } from './logpump.js';
import {
  instanceDir, listRecords, processAlive, procStat, readExitCode, writeInstanceRecord, writePodRecord, type InstanceRecord,
} from './records.js';
import { execInContainer, type ExecResult } from './exec.js';
import { attachStream, execStream } from './streams.js';

/** As the CRI runtime's, without a socket: the root dir also holds the process records. */
export type ProcessRuntimeOptions = Omit<CRIRuntimeOptions, 'endpoint'> & {
  /**
   * The argv that runs this installation's CLI (process.execPath and its
   * entry script): an add-on container (image k8ts.local/k8ts, addon-image.ts)
   * whose command is `k8ts ...` runs it, so the node's own binary serves the
   * add-on whether or not a `k8ts` is in PATH.
   */
  k8tsCommand?: string[];
};

export const processRuntimeType = 'process';
export const processRuntimeVersion = 'k8ts-process://0.1.0';

/** Upstream minimumGracePeriodInSeconds. */
const minimumGracePeriodMs = 2000;
const defaultPath = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';

/** One process instance of a container. */
interface Instance {
  uid: string;
  dir: string;
  rec: InstanceRecord;
  /** The record the shared pod status is computed from. */
  state: ContainerRecord;
  /** Set when this agent started it (its exit is reported at once). */
  child?: ChildProcess;
  pump: LogPump;
  logPath: string;
  exited: Promise<void>;
  markExited: () => void;
}

export class ProcessRuntime implements PodRuntime {
  readonly type = processRuntimeType;
  readonly version = processRuntimeVersion;
  private readonly byUID = new Map<string, PodEntry>();
  private readonly byID = new Map<string, Instance>();
  private readonly events = new PodEventEmitter();
  private readonly crashBackoff: Backoff;
  private readonly syncLoop: PodSyncLoop;
  private readonly ctx: PodContext;
  private relistTimer?: ReturnType<Timers['setTimeout']>;
  private closed = false;

  constructor(private readonly opts: ProcessRuntimeOptions) {
    this.syncLoop = new PodSyncLoop({
      timers: opts.timers, logger: opts.logger, closed: () => this.closed, current: (p) => this.byUID.get(p.uid) === p,
      syncOnce: (p) => this.syncOnce(p),
    });
    this.crashBackoff = new Backoff(() => opts.timers.now().getTime());
    this.ctx = { nodeName: opts.nodeName, podLogsDir: opts.podLogsDir, hostIP: opts.hostIP };
    mkdirSync(opts.rootDir, { recursive: true });
    this.adopt();
    this.scheduleRelist();
  }

  syncPod(pod: Pod): void { this.syncLoop.podChanged(this.byUID, pod); }

  killPod(uid: string, gracePeriodMs: number): Promise<void> {
    const p = this.byUID.get(uid);
    if (!p) return Promise.resolve();
    p.terminating = true;
    p.killing ??= this.stopPod(p, Math.max(minimumGracePeriodMs, gracePeriodMs));
    return p.killing;
  }

  removePod(uid: string): void {
    const p = this.byUID.get(uid);
    if (!p) return;
    this.byUID.delete(uid);
    this.syncLoop.clear(p);
    this.crashBackoff.forget(`${uid}/`);
    for (const c of p.containers) {
      const inst = this.byID.get(c.id);
      if (!inst) continue;
      if (c.state === 'CONTAINER_RUNNING') signalGroup(inst.rec, 'SIGKILL');
      inst.pump.close();
      this.byID.delete(c.id);
    }
    removePodDir(this.opts.rootDir, uid);
  }

  status(uid: string): RuntimePodStatus | undefined {
    const p = this.byUID.get(uid);
    return p && podStatus(p, this.type, this.opts.hostIP);
  }

  pods(): string[] { return [...this.byUID.keys()]; }

  onPodEvent(listener: (uid: string) => void): void { this.events.on(listener); }

  readLogs(uid: string, containerID: string, opts: ContainerLogOptions): Readable {
    const inst = this.instance(uid, containerID);
    inst.pump.pump();
    return readCRILog(inst.logPath, opts, { isRunning: () => inst.state.state === 'CONTAINER_RUNNING' });
  }

  /** A probe's exec: the command in the container's environment, working dir and mount namespace. */
  execSync(containerID: string, cmd: string[], timeoutMs: number): Promise<ExecResult> {
    const inst = this.byID.get(containerID.slice(containerID.indexOf('://') + 3));
    if (!inst || inst.state.state !== 'CONTAINER_RUNNING') return Promise.reject(new Error(`container ${containerID} is not running`));
    return execInContainer(inst.rec, cmd, timeoutMs);
  }

  async killContainer(uid: string, containerID: string, gracePeriodMs: number): Promise<void> {
    const inst = this.instance(uid, containerID);
    await this.stopInstance(inst, Math.max(minimumGracePeriodMs, gracePeriodMs));
  }

  /** `kubectl exec` (a command, with or without a tty) and `kubectl attach`, served by the kubelet server (streams.ts). */
  openStream(uid: string, containerID: string, req: StreamRequest): LocalStream {
    const inst = this.instance(uid, containerID);
    if (inst.state.state !== 'CONTAINER_RUNNING') throw new Error(`container ${containerID} is not running`);
    return req.cmd ? execStream(inst.rec, req.cmd, req.tty) : attachStream(inst.dir, inst.exited, req);
  }

  /** `kubectl port-forward`: every pod is in the host's network, so its ports are the host's. */
  dialPort(_uid: string, port: number): Socket {
    return connect({ host: '127.0.0.1', port });
  }

  /** Usage of every running instance, read from its process group (stats.ts). */
  async containerStats(): Promise<RuntimeContainerStats[]> {
    const running = [...this.byID.values()].filter((i) => i.state.state === 'CONTAINER_RUNNING' && processAlive(i.rec));
    return processContainerStats(running.map((i) => ({ podUID: i.uid, name: i.rec.name, pid: i.rec.pid })), () => this.opts.timers.now());
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.relistTimer) this.opts.timers.clearTimeout(this.relistTimer);
    for (const p of this.byUID.values()) this.syncLoop.clear(p);
    for (const inst of this.byID.values()) { inst.pump.pump(); inst.pump.close(); }
  }

  // --- sync ---------------------------------------------------------------

  private async syncOnce(p: PodEntry): Promise<void> {
    const { work, starts } = computePodActions(p, p.pod!);
    const sb = latestSandbox(p);
    if (!sb || sb.state !== 'SANDBOX_READY') {
      if (!work) return;
      const sandbox = { id: randomBytes(32).toString('hex'), attempt: sb ? sb.attempt + 1 : 0, state: 'SANDBOX_READY' as const, createdAt: this.opts.timers.now(), ip: this.opts.hostIP };
      p.sandboxes = [sandbox];
      writePodRecord(this.opts.rootDir, { uid: p.uid, namespace: p.namespace, name: p.name });
      this.emit(p);
    }
    for (const s of starts) await this.startWithBackoff(p, s);
  }

  /** Restarts honour the crash back-off (upstream doBackOff); the first start does not wait. */
  private async startWithBackoff(p: PodEntry, s: ContainerStart): Promise<void> {
    const { container: c, latest } = s;
    const wait = crashLoopWait(this.crashBackoff, p, c.name, latest);
    if (wait) { this.setWaiting(p, c.name, 'CrashLoopBackOff', wait); return; }
    await this.startContainer(p, c, s.restartCount);
  }

  private setWaiting(p: PodEntry, name: string, reason: string, message?: string): void {
    const old = p.waiting.get(name);
    if (old?.reason === reason && old.message === message) return;
    p.waiting.set(name, { reason, message });
    this.emit(p);
  }

  /** The container's environment: the agent's PATH and HOME (no image supplies them), the host name, then the pod's env. */
  private environment(pod: Pod, c: Container, prepared: Awaited<ReturnType<typeof prepareContainer>>): Record<string, string> {
    const env: Record<string, string> = { PATH: process.env.PATH || defaultPath, HOME: homedir(), HOSTNAME: hostname() };
    for (const e of containerEnv(pod, c, this.ctx, this.opts.hostIP, prepared.envSources)) env[e.key] = e.value;
    return env;
  }

  private async startContainer(p: PodEntry, c: Container, restartCount: number): Promise<void> {
    const pod = p.pod!;
    if (!c.command?.length) {
      this.setWaiting(p, c.name, 'CreateContainerError',
        `container "${c.name}" has no command: the process runtime runs command and args on the host and never reads the image ("${c.image ?? ''}")`);
      return;
    }
    let prepared: Awaited<ReturnType<typeof prepareContainer>>;
    let env: Record<string, string>;
    try {
      prepared = await prepareContainer(pod, c, { volumes: this.opts.volumes, rootDir: this.opts.rootDir, node: hostAllocatable() });
      env = this.environment(pod, c, prepared);
    } catch (e) {
      const reason = holdReason(e);
      if (reason) { this.setWaiting(p, c.name, reason, (e as Error).message); return; }
      throw e;
    }
    if (this.closed || p.terminating || this.byUID.get(p.uid) !== p) return;
    const vars = new Map(Object.entries(env));
    const argv = [...(c.command ?? []), ...(c.args ?? [])].map((s) => expandVars(s, vars));
    if (argv[0] === addonCommand && isAddonImage(c.image) && this.opts.k8tsCommand) argv.splice(0, 1, ...this.opts.k8tsCommand);
    if (!lookPath(argv[0], env.PATH)) {
      this.setWaiting(p, c.name, 'RunContainerError', `exec: "${argv[0]}": executable file not found in $PATH`);
      return;
    }
    const id = randomBytes(32).toString('hex');
    const dir = instanceDir(this.opts.rootDir, p.uid, c.name, restartCount);
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const now = this.opts.timers.now();
    const state: ContainerRecord = {
      id, name: c.name, attempt: restartCount, sandboxId: latestSandbox(p)!.id, state: 'CONTAINER_RUNNING', image: c.image ?? '', imageRef: '', createdAt: now, startedAt: now,
    };
    let launched: ReturnType<typeof launch>;
    try {
      launched = launch({ argv, env, workingDir: c.workingDir ?? '', mounts: prepared.mounts, dir, stdin: !!c.stdin });
    } catch (e) {
      this.setWaiting(p, c.name, 'RunContainerError', (e as Error).message);
      return;
    }
    const { child, mountNamespace } = launched;
    const pid = child.pid;
    const stat = pid === undefined ? undefined : procStat(pid);
    if (pid === undefined || !stat) {
      this.setWaiting(p, c.name, 'RunContainerError', `failed to start the process of container "${c.name}"`);
      return;
    }
    const init = (pod.spec?.initContainers ?? []).some((x) => x.name === c.name);
    const rec: InstanceRecord = {
      id, name: c.name, attempt: restartCount, init, image: c.image ?? '', pid, procStart: stat.start, mountNamespace,
      workingDir: c.workingDir ?? '', createdAt: now.toISOString(), startedAt: now.toISOString(),
    };
    writeInstanceRecord(dir, rec);
    const inst = this.track(p, dir, rec, state);
    inst.child = child;
    child.once('exit', (code, signal) => this.onExited(inst, code, signal));
    this.opts.logger.debug('container started', { pod: `${p.namespace}/${p.name}`, container: c.name, restartCount, pid });
    p.waiting.delete(c.name);
    this.emit(p);
    this.pruneDeadInstances(p, c.name);
  }

  /** Registers an instance (started now or adopted) with its log pump. */
  private track(p: PodEntry, dir: string, rec: InstanceRecord, state: ContainerRecord): Instance {
    const logPath = containerLogPath(this.opts.podLogsDir, p, rec.name, rec.attempt);
    mkdirSync(dirname(logPath), { recursive: true, mode: 0o755 });
    let markExited!: () => void;
    const exited = new Promise<void>((r) => { markExited = r; });
    const inst: Instance = { uid: p.uid, dir, rec, state, pump: new LogPump(dir, logPath), logPath, exited, markExited };
    p.containers.push(state);
    this.byID.set(rec.id, inst);
    if (state.state === 'CONTAINER_RUNNING') inst.pump.watch();
    else { inst.pump.pump(true); inst.pump.close(); markExited(); }
    return inst;
  }

  /** Upstream container GC keeps one dead instance per container (for lastState and `logs --previous`). */
  private pruneDeadInstances(p: PodEntry, name: string): void {
    for (const c of instances(p, name).slice(2).filter((x) => x.state === 'CONTAINER_EXITED')) {
      const inst = this.byID.get(c.id);
      p.containers = p.containers.filter((x) => x.id !== c.id);
      this.byID.delete(c.id);
      if (!inst) continue;
      rmSync(inst.dir, { recursive: true, force: true });
      rmSync(inst.logPath, { force: true });
    }
  }

  // --- ending -------------------------------------------------------------

  /** The process ended: its exit code is what the wrapper wrote, else the wait status (128+signal) of our child. */
  private onExited(inst: Instance, code: number | null, signal: NodeJS.Signals | null): void {
    if (inst.state.state !== 'CONTAINER_RUNNING') return;
    const fallback = signal ? 128 + signalNumber(signal) : code ?? 137;
    this.finish(inst, readExitCode(inst.dir) ?? fallback, this.opts.timers.now());
  }

  private finish(inst: Instance, exitCode: number, finishedAt: Date): void {
    Object.assign(inst.state, { state: 'CONTAINER_EXITED', exitCode, finishedAt });
    inst.pump.pump(true);
    inst.pump.close();
    inst.markExited();
    const p = this.byUID.get(inst.uid);
    if (!p) return;
    this.opts.logger.debug('container exited', { pod: `${p.namespace}/${p.name}`, container: inst.rec.name, exitCode });
    this.emit(p);
    if (p.pod && !p.terminating && !this.closed) this.syncLoop.request(p);
  }

  /** An instance this agent did not start: ended when its pid is gone (or reused); finished when its exit file was written. */
  private checkAdopted(inst: Instance): void {
    if (inst.child || inst.state.state !== 'CONTAINER_RUNNING' || processAlive(inst.rec)) return;
    this.finish(inst, readExitCode(inst.dir) ?? 137, exitTime(inst.dir) ?? this.opts.timers.now());
  }

  private async stopInstance(inst: Instance, graceMs: number): Promise<void> {
    if (inst.state.state !== 'CONTAINER_RUNNING') return;
    signalGroup(inst.rec, 'SIGTERM');
    const poll = setInterval(() => this.checkAdopted(inst), 100);
    const timer = setTimeout(() => signalGroup(inst.rec, 'SIGKILL'), graceMs);
    try {
      await inst.exited;
    } finally {
      clearInterval(poll);
      clearTimeout(timer);
    }
  }

  private async stopPod(p: PodEntry, graceMs: number): Promise<void> {
    while (p.syncing) await new Promise((r) => setTimeout(r, 20));
    const running = p.containers.map((c) => this.byID.get(c.id)).filter((i): i is Instance => !!i && i.state.state === 'CONTAINER_RUNNING');
    await Promise.all(running.map((i) => this.stopInstance(i, graceMs)));
    for (const sb of p.sandboxes) sb.state = 'SANDBOX_NOTREADY';
    this.emit(p);
  }

  // --- relist and adoption ------------------------------------------------

  private scheduleRelist(): void {
    if (this.closed) return;
    this.relistTimer = this.opts.timers.setTimeout(() => {
      try { this.relist(); } catch (e) { this.opts.logger.warn('relist failed', { err: e }); }
      this.scheduleRelist();
    }, this.opts.relistPeriodMs ?? 1000);
  }

  private relist(): void {
    for (const inst of [...this.byID.values()]) {
      if (inst.state.state !== 'CONTAINER_RUNNING') continue;
      inst.pump.pump();
      this.checkAdopted(inst);
    }
  }

  /** Reads back what an earlier agent started (records.ts). */
  private adopt(): void {
    for (const { pod, instances: list } of listRecords(this.opts.rootDir)) {
      const p = newPodEntry(pod.uid, pod.namespace, pod.name);
      this.byUID.set(p.uid, p);
      const first = list.map((i) => Date.parse(i.rec.createdAt)).sort((a, b) => a - b)[0];
      p.sandboxes = [{ id: pod.uid, attempt: 0, state: 'SANDBOX_READY', createdAt: new Date(first ?? Date.now()), ip: this.opts.hostIP }];
      let running = 0;
      for (const { dir, rec } of list) {
        const alive = processAlive(rec);
        running += alive ? 1 : 0;
        const state: ContainerRecord = {
          id: rec.id, name: rec.name, attempt: rec.attempt, sandboxId: pod.uid, state: alive ? 'CONTAINER_RUNNING' : 'CONTAINER_EXITED', image: rec.image, imageRef: '',
          createdAt: new Date(rec.createdAt), startedAt: new Date(rec.startedAt),
          ...(alive ? {} : { exitCode: readExitCode(dir) ?? 137, finishedAt: exitTime(dir) ?? new Date() }),
        };
        this.track(p, dir, rec, state);
      }
      this.opts.logger.info('adopted pod from host processes', { pod: `${p.namespace}/${p.name}`, containers: list.length, running });
    }
  }

  // --- helpers ------------------------------------------------------------

  private instance(uid: string, containerID: string): Instance {
    const inst = this.byID.get(containerID.slice(containerID.indexOf('://') + 3));
    if (!inst || inst.uid !== uid) throw new Error(`container ${containerID} of pod ${uid} is not known to the runtime`);
    return inst;
  }

  private emit(p: PodEntry): void {
    p.epoch++;
    this.events.emit(p.uid);
  }
}

function signalGroup(rec: InstanceRecord, signal: NodeJS.Signals): void {
  // Only our process: after a pid reuse the group may be someone else's.
  if (!processAlive(rec)) return;
  try { process.kill(-rec.pid, signal); } catch { /* already gone */ }
}

const signalNumber = (signal: NodeJS.Signals): number => constants.signals[signal] ?? 9;

function exitTime(dir: string): Date | undefined {
  try { return statSync(`${dir}/exit`).mtime; } catch { return undefined; }
}
