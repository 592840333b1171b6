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

/** A request from the container; a body (curl -d) is sent with its Content-Length (pod-network.ts). */
/** timeoutMs: how long the client waits for a connection a NetworkPolicy drops (network-policy.ts); absent: forever. */
export interface HttpRequest {
  url: URL; method: string; headers: Record<string, string>; body?: Buffer; timeoutMs?: number;
  /** The headers the client sends of its own (curl's User-Agent and Accept when absent; busybox wget's `User-Agent: Wget`). */
  clientHeaders?: Record<string, string>;
  /** How an https client checks the server (in-cluster-apiserver.ts). */
  tls?: HttpsClient;
}
/**
 * curl's --cacert (the file's path and its text as the container holds it; undefined text: no such file) and
 * -k; busybox 1.28 wget's TLS, which offers RSA key exchange only.
 */
export interface HttpsClient { caFile?: string; caPem?: string; insecure?: boolean; rsaKeyExchangeOnly?: boolean }
/**
 * Why a TLS session did not come up: the chain does not verify (OpenSSL's words in `detail`), the
 * certificate does not name the URL's host, the CA file holds no certificate, or the server sent an alert.
 */
export type TlsFailure = { kind: 'chain'; detail: string } | { kind: 'name' } | { kind: 'cafile' } | { kind: 'alert'; code: number; text: string };
export interface HttpResponse { status: number; statusText: string; httpVersion: string; rawHeaders: string[]; body: Buffer }
/** The answer, or why none came: the host is unknown (not the pod's), nothing listens (refused), nothing answered in time (dropped), or TLS failed. */
export type HttpOutcome = { response: HttpResponse; address: string } | { error: 'resolve' } | { error: 'connect' | 'timeout'; address: string }
  | { error: 'tls'; address: string; failure: TlsFailure };

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

/** curl's connect timeout when -m does not set one (CURL_TIMEOUT_CONNECT, 300 s). */
const curlConnectTimeoutMs = 300_000;

/** curl's options that take a value (short and long): the value is the rest of a short cluster (`-sSo FILE`, `-oFILE`) or the next word. */
const curlValueShort = 'XHmowd';
const curlValueLong: Record<string, string> = {
  '--request': 'X', '--header': 'H', '--max-time': 'm', '--connect-timeout': 'm', '--output': 'o', '--write-out': 'w',
  '--retry': 'retry', '--retry-delay': 'retry', '--user-agent': 'A', '--data': 'd', '--data-ascii': 'd', '--data-raw': 'data-raw',
  '--data-binary': 'data-binary', '--cacert': 'cacert',
};
const curlFlagLong: Record<string, string> = {
  '--silent': 's', '--show-error': 'S', '--include': 'i', '--head': 'I', '--fail': 'f', '--location': 'L', '--verbose': 'v',
  '--insecure': 'k', '--remote-name': 'O', '--ipv4': '4', '--no-progress-meter': 's',
};

/**
 * curl's --write-out: %{variable} from the transfer, \\n \\r \\t as curl
 * reads them, %% a percent. Timings are zero, as nothing crossed a network.
 */
function writeOut(format: string, url: URL, r: HttpResponse, address: string): string {
  const vars: Record<string, string> = {
    http_code: String(r.status).padStart(3, '0'), response_code: String(r.status).padStart(3, '0'), http_version: r.httpVersion,
    size_download: String(r.body.length), size_header: String(Buffer.byteLength(headerBlock(r))), url_effective: url.href, url: url.href,
    content_type: headerValue(r, 'content-type') ?? '', remote_ip: address, remote_port: String(defaultPort(url)),
    num_redirects: '0', exitcode: '0', method: 'GET', scheme: url.protocol.slice(0, -1).toUpperCase(),
    time_total: '0.000000', time_connect: '0.000000', time_namelookup: '0.000000', time_starttransfer: '0.000000', time_appconnect: '0.000000',
  };
  return format.replace(/%\{([a-z_]+)\}|%%|\\([nrt\\])/g, (m, name: string | undefined, esc: string | undefined) => {
    if (esc) return esc === 'n' ? '\n' : esc === 'r' ? '\r' : esc === 't' ? '\t' : '\\';
    if (m === '%%') return '%';
    return vars[name!] ?? '';
  });
}

