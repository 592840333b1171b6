/**
 * Probe timing on a simulated node: no probe runs, every probe succeeds, but
 * only when the kubelet's first successful probes would. Upstream's prober
 * worker probes at once and then every periodSeconds; a probe before
 * initialDelaySeconds is skipped, so the first success is at the first tick
 * at or after the initial delay, and the container counts as ready or started
 * after successThreshold consecutive successes (1 for startup probes). A
 * readiness probe only counts once the startup probe has succeeded. Liveness
 * probes succeed and never restart a simulated container.
 */
import type { Container, Probe } from 'kubernetes-types/core/v1.js';

export interface ProbeDelays {
  /** Container start → started (startup probe succeeded); undefined without a startup probe. */
  startedAfterMs?: number;
  /** Container start → ready as far as the readiness probe is concerned (0 without one). */
  readyAfterMs: number;
}

/** Seconds from container start to the probe's successThreshold-th success, its first counted tick at or after `notBefore`. */
function successAfterSeconds(p: Probe, notBefore: number, threshold = p.successThreshold ?? 1): number {
  const period = p.periodSeconds ?? 10;
  const first = Math.ceil(Math.max(notBefore, p.initialDelaySeconds ?? 0) / period) * period;
  return first + period * (Math.max(1, threshold) - 1);
}

export function probeDelays(c: Container | undefined): ProbeDelays {
  const started = c?.startupProbe ? successAfterSeconds(c.startupProbe, 0, 1) : undefined;
  const r = c?.readinessProbe;
  const ready = r ? successAfterSeconds(r, started ?? 0) : started ?? 0;
  return { startedAfterMs: started === undefined ? undefined : started * 1000, readyAfterMs: ready * 1000 };
}
