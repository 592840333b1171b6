/**
 * Pod annotations that steer the simulated runtime (the KWOK idea: a pod's
 * lifecycle is scripted, no container runs). Durations are Go durations
 * ("500ms", "5s", "1m"); an invalid value is ignored.
 *
 *   k8ts.io/sim-start-delay: "2s"      containers start this long after the pod
 *                                       reaches the node (default: the node's
 *                                       startDelay); until then the pod is
 *                                       Pending with ContainerCreating
 *   k8ts.io/sim-ready-delay: "3s"      containers become ready this long after
 *                                       they start (default: the node's readyDelay)
 *   k8ts.io/sim-ready: "false"         containers stay not ready (Running 0/1)
 *                                       until the annotation is removed or set
 *                                       to "true" (a failing readiness probe)
 *   k8ts.io/sim-fail-after: "5s"       this long after starting, every container
 *                                       exits with code 1 (reason Error): see
 *                                       restartPolicy below
 *   k8ts.io/sim-fail-after: "web=5s,side=1m"
 *                                       the named containers each crash this long
 *                                       after their own (re)start; the others run on
 *   k8ts.io/sim-liveness-fail: "web=10s"
 *   k8ts.io/sim-readiness-fail: "5s-20s"
 *   k8ts.io/sim-startup-fail: "0s-30s" a probe of that type (of the named container,
 *                                       or of every container) answers failure while
 *                                       its instance has run for [from, to) (no "to":
 *                                       from then on); the prober's thresholds decide
 *                                       what follows (probeFailure below)
 *   k8ts.io/sim-complete-after: "3s"   this long after starting, every container
 *                                       exits with code 0 (reason Completed) and
 *                                       the pod's phase becomes Succeeded
 *   k8ts.io/sim-exit-code: "2"         exit code for sim-fail-after (default 1)
 *
 * An injected failure is a crash and obeys restartPolicy as the kubelet does:
 * Always and OnFailure restart the containers with the crash back-off (10 s
 * doubling to 5 min, CrashLoopBackOff while waiting, restartCount grows);
 * only Never ends the pod Failed. Completion ends the pod Succeeded whatever
 * its restartPolicy (a scripted finish). When both are set, the earlier wins;
 * after a restart the script runs again from the new start.
 *
 * Run-to-completion pods (restartPolicy Never or OnFailure, as Jobs make)
 * without either annotation end by themselves `runToCompletionMs` (1 s) after
 * starting: with exit code 0, or with k8ts.io/sim-exit-code when it is set
 * (a non-zero code fails them, or under OnFailure crash-loops them).
 */
import type { Pod } from 'kubernetes-types/core/v1.js';
import { parseDuration } from '../../duration.js';

export const annotationStartDelay = 'k8ts.io/sim-start-delay';
export const annotationReadyDelay = 'k8ts.io/sim-ready-delay';
export const annotationReady = 'k8ts.io/sim-ready';
export const annotationFailAfter = 'k8ts.io/sim-fail-after';
export const annotationCompleteAfter = 'k8ts.io/sim-complete-after';
export const annotationExitCode = 'k8ts.io/sim-exit-code';
export const annotationLivenessFail = 'k8ts.io/sim-liveness-fail';
export const annotationReadinessFail = 'k8ts.io/sim-readiness-fail';
export const annotationStartupFail = 'k8ts.io/sim-startup-fail';

export type SimProbeType = 'liveness' | 'readiness' | 'startup';
const probeAnnotation: Record<SimProbeType, string> = {
  liveness: annotationLivenessFail, readiness: annotationReadinessFail, startup: annotationStartupFail,
};

/** How long a run-to-completion container runs when no annotation says otherwise. */
export const runToCompletionMs = 1000;

export interface SimScript {
  startDelayMs?: number;
  readyDelayMs?: number;
  /** False while k8ts.io/sim-ready is "false". */
  readinessAllowed: boolean;
  end?: { afterMs: number; phase: 'Succeeded' | 'Failed'; exitCode: number };
}

/** restartPolicy Never or OnFailure: the containers are meant to finish. */
export const runsToCompletion = (pod: Pod | undefined) => ['Never', 'OnFailure'].includes(pod?.spec?.restartPolicy ?? '');

