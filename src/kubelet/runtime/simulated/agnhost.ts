/**
 * Two test servers of the probes page (Configure Liveness, Readiness and
 * Startup Probes), answering as their images do:
 *
 *  - registry.k8s.io/e2e-test-images/agnhost with `args: [liveness]`
 *    (test/images/agnhost/liveness/server.go): on 8080, `/healthz` answers
 *    200 `ok` while the instance has run 10 s or less, then 500
 *    `error: <seconds>`; `/started` the uptime as Go prints a Duration;
 *    `/redirect?loc=X` a 302 to X; any other path Go's 404. So the page's
 *    http-liveness pod fails its probe after 10 s and is restarted.
 *  - registry.k8s.io/goproxy (an HTTP proxy, the tcp-liveness-readiness
 *    example) on 8080: a TCP probe connects; a request that is not a proxy
 *    request gets goproxy's 500. Proxying itself is not simulated.
 *
 * `netexec` (the Hello Minikube tutorial's server) is agnhost-netexec.ts.
 * Other agnhost subcommands listen on nothing here.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Container } from 'kubernetes-types/core/v1.js';
import type { ImageListener, ListenerContext } from './listeners.js';
import { netexecListener } from './agnhost-netexec.js';
import { goError, goRedirect, goWrite } from './go-http.js';

/** Go's %v of a float64 (shortest representation that reads back: what JavaScript prints too, for these magnitudes). */
const goFloat = (x: number) => String(x);

/** Go's time.Duration.String for a non-negative duration: `850ms`, `5.25s`, `1m30s`, `2h0m1s`. */
export function goDuration(ms: number): string {
  const ns = Math.round(ms * 1e6);
  if (ns === 0) return '0s';
  if (ns < 1e3) return `${ns}ns`;
  if (ns < 1e6) return `${trimFraction(ns / 1e3)}µs`;
  if (ns < 1e9) return `${trimFraction(ns / 1e6)}ms`;
  const totalSeconds = ns / 1e9;
  const h = Math.floor(totalSeconds / 3600);
  const m = Math.floor((totalSeconds - h * 3600) / 60);
  const s = trimFraction(Math.round((totalSeconds - h * 3600 - m * 60) * 1e9) / 1e9);
  if (h) return `${h}h${m}m${s}s`;
  if (m) return `${m}m${s}s`;
  return `${s}s`;
}

const trimFraction = (x: number) => x.toFixed(9).replace(/\.?0+$/, '');

/** agnhost liveness's handlers, against the instance's uptime. */
function liveness(req: IncomingMessage, res: ServerResponse, ctx: ListenerContext): void {
  const url = new URL(req.url ?? '/', 'http://agnhost');
  const now = ctx.now?.() ?? new Date();
  const upMs = now.getTime() - (ctx.startedAt ?? now).getTime();
  switch (url.pathname) {
    case '/healthz':
      if (upMs / 1000 > 10) goWrite(res, 500, `error: ${goFloat(upMs / 1000)}`);
      else goWrite(res, 200, 'ok');
      return;
    case '/started':
      goWrite(res, 200, goDuration(upMs));
      return;
    case '/redirect':
      goRedirect(req, res, url.searchParams.get('loc') ?? '', 302);
      return;
    default:
      goError(res, 404, '404 page not found');
  }
}

/** agnhost, for the subcommands simulated (`liveness`, `netexec`), when the image's entrypoint runs it. */
export function agnhostListener(spec: Container): ImageListener | undefined {
  const command = spec.command ?? [];
  const argv = command.length ? [...command, ...(spec.args ?? [])] : ['/agnhost', ...(spec.args ?? [])];
  if (!/(^|\/)agnhost$/.test(argv[0] ?? '')) return undefined;
  if (argv[1] === 'liveness') return { ports: () => [8080], respond: liveness };
  if (argv[1] === 'netexec') return netexecListener(argv.slice(2));
  return undefined;
}

/** goproxy's NonproxyHandler: every request here is not a proxy request. */
export const goproxyListener: ImageListener = {
  ports: () => [8080],
  respond: (_req, res) => goError(res, 500, 'This is a proxy server. Does not respond to non-proxy requests.'),
};
