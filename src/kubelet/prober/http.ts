/**
 * The httpGet probe (upstream pkg/probe/http): GET with User-Agent
 * kube-probe/<minor> and Accept: star/star (plus the probe's headers); a status
 * in 200-399 succeeds, anything else fails with
 * "HTTP probe failed with statuscode: N". Redirects to the same host are
 * followed (at most 10); a redirect elsewhere is not followed and counts as
 * success ("Probe terminated redirects"). Transport errors and the timeout
 * fail with Go's wording.
 */
import { request as httpRequest, type IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { request as httpsRequest } from 'node:https';
import type { ProbeOutcome } from './worker.js';
import { kubeletVersion } from '../nodestatus.js';

const maxRedirects = 10;
const maxBodyBytes = 10 * 1024;

export interface HTTPProbeTarget {
  url: URL;
  headers: { name: string; value: string }[];
  timeoutMs: number;
  /** The connection to each URL asked (a simulated pod's port); absent: a TCP connection to its host. */
  connect?(u: URL): Duplex;
}

const userAgent = () => {
  const m = /^v?(\d+)\.(\d+)/.exec(kubeletVersion);
  return m ? `kube-probe/${m[1]}.${m[2]}` : 'kube-probe';
};

/** Go's url.String for the error messages: `Get "http://h:p/path"`. */
const goGet = (u: URL) => `Get "${u.toString()}"`;

function dialError(u: URL, e: NodeJS.ErrnoException): string {
  const addr = `${u.hostname.replace(/^\[|\]$/g, '')}:${u.port || (u.protocol === 'https:' ? 443 : 80)}`;
  const net = addr.includes(':') && u.hostname.startsWith('[') ? `[${addr}]` : addr;
  if (e.code === 'ECONNREFUSED') return `${goGet(u)}: dial tcp ${net}: connect: connection refused`;
  if (e.code === 'EHOSTUNREACH') return `${goGet(u)}: dial tcp ${net}: connect: no route to host`;
  return `${goGet(u)}: ${e.message}`;
}

function getOnce(u: URL, t: HTTPProbeTarget, deadline: number): Promise<{ res: IncomingMessage; body: string }> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = { 'User-Agent': userAgent(), Accept: '*/*' };
    for (const h of t.headers) {
      // A probe header replaces the default of that name (upstream: Host sets the request's host).
      for (const k of Object.keys(headers)) if (k.toLowerCase() === h.name.toLowerCase()) delete headers[k];
      headers[h.name] = h.value;
    }
    const left = Math.max(1, deadline - Date.now());
    const connect = t.connect;
    const req = (u.protocol === 'https:' ? httpsRequest : httpRequest)(u, { method: 'GET', headers, rejectUnauthorized: false, ...(connect ? { createConnection: () => connect(u) } : {}) });
    const timer = setTimeout(() => {
      req.destroy(Object.assign(new Error(`${goGet(u)}: context deadline exceeded (Client.Timeout exceeded while awaiting headers)`), { code: 'PROBE_TIMEOUT' }));
    }, left);
    req.on('error', (e: NodeJS.ErrnoException) => { clearTimeout(timer); reject(e.code === 'PROBE_TIMEOUT' ? e : new Error(dialError(u, e))); });
    req.on('response', (res) => {
      const chunks: Buffer[] = [];
      let size = 0;
      res.on('data', (d: Buffer) => { if (size < maxBodyBytes) { chunks.push(d); size += d.length; } });
      res.on('end', () => { clearTimeout(timer); resolve({ res, body: Buffer.concat(chunks).subarray(0, maxBodyBytes).toString('utf8') }); });
      res.on('error', (e) => { clearTimeout(timer); reject(e); });
    });
    req.end();
  });
}

export async function httpProbe(t: HTTPProbeTarget): Promise<ProbeOutcome> {
  const deadline = Date.now() + t.timeoutMs;
  let u = t.url;
  for (let redirects = 0; ; redirects++) {
    let got: { res: IncomingMessage; body: string };
    try {
      got = await getOnce(u, t, deadline);
    } catch (e) {
      return { result: 'failure', output: (e as Error).message };
    }
    const code = got.res.statusCode ?? 0;
    const location = got.res.headers.location;
    if (code >= 300 && code < 400 && location) {
      const next = new URL(location, u);
      if (next.hostname !== u.hostname) return { result: 'success', output: `Probe terminated redirects, Response body: ${got.body}` };
      if (redirects + 1 > maxRedirects) return { result: 'failure', output: `${goGet(next)}: stopped after ${maxRedirects} redirects` };
      u = next;
      continue;
    }
    if (code >= 200 && code < 400) return { result: 'success', output: got.body };
    return { result: 'failure', output: `HTTP probe failed with statuscode: ${code}` };
  }
}