export function simScript(pod: Pod | undefined): SimScript {
  const a: Record<string, string> = pod?.metadata?.annotations ?? {};
  // "web=5s" names containers: a per-container crash (containerCrashes), not the pod-wide script.
  const failAfter = a[annotationFailAfter]?.includes('=') ? undefined : parseDuration(a[annotationFailAfter]);
  const completeAfter = parseDuration(a[annotationCompleteAfter]);
  const code = a[annotationExitCode] === undefined ? NaN : Number(a[annotationExitCode]);
  const exitCode = Number.isInteger(code) && code > 0 && code < 256 ? code : 1;
  let end: SimScript['end'];
  if (failAfter !== undefined && (completeAfter === undefined || failAfter <= completeAfter)) end = { afterMs: failAfter, phase: 'Failed', exitCode };
  else if (completeAfter !== undefined) end = { afterMs: completeAfter, phase: 'Succeeded', exitCode: 0 };
  else if (runsToCompletion(pod)) {
    const fails = Number.isInteger(code) && code > 0 && code < 256;
    end = { afterMs: runToCompletionMs, phase: fails ? 'Failed' : 'Succeeded', exitCode: fails ? code : 0 };
  }
  return {
    startDelayMs: parseDuration(a[annotationStartDelay]),
    readyDelayMs: parseDuration(a[annotationReadyDelay]),
    readinessAllowed: String(a[annotationReady] ?? '').toLowerCase() !== 'false',
    end,
  };
}

/** Entries `[container=]value` of a comma-separated annotation; an entry without a name is for every container (''). */
function entries(value: string | undefined): { container: string; value: string }[] {
  return (value ?? '').split(',').map((e) => e.trim()).filter(Boolean).map((e) => {
    const i = e.indexOf('=');
    return i < 0 ? { container: '', value: e } : { container: e.slice(0, i).trim(), value: e.slice(i + 1).trim() };
  });
}

/** The entry for a container: its own, else the one for every container. */
function entryFor(value: string | undefined, container: string): string | undefined {
  const all = entries(value);
  return (all.find((e) => e.container === container) ?? all.find((e) => e.container === ''))?.value;
}

/**
 * k8ts.io/sim-fail-after in its per-container form ("web=5s,side=1m"): how
 * long after its own start each named container crashes, with the exit code.
 */
export function containerCrashes(pod: Pod | undefined): Map<string, { afterMs: number; exitCode: number }> {
  const a: Record<string, string> = pod?.metadata?.annotations ?? {};
  const out = new Map<string, { afterMs: number; exitCode: number }>();
  if (!a[annotationFailAfter]?.includes('=')) return out;
  const code = Number(a[annotationExitCode]);
  const exitCode = Number.isInteger(code) && code > 0 && code < 256 ? code : 1;
  for (const e of entries(a[annotationFailAfter])) {
    const ms = parseDuration(e.value);
    if (e.container && ms !== undefined) out.set(e.container, { afterMs: ms, exitCode });
  }
  return out;
}

/**
 * Whether the simulated probe of that type fails for a container whose
 * instance has run `ranMs`: the annotation's window `from[-to]` for that
 * container (or for every container) covers it.
 */
export function probeFails(pod: Pod | undefined, type: SimProbeType, container: string, ranMs: number): boolean {
  const v = entryFor(pod?.metadata?.annotations?.[probeAnnotation[type]], container);
  if (v === undefined) return false;
  const dash = v.indexOf('-');
  const from = parseDuration(dash < 0 ? v : v.slice(0, dash));
  const to = dash < 0 ? Infinity : parseDuration(v.slice(dash + 1));
  if (from === undefined || to === undefined) return false;
  return ranMs >= from && ranMs < to;
}

/**
 * Whether the pod steers its probes of that type by annotation: then
 * the annotation decides, even for an exec probe the simulated shell could run.
 */
export function probeAnnotated(pod: Pod | undefined, type: SimProbeType): boolean {
  return pod?.metadata?.annotations?.[probeAnnotation[type]] !== undefined;
}