const headerValue = (r: HttpResponse, name: string): string | undefined => {
  for (let i = 0; i < r.rawHeaders.length; i += 2) if (r.rawHeaders[i]!.toLowerCase() === name) return r.rawHeaders[i + 1];
  return undefined;
};

/**
 * curl [-sSiIfLvkO4] [-X METHOD] [-H HEADER] [-A AGENT] [-d DATA] [-m SECONDS] [-o FILE] [-w FORMAT] [--retry N] URL...
 * Short flags cluster as curl's (`-sSL`, `-sSo /dev/null`); `-o /dev/null` discards the body;
 * `-d` POSTs its data (form-encoded unless -H names a type); without -s the
 * progress meter goes to stderr when stdout is not the exec's terminal.
 */
export async function curl(args: string[], ctx: ShellContext, out: Out): Promise<number> {
  const o = { silent: false, showError: false, include: false, head: false, fail: false, remoteName: false, insecure: false, caFile: undefined as string | undefined, method: 'GET', headers: {} as Record<string, string>, output: undefined as string | undefined, writeOut: undefined as string | undefined, data: [] as string[], maxTimeMs: curlConnectTimeoutMs };
  const urls: string[] = [];
  const unknown = (a: string) => {
    out('stderr', `curl: option ${a}: is unknown\ncurl: try 'curl --help' or 'curl --manual' for more information\n`);
    return 2;
  };
  const take = (opt: string, value: string | undefined, shown: string): number | undefined => {
    if (value === undefined) { out('stderr', `curl: option ${shown}: requires parameter\ncurl: try 'curl --help' or 'curl --manual' for more information\n`); return 2; }
    if (opt === 'X') o.method = value;
    else if (opt === 'H') { const [k, ...v] = value.split(':'); o.headers[k!.trim()] = v.join(':').trim(); }
    else if (opt === 'A') o.headers['User-Agent'] = value;
    else if (opt === 'o') o.output = value;
    else if (opt === 'w') o.writeOut = value;
    else if (opt === 'cacert') o.caFile = value;
    else if (opt === 'm' && Number(value) > 0) o.maxTimeMs = Number(value) * 1000;
    else if (opt === 'd' || opt === 'data-raw' || opt === 'data-binary') {
      const data = postData(opt, value, ctx);
      if (data === undefined) out('stderr', `Warning: Couldn't read data from file "${value.slice(1)}", this makes an empty \nWarning: POST.\n`);
      o.data.push(data ?? '');
      if (o.method === 'GET') o.method = 'POST';
    }
    return undefined;
  };
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (!a.startsWith('-') || a === '-') { urls.push(a); continue; }
    if (a.startsWith('--')) {
      const [name, inline] = a.includes('=') ? [a.slice(0, a.indexOf('=')), a.slice(a.indexOf('=') + 1)] : [a, undefined];
      const valued = curlValueLong[name!];
      if (valued) { const failed = take(valued, inline ?? args[++i], name!); if (failed) return failed; continue; }
      const f = curlFlagLong[a];
      if (!f) return unknown(a);
      if (f === 's') o.silent = true; else if (f === 'S') o.showError = true; else if (f === 'i') o.include = true;
      else if (f === 'I') { o.head = true; o.method = 'HEAD'; } else if (f === 'f') o.fail = true; else if (f === 'O') o.remoteName = true;
      else if (f === 'k') o.insecure = true;
      continue;
    }
    for (let j = 1; j < a.length; j++) {
      const f = a[j]!;
      if (curlValueShort.includes(f)) {
        const failed = take(f, j + 1 < a.length ? a.slice(j + 1) : args[++i], `-${f}`);
        if (failed) return failed;
        break;
      }
      if (!'sSiIfLvkO4'.includes(f)) return unknown(a);
      if (f === 's') o.silent = true; else if (f === 'S') o.showError = true; else if (f === 'i') o.include = true;
      else if (f === 'I') { o.head = true; o.method = 'HEAD'; } else if (f === 'f') o.fail = true; else if (f === 'O') o.remoteName = true;
      else if (f === 'k') o.insecure = true;
    }
  }
  const error = (code: number, text: string) => {
    // A peer that failed verification gets curl's advice after the error (tool_operate.c, CURL_CA_CERT_ERRORMSG).
    if (!o.silent || o.showError) out('stderr', `curl: (${code}) ${text}\n${code === curlPeerFailedVerification ? curlCACertAdvice : ''}`);
    return code;
  };
  // -k reads no CA file (nothing is verified); a --cacert file the container does not have reads as no text.
  const tls: HttpsClient = o.insecure ? { insecure: true } : o.caFile === undefined ? {} : { caFile: o.caFile, caPem: ctx.readFile(o.caFile) };
  // Several -d join with `&`, as curl sends them.
  const body = o.data.length ? Buffer.from(o.data.join('&')) : undefined;
  if (!urls.length) { out('stderr', "curl: try 'curl --help' or 'curl --manual' for more information\n"); return 2; }
  let status = 0;
  for (const arg of urls) {
    const url = parseURL(arg);
    if (!url || !url.hostname) { status = error(3, 'URL rejected: Malformed input to a URL function'); continue; }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') { status = error(1, `Protocol "${url.protocol.slice(0, -1)}" not supported`); continue; }
    const file = o.output ?? (o.remoteName ? url.pathname.split('/').pop() || undefined : undefined);
    // The progress meter goes to stderr unless -s, or the body goes to stdout and stdout is a terminal (the exec's tty).
    const meter = !o.silent && ((file !== undefined && file !== '-') || !ctx.terminalColumns);
    if (meter) out('stderr', `${progressHeader}\r${curlProgressLine({ downloaded: 0, uploaded: 0 })}`);
    const r = await (ctx.http ?? noHttp)({ url, method: o.method, headers: o.headers, timeoutMs: o.maxTimeMs, tls, ...(body ? { body } : {}) });
    const host = url.hostname.replace(/^\[|\]$/g, '');
    if ('error' in r) {
      // After a connection was tried (refused, or TLS failed on it), the meter's line is written once more and ended (curl 7.88).
      if (meter && (r.error === 'connect' || r.error === 'tls')) out('stderr', `\r${curlProgressLine({ downloaded: 0, uploaded: 0 })}\n`);
      status = r.error === 'resolve' ? error(6, `Could not resolve host: ${host}`)
        : r.error === 'timeout' ? error(28, `Connection timed out after ${o.maxTimeMs} milliseconds`)
          : r.error === 'tls' ? curlTlsError(r.failure, host, o.caFile, error)
            : error(7, `Failed to connect to ${host} port ${defaultPort(url)} after 0 ms: Couldn't connect to server`);
      if (o.writeOut !== undefined) out('stdout', o.writeOut.replace(/%\{(?:http_code|response_code)\}/g, '000').replace(/%\{[a-z_]+\}/g, '').replace(/\\n/g, '\n'));
      continue;
    }
    if (o.fail && r.response.status >= 400) { status = error(22, `The requested URL returned error: ${r.response.status}`); continue; }
    let text = '';
    if (o.include || o.head) text += headerBlock(r.response);
    if (!o.head) text += r.response.body.toString('utf8');
    if (meter) {
      const length = headerValue(r.response, 'content-length');
      out('stderr', `\r${curlProgressLine({ downloaded: r.response.body.length, downloadSize: length === undefined ? undefined : Number(length), uploaded: body?.length ?? 0, uploadSize: body?.length })}\n`);
    }
    if (o.remoteName && !file) { status = error(23, 'Remote file name has no length'); continue; }
    if (file === undefined || file === '-') out('stdout', text);
    else if (file !== '/dev/null') {
      const failed = ctx.writeFile ? ctx.writeFile(file, Buffer.from(text)) : 'Read-only file system';
      if (failed) { status = error(23, `Failure writing output to destination, passed ${text.length} returned 0`); continue; }
    }
    if (o.writeOut !== undefined) out('stdout', writeOut(o.writeOut, url, r.response, r.address));
  }
  return status;
}

