/**
 * Probe timing on a simulated node: no probe runs, every probe succeeds, but
 * only when the kubelet's first successful probes would: a startup probe
 * after initialDelaySeconds plus one periodSeconds tick (successThreshold is
 * 1 for startup probes), a readiness probe after its initialDelaySeconds
 * plus successThreshold ticks, counted from when the container started or,
 * with a startup probe, from when that succeeded if later (upstream runs no
 * readiness probe before the container is started). Liveness probes succeed
 * and never restart a simulated container.
 */
import type { Container, Probe } from 'kubernetes-types/core/v1.js';

export interface ProbeDelays {
  /** Container start → started (startup probe succeeded); undefined without a startup probe. */
  startedAfterMs?: number;
  /** Container start → ready as far as the readiness probe is concerned (0 without one). */
  readyAfterMs: number;
}

const firstSuccessMs = (p: Probe, ticks = p.successThreshold ?? 1) => ((p.initialDelaySeconds ?? 0) + (p.periodSeconds ?? 10) * Math.max(1, ticks)) * 1000;

export function probeDelays(c: Container | undefined): ProbeDelays {
  const startedAfterMs = c?.startupProbe ? firstSuccessMs(c.startupProbe, 1) : undefined;
  const r = c?.readinessProbe;
  const readyAfterMs = r ? Math.max(startedAfterMs ?? 0, (r.initialDelaySeconds ?? 0) * 1000) + firstSuccessMs({ ...r, initialDelaySeconds: 0 }) : startedAfterMs ?? 0;
  return { startedAfterMs, readyAfterMs };
}
