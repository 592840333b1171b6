/**
 * A container's preStop handler on a simulated node, as upstream's kubelet
 * runs it when the pod is deleted (kuberuntime_container.go killContainer →
 * executePreStopHook, handlers.go HandlerRunner.Run), v1.32:
 *
 *  1. It runs before the container is stopped and gets at most the pod's
 *     grace period (deletionGracePeriodSeconds, else
 *     terminationGracePeriodSeconds, else 30 s); the container is stopped
 *     when it returns or when that time is up, whatever its outcome.
 *  2. exec runs the command in the simulated shell against the instance's
 *     files (the Attach Handlers page's `nginx -s quit; while killall -0
 *     nginx; do sleep 1; done`, a handler that writes a file into a volume);
 *     a non-zero exit fails it.
 *  3. httpGet GETs the pod's own port through the container's simulated
 *     server (listeners.ts), as the kubelet's GET goes to the pod IP; only a
 *     transport error (a refused port) fails it: any status code passes.
 *  4. sleep waits its seconds (bounded by the grace period); tcpSocket does
 *     nothing (deprecated upstream, a no-op there too).
 *  5. A failure is upstream's FailedPreStopHook event (Warning), with its
 *     message; a handler cut off by the grace period records nothing.
 */
import type { Container, LifecycleHandler, Pod } from 'kubernetes-types/core/v1.js';
import type { Duplex } from 'node:stream';
import { httpProbe } from '../../prober/http.js';
import { resolvePort } from '../../prober/probe.js';
import type { Timers } from '../../timers.js';
import { refusedConnection } from './listeners.js';

export interface PreStopTarget {
  pod: Pod;
  container: Container;
  podIP?: string;
  /** Runs argv in the container's simulated shell: its exit code and output (stdout then stderr). */
  exec(argv: string[]): Promise<{ exitCode: number; output: string }>;
  /** A connection to the pod's port (the runtime's dialPort: refused where nothing listens). */
  dial(port: number): Duplex;
  timers: Timers;
}

const formatPod = (pod: Pod) => `${pod.metadata?.name}_${pod.metadata?.namespace}(${pod.metadata?.uid})`;

/** The grace period the kubelet gives the hook, in seconds (upstream: deletionGracePeriodSeconds wins over the spec's). */
export function preStopGraceSeconds(pod: Pod): number {
  return pod.metadata?.deletionGracePeriodSeconds ?? pod.spec?.terminationGracePeriodSeconds ?? 30;
}

async function execHandler(cmd: string[], t: PreStopTarget): Promise<string | undefined> {
  const r = await t.exec(cmd);
  if (r.exitCode === 0) return undefined;
  const c = cmd.join(' ');
  return `Exec lifecycle hook ([${c}]) for Container "${t.container.name}" in Pod "${formatPod(t.pod)}" failed - error: command '${c}' exited with ${r.exitCode}: ${r.output}, message: "${r.output}"`;
}

async function httpHandler(h: NonNullable<LifecycleHandler['httpGet']>, t: PreStopTarget): Promise<string | undefined> {
  const fail = (err: string) => `HTTP lifecycle hook (${h.path ?? ''}) for Container "${t.container.name}" in Pod "${formatPod(t.pod)}" failed - error: ${err}`;
  const port = resolvePort(h.port, t.container);
  if (port instanceof Error) return fail(port.message);
  const host = h.host || t.podIP;
  if (!host) return fail('pod has no IP');
  let path = h.path ?? '';
  if (path && !path.startsWith('/')) path = `/${path}`;
  const url = new URL(`${(h.scheme ?? 'HTTP').toLowerCase()}://${host}:${port}${path}`);
  // Another host is outside what the simulation reaches: nobody answers there.
  const dial = (p: number) => (host === t.podIP ? t.dial(p) : refusedConnection(p));
  const got = await httpProbe({ url, timeoutMs: 10_000, headers: (h.httpHeaders ?? []).map((x) => ({ name: x.name, value: x.value })), connect: (u) => dial(Number(u.port) || 80) });
  // Any answer passes (upstream discards the response); only a transport error fails.
  return got.output.startsWith('Get "') ? fail(got.output) : undefined;
}

function runHandler(h: LifecycleHandler, t: PreStopTarget): Promise<string | undefined> {
  if (h.exec) return execHandler(h.exec.command ?? [], t);
  if (h.httpGet) return httpHandler(h.httpGet, t);
  if (h.sleep) return new Promise((r) => { t.timers.setTimeout(() => r(undefined), Math.max(0, h.sleep!.seconds) * 1000); });
  return Promise.resolve(undefined);
}

/**
 * Runs the container's preStop handler within the grace period: resolves
 * with upstream's failure message, or undefined when it succeeded, there is
 * none, or the grace period ran out first.
 */
export async function runPreStopHook(t: PreStopTarget, graceSeconds: number): Promise<string | undefined> {
  const h = t.container.lifecycle?.preStop;
  if (!h) return undefined;
  let timer: ReturnType<Timers['setTimeout']> | undefined;
  const timeout = new Promise<undefined>((r) => { timer = t.timers.setTimeout(() => r(undefined), Math.max(0, graceSeconds) * 1000); });
  try {
    return await Promise.race([runHandler(h, t).catch((e: Error) => e.message), timeout]);
  } finally {
    if (timer) t.timers.clearTimeout(timer);
  }
}

/** An exec's exit code and what it wrote (stdout then stderr), once it ended. */
export async function collectExec(s: { stdout: NodeJS.ReadableStream; stderr?: NodeJS.ReadableStream; done: Promise<number> }): Promise<{ exitCode: number; output: string }> {
  let out = '';
  let err = '';
  s.stdout.setEncoding('utf8');
  s.stdout.on('data', (d: string) => { out += d; });
  s.stderr?.setEncoding('utf8');
  s.stderr?.on('data', (d: string) => { err += d; });
  const exitCode = await s.done;
  return { exitCode, output: out + err };
}