/** CURLE_PEER_FAILED_VERIFICATION: 60 since curl 7.62 (51 before, for a name that did not match). */
const curlPeerFailedVerification = 60;

/** What curl prints after an error 60 (curl 7.88's tool_operate.c, CURL_CA_CERT_ERRORMSG). */
const curlCACertAdvice = 'More details here: https://curl.se/docs/sslcerts.html\n\n' +
  'curl failed to verify the legitimacy of the server and therefore could not\n' +
  'establish a secure connection to it. To learn more about this situation and\n' +
  'how to fix it, please visit the web page mentioned above.\n';

/** A TLS failure in curl 7.88's words (lib/vtls/openssl.c), as checked against the machine's curl 7.88.1 and OpenSSL 3. */
function curlTlsError(f: TlsFailure, host: string, caFile: string | undefined, error: (code: number, text: string) => number): number {
  switch (f.kind) {
    case 'chain': return error(curlPeerFailedVerification, `SSL certificate problem: ${f.detail}`);
    case 'name': return error(curlPeerFailedVerification, `SSL: no alternative certificate subject name matches target host name '${host}'`);
    case 'cafile': return error(77, `error setting certificate file: ${caFile ?? ''}`);
    // CURLE_SSL_CONNECT_ERROR with OpenSSL's alert text (curl offers what the API server takes: not reached today).
    case 'alert': return error(35, `OpenSSL/3.0.11: error:0A000410:SSL routines::sslv3 alert ${f.text}`);
  }
}

