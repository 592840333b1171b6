/**
 * Container lifecycle hooks (upstream pkg/kubelet/lifecycle/handlers.go
 * HandlerRunner.Run, kuberuntime_container.go startContainer step 4 and
 * executePreStopHook), v1.32:
 *
 *  1. exec runs the command in the container (CRI ExecSync, no timeout of
 *     its own); a non-zero exit fails the hook.
 *  2. httpGet GETs scheme://host:port/path from the node, host defaulting to
 *     the pod IP; only a transport error fails it (any status code passes).
 *  3. sleep waits its seconds; tcpSocket is deprecated and does nothing but
 *     log (upstream: "tcpSocket is not supported").
 *  4. postStart runs right after StartContainer; when it fails the kubelet
 *     records FailedPostStartHook (Warning) and kills the container, which is
 *     then restarted per the restart policy.
 *  5. preStop runs before StopContainer and gets at most the grace period;
 *     a failure records FailedPreStopHook (Warning). StopContainer gets what
 *     is left of the grace period, at least 2 s.
 * The messages are upstream's.
 */
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { Container, LifecycleHandler, Pod } from 'kubernetes-types/core/v1.js';
import { resolvePort } from '../../prober/probe.js';

export interface HookTarget {
  pod: Pod;
  container: Container;
  /** Runs a command in the container: its exit code and combined output. */
  exec(cmd: string[]): Promise<{ exitCode: number; output: string }>;
  podIP?: string;
}

const formatPod = (pod: Pod) => `${pod.metadata!.name}_${pod.metadata!.namespace}(${pod.metadata!.uid})`;

function httpGet(url: URL, headers: Record<string, string>): Promise<void> {
  return new Promise((resolve, reject) => {
    const req = (url.protocol === 'https:' ? httpsRequest : httpRequest)(url, { method: 'GET', headers, rejectUnauthorized: false }, (res) => {
      res.resume();
      res.on('end', () => resolve());
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

async function runHTTPHandler(h: NonNullable<LifecycleHandler['httpGet']>, t: HookTarget): Promise<string | undefined> {
  const port = resolvePort(h.port, t.container);
  const fail = (err: string) => `HTTP lifecycle hook (${h.path ?? ''}) for Container "${t.container.name}" in Pod "${formatPod(t.pod)}" failed - error: ${err}`;
  if (port instanceof Error) return fail(port.message);
  const host = h.host || t.podIP;
  if (!host) return fail('pod has no IP');
  let path = h.path ?? '';
  if (path && !path.startsWith('/')) path = `/${path}`;
  const url = new URL(`${(h.scheme ?? 'HTTP').toLowerCase()}://${host.includes(':') ? `[${host}]` : host}:${port}${path}`);
  const headers: Record<string, string> = {};
  for (const x of h.httpHeaders ?? []) headers[x.name] = x.value;
  try {
    await httpGet(url, headers);
    return undefined;
  } catch (e) {
    return fail(`Get "${url.toString()}": ${(e as Error).message}`);
  }
}

/** Runs one handler; resolves with upstream's failure message, or undefined when it succeeded. */
export async function runLifecycleHandler(h: LifecycleHandler, t: HookTarget): Promise<string | undefined> {
  if (h.exec) {
    const cmd = h.exec.command ?? [];
    try {
      const r = await t.exec(cmd);
      if (r.exitCode === 0) return undefined;
      return `Exec lifecycle hook ([${cmd.join(' ')}]) for Container "${t.container.name}" in Pod "${formatPod(t.pod)}" failed - error: command '${cmd.join(' ')}' exited with ${r.exitCode}: ${r.output}, message: "${r.output}"`;
    } catch (e) {
      return `Exec lifecycle hook ([${cmd.join(' ')}]) for Container "${t.container.name}" in Pod "${formatPod(t.pod)}" failed - error: ${(e as Error).message}, message: ""`;
    }
  }
  if (h.httpGet) return runHTTPHandler(h.httpGet, t);
  if (h.sleep) {
    await new Promise((r) => setTimeout(r, Math.max(0, h.sleep!.seconds) * 1000));
    return undefined;
  }
  return undefined; // tcpSocket: deprecated, a no-op upstream too
}

/** A preStop hook bounded by the grace period: resolves with the failure message, 'timeout', or undefined. */
export async function runPreStopHook(h: LifecycleHandler, t: HookTarget, gracePeriodSeconds: number): Promise<string | undefined> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<string>((r) => { timer = setTimeout(() => r('timeout'), gracePeriodSeconds * 1000); });
  try {
    return await Promise.race([runLifecycleHandler(h, t), timeout]);
  } finally {
    clearTimeout(timer);
  }
}
