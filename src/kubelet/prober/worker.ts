/**
 * One probe of one container (upstream pkg/kubelet/prober/worker.go): a
 * timer every periodSeconds runs the probe against the container's current
 * instance and turns the outcomes into a result with the thresholds.
 *
 *  - A new instance (another container ID) starts over: readiness begins
 *    Failure, liveness Success, startup Unknown; a worker put on hold by a
 *    liveness/startup failure probes again only once the instance changed.
 *  - Nothing is probed while the container is not running, before
 *    initialDelaySeconds have passed since it started, and (liveness,
 *    readiness) before the startup probe succeeded; the startup probe stops
 *    once it has.
 *  - A result is set after failureThreshold consecutive failures or
 *    successThreshold consecutive successes; a probe error keeps the last result.
 *  - A container that is not running reads Failure (readiness, liveness).
 */
import type { Timers, TimerHandle } from '../timers.js';

export type ProbeType = 'liveness' | 'readiness' | 'startup';
export type ProbeResult = 'success' | 'failure' | 'unknown';

/** What running one probe gave: an error is neither success nor failure (upstream probe.Unknown with err). */
export interface ProbeOutcome {
  result: 'success' | 'failure' | 'error';
  output: string;
}

/** The probe's timing fields with upstream's defaults (v1 SetDefaults_Probe). */
export interface ProbeTiming {
  initialDelaySeconds: number;
  periodSeconds: number;
  timeoutSeconds: number;
  successThreshold: number;
  failureThreshold: number;
}

export function probeTiming(probe: any): ProbeTiming {
  const pos = (v: unknown, d: number) => (typeof v === 'number' && v > 0 ? v : d);
  return {
    initialDelaySeconds: typeof probe?.initialDelaySeconds === 'number' && probe.initialDelaySeconds > 0 ? probe.initialDelaySeconds : 0,
    periodSeconds: pos(probe?.periodSeconds, 10),
    timeoutSeconds: pos(probe?.timeoutSeconds, 1),
    successThreshold: pos(probe?.successThreshold, 1),
    failureThreshold: pos(probe?.failureThreshold, 3),
  };
}

/** The container as the worker sees it at each tick. */
export interface ProbedContainer {
  id: string;
  running: boolean;
  startedAt?: Date;
  /** Started as the startup probe says (true when there is none). */
  started: boolean;
}

export interface ProbeWorkerDeps {
  type: ProbeType;
  timing: ProbeTiming;
  timers: Timers;
  /** The container's current instance, or undefined when the runtime has none. */
  container(): ProbedContainer | undefined;
  run(containerID: string): Promise<ProbeOutcome>;
  /** Called when the result (for that instance) changed. */
  onResult(containerID: string, result: ProbeResult): void;
  /** Every failed or errored probe (for the Unhealthy event). */
  onProbeFailure?(outcome: ProbeOutcome): void;
}

const initialResult: Record<ProbeType, ProbeResult> = { readiness: 'failure', liveness: 'success', startup: 'unknown' };

export class ProbeWorker {
  private containerID = '';
  private result: ProbeResult;
  private lastOutcome?: 'success' | 'failure';
  private run = 0;
  private onHold = false;
  private timer?: TimerHandle;
  private probing = false;
  private stopped = false;

  constructor(private readonly deps: ProbeWorkerDeps) {
    this.result = initialResult[deps.type];
  }

  /** Probes now, then every periodSeconds until stop(). */
  start(): void { this.tick(); }

  stop(): void {
    this.stopped = true;
    if (this.timer) this.deps.timers.clearTimeout(this.timer);
    this.timer = undefined;
  }

  /** The current result and the instance it is about. */
  current(): { containerID: string; result: ProbeResult } { return { containerID: this.containerID, result: this.result }; }

  /**
   * Probes now, off the period (upstream's manualTriggerCh): the status of a
   * running instance the readiness worker has not seen asks for a result, so
   * a container created between two ticks is not left unready a whole
   * period. The periodic timer keeps its cadence.
   */
  trigger(): void {
    if (this.stopped || this.probing) return;
    this.probing = true;
    void this.doProbe().catch(() => undefined).finally(() => { this.probing = false; });
  }

  private tick(): void {
    if (this.stopped) return;
    this.timer = undefined;
    const schedule = () => {
      if (!this.stopped) this.timer = this.deps.timers.setTimeout(() => this.tick(), this.deps.timing.periodSeconds * 1000);
    };
    if (this.probing) { schedule(); return; }
    this.probing = true;
    void this.doProbe().catch(() => undefined).finally(() => { this.probing = false; schedule(); });
  }

  private set(result: ProbeResult): void {
    if (result === this.result) return;
    this.result = result;
    this.deps.onResult(this.containerID, result);
  }

  /** One round (upstream doProbe). */
  private async doProbe(): Promise<void> {
    const { type, timing, timers } = this.deps;
    const c = this.deps.container();
    if (!c || !c.id) return;
    if (c.id !== this.containerID) {
      this.containerID = c.id;
      this.onHold = false;
      this.lastOutcome = undefined;
      this.run = 0;
      this.result = initialResult[type];
      this.deps.onResult(c.id, this.result);
    }
    if (!c.running) {
      if (type !== 'startup') this.set('failure');
      return;
    }
    if (this.onHold) return;
    if (type !== 'startup' && !c.started) return;
    if (type === 'startup' && c.started) return;
    const since = timers.now().getTime() - (c.startedAt?.getTime() ?? timers.now().getTime());
    if (Math.floor(since / 1000) < timing.initialDelaySeconds) return;

    const id = c.id;
    const outcome = await this.deps.run(id);
    if (this.stopped || id !== this.containerID) return;
    if (outcome.result !== 'success') this.deps.onProbeFailure?.(outcome);
    if (outcome.result === 'error') return;
    this.run = this.lastOutcome === outcome.result ? this.run + 1 : 1;
    this.lastOutcome = outcome.result;
    if (outcome.result === 'failure' && this.run < timing.failureThreshold) return;
    if (outcome.result === 'success' && this.run < timing.successThreshold) return;
    this.set(outcome.result);
    if ((type === 'liveness' || type === 'startup') && outcome.result === 'failure') {
      // The container is being killed: wait for its next instance.
      this.onHold = true;
      this.run = 0;
    }
  }
}