/**
 * A -d value: `@FILE` reads the file (`@-` stdin is not simulated), without
 * its CR and LF unless --data-binary; --data-raw takes `@` as it is.
 * Undefined when the file cannot be read.
 */
function postData(opt: string, value: string, ctx: ShellContext): string | undefined {
  if (opt === 'data-raw' || !value.startsWith('@')) return value;
  const text = ctx.readFile(value.slice(1));
  if (text === undefined) return undefined;
  return opt === 'data-binary' ? text : text.replace(/[\r\n]/g, '');
}

/** curl's progress meter (lib/progress.c), its two heading lines. */
const progressHeader = '  % Total    % Received % Xferd  Average Speed   Time    Time     Time  Current\n' +
  '                                 Dload  Upload   Total   Spent    Left  Speed\n';

/** A byte count in five columns, as curl's max5data: 612, 9766k, 12.3M, 1234M. */
function max5(bytes: number): string {
  const k = 1024;
  const m = k * k;
  if (bytes < 100_000) return String(bytes).padStart(5);
  if (bytes < 10_000 * k) return `${String(Math.floor(bytes / k)).padStart(4)}k`;
  if (bytes < 100 * m) return `${String(Math.floor(bytes / m)).padStart(2)}.${Math.floor((bytes % m) / (m / 10))}M`;
  return `${String(Math.floor(bytes / m)).padStart(4)}M`;
}

/**
 * One line of the meter (written after a CR): totals, the percentages of
 * sizes known in advance (Content-Length; the -d body), speeds and times.
 * Nothing crossed a network: the speeds are 0 and the times unknown
 * (`--:--:--`), where a real transfer shows its rate.
 */
function curlProgressLine(t: { downloaded: number; downloadSize?: number; uploaded: number; uploadSize?: number }): string {
  const total = (t.downloadSize ?? t.downloaded) + (t.uploadSize ?? t.uploaded);
  const pct = (done: number, of: number | undefined) => String(of ? Math.floor((done * 100) / of) : 0).padStart(3);
  const unknown = '--:--:--';
  return `${pct(t.downloaded + t.uploaded, total)} ${max5(total)}  ${pct(t.downloaded, t.downloadSize)} ${max5(t.downloaded)}  ` +
    `${pct(t.uploaded, t.uploadSize)} ${max5(t.uploaded)}  ${max5(0)}  ${max5(0)} ${unknown} ${unknown} ${unknown} ${max5(0)}`;
}

