/**
 * agnhost's `netexec` subcommand (test/images/agnhost/netexec), the server of
 * the Hello Minikube tutorial: `kubectl create deployment hello-node
 * --image=registry.k8s.io/e2e-test-images/agnhost:2.53 -- /agnhost netexec
 * --http-port=8080`. It answers on --http-port (8080) as the Go server does:
 *
 *  - `/` and any path no other handler takes (Go's ServeMux routes them to
 *    "/"): `NOW: ` and Go's `%v` of time.Now();
 *  - `/hostname`, `/hostName`: the pod's hostname, no newline;
 *  - `/echo?msg=M&code=C`: M, with status C;
 *  - `/clientip`: the client's `address:port`;
 *  - `/healthz`: 200 once the UDP server runs, 412 when it is off
 *    (`--udp-port=-1`);
 *  - `/redirect?location=L&code=C`: Go's http.Redirect (302 by default).
 *
 * Its log is klog's rendering of Go's standard logger (`I0911 09:19:26.677397
 * 1 log.go:195] Started HTTP server on port 8080`), one line a request, as the
 * tutorial's `kubectl logs` shows. Not simulated, and answered with a 501 that
 * says so rather than a made-up result: `/shell`, `/upload`, `/dial`, `/exit`,
 * `/shutdown`, and the UDP server itself (only TCP is simulated).
 */
import type { ImageListener, ListenerContext } from './listeners.js';
import { goError, goRedirect, goWrite } from './go-http.js';

interface NetexecFlags { httpPort: number; udpPort: number }

/** pflag's int flags, as `--name=V` or `--name V`; undefined when an argument is not a netexec flag it knows or a value is not an integer. */
export function netexecFlags(args: string[]): NetexecFlags | undefined {
  const flags: NetexecFlags = { httpPort: 8080, udpPort: 8081 };
  for (let i = 0; i < args.length; i++) {
    const m = /^--?([a-z-]+)(?:=(.*))?$/.exec(args[i]!);
    if (!m) return undefined;
    const value = m[2] ?? args[++i];
    if (value === undefined) return undefined;
    const n = Number(value);
    if (m[1] === 'http-port' || m[1] === 'udp-port' || m[1] === 'sctp-port') {
      if (!/^-?\d+$/.test(value)) return undefined;
      if (m[1] === 'http-port') flags.httpPort = n;
      if (m[1] === 'udp-port') flags.udpPort = n;
    }
    // Other flags (--tls-cert-file, --http-override, --udp-listen-addresses) take a value and change nothing simulated here.
  }
  return flags;
}

const pad = (n: number, width = 2) => String(n).padStart(width, '0');

/** klog's header of a line Go's standard logger writes (agnhost routes `log` through klog): `I1206 20:02:37.274778       1 log.go:195] `. */
function klogLine(at: Date, micros: number, message: string): string {
  const stamp = `${pad(at.getUTCMonth() + 1)}${pad(at.getUTCDate())} ${pad(at.getUTCHours())}:${pad(at.getUTCMinutes())}:${pad(at.getUTCSeconds())}.${pad(micros, 6)}`;
  return `I${stamp}       1 log.go:195] ${message}\n`;
}

const microsOf = (at: Date, extra = 0) => at.getUTCMilliseconds() * 1000 + extra;

/** Go's `%v` of a time.Time from time.Now() in a UTC container: `2026-12-06 20:02:37.274778123 +0000 UTC m=+12.345678901`. */
export function goNow(now: Date, startedAt: Date, subMillisNanos = 0): string {
  const nanos = now.getUTCMilliseconds() * 1_000_000 + subMillisNanos;
  const fraction = nanos ? `.${String(nanos).padStart(9, '0').replace(/0+$/, '')}` : '';
  const date = `${now.getUTCFullYear()}-${pad(now.getUTCMonth() + 1)}-${pad(now.getUTCDate())}`;
  const time = `${pad(now.getUTCHours())}:${pad(now.getUTCMinutes())}:${pad(now.getUTCSeconds())}${fraction}`;
  const monotonic = ((now.getTime() - startedAt.getTime()) / 1000 + subMillisNanos / 1e9).toFixed(9);
  return `${date} ${time} +0000 UTC m=+${monotonic}`;
}

/** The client's port as the container's server would see it: one of Linux's ephemeral ports (the simulated connection has none of its own). */
const ephemeralPort = () => 32768 + Math.floor(Math.random() * (60999 - 32768));

function respond(flags: NetexecFlags): NonNullable<ImageListener['respond']> {
  return (req, res, ctx: ListenerContext) => {
    const url = new URL(req.url ?? '/', 'http://netexec');
    const q = url.searchParams;
    const out = ctx.stdout;
    const logLine = (message: string) => { if (out) { const at = out.now(); out.write(klogLine(at, microsOf(at), message)); } };
    switch (url.pathname) {
      case '/hostname':
      case '/hostName':
        logLine(`GET ${url.pathname}`);
        goWrite(res, 200, ctx.hostname);
        return;
      case '/echo': {
        const msg = q.get('msg') ?? '';
        const code = q.get('code') ?? '';
        logLine(`GET /echo?msg=${msg}&code=${code}`);
        if (code && !/^[+-]?\d+$/.test(code)) { goWrite(res, 200, `argument 'code' must be an integer or empty, got ${JSON.stringify(code)}\n`); return; }
        goWrite(res, code ? Number(code) : 200, msg);
        return;
      }
      case '/clientip':
        logLine('GET /clientip');
        goWrite(res, 200, `${ctx.remoteAddress}:${ephemeralPort()}`);
        return;
      case '/healthz':
        logLine('GET /healthz');
        goWrite(res, flags.udpPort === -1 ? 412 : 200, '');
        return;
      case '/redirect': {
        const location = q.get('location') ?? '';
        const code = q.get('code') ?? '';
        logLine(`${req.method} /redirect?msg=${location}&code=${code}`);
        if (code && !/^[+-]?\d+$/.test(code)) { goWrite(res, 200, `argument 'code' must be an integer or empty, got ${JSON.stringify(code)}\n`); return; }
        goRedirect(req, res, location, code ? Number(code) : 302);
        return;
      }
      case '/shell': case '/upload': case '/dial': case '/exit': case '/shutdown':
        goError(res, 501, `k8ts: agnhost netexec's ${url.pathname} is not simulated on a simulated node; run the pod on a containerd node`);
        return;
      default: {
        logLine('GET /');
        const now = ctx.now?.() ?? new Date();
        goWrite(res, 200, `NOW: ${goNow(now, ctx.startedAt ?? now, Math.floor(Math.random() * 1_000_000))}`);
      }
    }
  };
}

/** netexec as started by `args` (what follows the subcommand); undefined when a flag is not one pflag would take. */
export function netexecListener(args: string[]): ImageListener | undefined {
  const flags = netexecFlags(args);
  if (!flags) return undefined;
  return {
    ports: () => [flags.httpPort],
    respond: respond(flags),
    namedByCommand: true,
    // main() starts the UDP server's goroutine, then logs the HTTP server's start: the HTTP line comes first.
    startLog: (at) => klogLine(at, microsOf(at, 397), `Started HTTP server on port ${flags.httpPort}`)
      + (flags.udpPort === -1 ? '' : klogLine(at, microsOf(at, 586), `Started UDP server on port  ${flags.udpPort}`)),
  };
}
