/**
 * `curl` and busybox's `wget` in the simulated shell: no network, so a
 * request reaches only what the container's pod serves itself (the
 * responders of listeners.ts, through the runtime's `http` hook) at
 * localhost, 127.0.0.1, the pod's IP or its hostname; the answer is the
 * one port-forward gets. Any other host cannot be resolved (curl's `(6)
 * Could not resolve host`, busybox wget's `bad address`), an address other
 * than the pod's cannot be reached (curl's `(7)`), as in a pod without a
 * route out. Options beyond those below are refused as curl refuses an
 * unknown one (exit 2).
 */
import type { ShellContext } from './shell.js';

export interface HttpRequest { url: URL; method: string; headers: Record<string, string> }
export interface HttpResponse { status: number; statusText: string; httpVersion: string; rawHeaders: string[]; body: Buffer }
/** The answer, or why none came: the host is unknown (not the pod's), or nothing listens (refused). */
export type HttpOutcome = { response: HttpResponse; address: string } | { error: 'resolve' } | { error: 'connect'; address: string };

type Out = (stream: 'stdout' | 'stderr', text: string) => void;

/** The URL as curl reads it: no scheme means http. */
const parseURL = (arg: string): URL | undefined => {
  try { return new URL(/^[a-z][a-z0-9+.-]*:\/\//i.test(arg) ? arg : `http://${arg}`); } catch { return undefined; }
};

const defaultPort = (u: URL) => Number(u.port) || (u.protocol === 'https:' ? 443 : 80);

const statusLine = (r: HttpResponse) => `HTTP/${r.httpVersion} ${r.status} ${r.statusText}`;

const headerBlock = (r: HttpResponse) => {
  let s = `${statusLine(r)}\r\n`;
  for (let i = 0; i < r.rawHeaders.length; i += 2) s += `${r.rawHeaders[i]}: ${r.rawHeaders[i + 1]}\r\n`;
  return `${s}\r\n`;
};

const noHttp = async (): Promise<HttpOutcome> => ({ error: 'resolve' });

/** curl [-s] [-S] [-i] [-I] [-f] [-L] [-v] [-k] [-X METHOD] [-H HEADER] [-m SECONDS] URL. */
export async function curl(args: string[], ctx: ShellContext, out: Out): Promise<number> {
  const o = { silent: false, showError: false, include: false, head: false, fail: false, method: 'GET', headers: {} as Record<string, string> };
  const urls: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (!a.startsWith('-') || a === '-') { urls.push(a); continue; }
    if (a === '-X' || a === '--request') { o.method = args[++i] ?? 'GET'; continue; }
    if (a === '-H' || a === '--header') { const [k, ...v] = (args[++i] ?? '').split(':'); o.headers[k!.trim()] = v.join(':').trim(); continue; }
    if (a === '-m' || a === '--max-time' || a === '--connect-timeout') { i++; continue; }
    const long: Record<string, string> = { '--silent': 's', '--show-error': 'S', '--include': 'i', '--head': 'I', '--fail': 'f', '--location': 'L', '--verbose': 'v', '--insecure': 'k' };
    const flags = a.startsWith('--') ? long[a] : a.slice(1);
    if (!flags || ![...flags].every((f) => 'sSiIfLvk'.includes(f))) {
      out('stderr', `curl: option ${a}: is unknown\ncurl: try 'curl --help' or 'curl --manual' for more information\n`);
      return 2;
    }
    for (const f of flags) {
      if (f === 's') o.silent = true; else if (f === 'S') o.showError = true; else if (f === 'i') o.include = true;
      else if (f === 'I') { o.head = true; o.method = 'HEAD'; } else if (f === 'f') o.fail = true;
    }
  }
  const error = (code: number, text: string) => { if (!o.silent || o.showError) out('stderr', `curl: (${code}) ${text}\n`); return code; };
  if (!urls.length) { out('stderr', "curl: try 'curl --help' or 'curl --manual' for more information\n"); return 2; }
  let status = 0;
  for (const arg of urls) {
    const url = parseURL(arg);
    if (!url || !url.hostname) { status = error(3, 'URL rejected: Malformed input to a URL function'); continue; }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') { status = error(1, `Protocol "${url.protocol.slice(0, -1)}" not supported`); continue; }
    const r = await (ctx.http ?? noHttp)({ url, method: o.method, headers: o.headers });
    const host = url.hostname.replace(/^\[|\]$/g, '');
    if ('error' in r) {
      status = r.error === 'resolve' ? error(6, `Could not resolve host: ${host}`) : error(7, `Failed to connect to ${host} port ${defaultPort(url)} after 0 ms: Couldn't connect to server`);
      continue;
    }
    if (o.fail && r.response.status >= 400) { status = error(22, `The requested URL returned error: ${r.response.status}`); continue; }
    if (o.include || o.head) out('stdout', headerBlock(r.response));
    if (!o.head) out('stdout', r.response.body.toString('utf8'));
  }
  return status;
}

/** busybox wget [-q] [-O FILE|-] [-S] URL: `-qO-` prints the body; without -O the file is saved as the URL's last name (index.html). */
export async function wget(args: string[], ctx: ShellContext, out: Out): Promise<number> {
  let quiet = false;
  let output: string | undefined;
  let target: string | undefined;
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    const m = /^-([qSOT]+)(.*)$/.exec(a);
    if (!m) { target = a; continue; }
    if (m[1]!.includes('q')) quiet = true;
    if (m[1]!.endsWith('O')) output = m[2] || args[++i];
    if (m[1]!.endsWith('T')) i += m[2] ? 0 : 1;
  }
  const url = target === undefined ? undefined : parseURL(target);
  if (!url) { out('stderr', 'BusyBox wget: a URL is needed\n'); return 1; }
  const host = url.hostname.replace(/^\[|\]$/g, '');
  const r = await (ctx.http ?? noHttp)({ url, method: 'GET', headers: {} });
  if ('error' in r) {
    if (r.error === 'resolve') { out('stderr', `wget: bad address '${host}'\n`); return 1; }
    if (!quiet) out('stderr', `Connecting to ${url.host} (${r.address}:${defaultPort(url)})\n`);
    out('stderr', `wget: can't connect to remote host (${r.address}): Connection refused\n`);
    return 1;
  }
  if (!quiet) out('stderr', `Connecting to ${url.host} (${r.address}:${defaultPort(url)})\n`);
  if (r.response.status >= 400) { out('stderr', `wget: server returned error: ${statusLine(r.response)}\n`); return 1; }
  const file = output ?? (url.pathname.split('/').pop() || 'index.html');
  if (file === '-') {
    if (!quiet) out('stderr', 'writing to stdout\n');
    out('stdout', r.response.body.toString('utf8'));
    if (!quiet) out('stderr', `${progressLine('-', r.response.body.length)}written to stdout\n`);
    return 0;
  }
  const failed = ctx.writeFile ? ctx.writeFile(file, r.response.body) : 'Read-only file system';
  if (failed) { out('stderr', `wget: can't open '${file}': ${failed}\n`); return 1; }
  if (!quiet) out('stderr', `saving to '${file}'\n${progressLine(file, r.response.body.length)}'${file}' saved\n`);
  return 0;
}

/** busybox wget's last progress line (its bar full, as when the transfer ended; no terminal width is known). */
function progressLine(name: string, bytes: number): string {
  const size = bytes < 100_000 ? String(bytes) : `${Math.round(bytes / 1024)}k`;
  return `${name.padEnd(21)}100% |${'*'.repeat(32)}| ${size.padStart(5)}  0:00:00 ETA\n`;
}