/**
 * busybox wget [-q] [-O FILE|-] [-S] [-T SEC|--timeout=SEC] [--spider] [--header 'H: V'] [--no-check-certificate] URL: `-qO-` prints the body; without -O
 * the file is saved as the URL's last name (index.html); --spider only checks that the URL answers
 * (`remote file exists`). A connection nothing answers (a NetworkPolicy drops it) ends after the
 * timeout (busybox's default 900 s) with `download timed out`.
 */
export async function wget(args: string[], ctx: ShellContext, out: Out): Promise<number> {
  let quiet = false;
  let spider = false;
  let timeoutSeconds = 900;
  let output: string | undefined;
  let target: string | undefined;
  const headers: Record<string, string> = {};
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (a === '--spider') { spider = true; continue; }
    // Checked by nothing: busybox's TLS does not validate certificates (in-cluster scripts pass it with a token --header).
    if (a === '--no-check-certificate') continue;
    const header = /^--header(?:=(.*))?$/.exec(a);
    if (header) { const [k, ...v] = (header[1] ?? args[++i] ?? '').split(':'); headers[k!.trim()] = v.join(':').trim(); continue; }
    const long = /^--timeout(?:=(.*))?$/.exec(a);
    if (long) { timeoutSeconds = Number(long[1] ?? args[++i]) || timeoutSeconds; continue; }
    const m = /^-([qSOT]+)(.*)$/.exec(a);
    if (!m) { target = a; continue; }
    if (m[1]!.includes('q')) quiet = true;
    if (m[1]!.endsWith('O')) output = m[2] || args[++i];
    if (m[1]!.endsWith('T')) timeoutSeconds = Number(m[2] || args[++i]) || timeoutSeconds;
  }
  const url = target === undefined ? undefined : parseURL(target);
  if (!url) { out('stderr', 'BusyBox wget: a URL is needed\n'); return 1; }
  const host = url.hostname.replace(/^\[|\]$/g, '');
  // busybox 1.28's TLS (the DNS examples' image) offers RSA key exchange only (in-cluster-apiserver.ts).
  const tls = url.protocol === 'https:' ? { tls: { rsaKeyExchangeOnly: true } } : {};
  const r = await (ctx.http ?? noHttp)({ url, method: 'GET', headers, clientHeaders: { 'User-Agent': 'Wget' }, timeoutMs: timeoutSeconds * 1000, ...tls });
  if ('error' in r) {
    if (r.error === 'resolve') { out('stderr', `wget: bad address '${host}'\n`); return 1; }
    if (!quiet) out('stderr', `Connecting to ${url.host} (${r.address}:${defaultPort(url)})\n`);
    // The TLS helper dies on the alert (networking/tls.c); wget then reads a connection that is gone.
    if (r.error === 'tls') { out('stderr', `${busyboxTlsError(r.failure)}wget: error getting response: Connection reset by peer\n`); return 1; }
    out('stderr', r.error === 'timeout' ? 'wget: download timed out\n' : `wget: can't connect to remote host (${r.address}): Connection refused\n`);
    return 1;
  }
  if (!quiet) out('stderr', `Connecting to ${url.host} (${r.address}:${defaultPort(url)})\n`);
  if (r.response.status >= 400) { out('stderr', `wget: server returned error: ${statusLine(r.response)}\n`); return 1; }
  if (spider) { if (!quiet) out('stderr', 'remote file exists\n'); return 0; }
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

/** busybox 1.28's ssl_client dying on a failure (tls.c's alert_text names 20, 40, 50, 51 and 112, else the number). */
function busyboxTlsError(f: TlsFailure): string {
  return f.kind === 'alert' ? `wget: TLS error from peer (alert code ${f.code}): ${f.text}\n` : '';
}

/** busybox wget's last progress line (its bar full, as when the transfer ended; no terminal width is known). */
function progressLine(name: string, bytes: number): string {
  const size = bytes < 100_000 ? String(bytes) : `${Math.round(bytes / 1024)}k`;
  return `${name.padEnd(21)}100% |${'*'.repeat(32)}| ${size.padStart(5)}  0:00:00 ETA\n`;
}
