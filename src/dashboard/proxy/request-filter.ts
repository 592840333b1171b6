/**
 * Who may use `k8ts dashboard`'s port. Anything that reaches it acts as the
 * kubeconfig's user, so, beside binding to loopback (as `kubectl proxy`):
 *
 *  1. DNS rebinding: the Host header must name an accepted host
 *     (`kubectl proxy --accept-hosts`, default `^localhost$`, `^127\.0\.0\.1$`,
 *     `^\[::1\]$`, matched without the port). A page on evil.example whose
 *     name is made to resolve to 127.0.0.1 sends `Host: evil.example`.
 *  2. Cross-site requests (CSRF, and cross-site WebSocket hijacking, which
 *     CORS does not cover): a request whose `Origin` is not this server's own
 *     origin is refused, and so is one a browser marks
 *     `Sec-Fetch-Site: cross-site` or `same-site` (another port of 127.0.0.1
 *     is same-site but another origin), except a top-level GET navigation
 *     (a link followed: the user sees the answer, the linking page does not).
 * Requests from programs that are not browsers (curl, kubectl) carry neither
 * header and pass; they run on the machine with the user's rights already.
 */
import type { IncomingHttpHeaders } from 'node:http';

export const defaultAcceptHosts = ['^localhost$', '^127\\.0\\.0\\.1$', '^\\[::1\\]$'];

export type Refusal = { refused: false } | { refused: true; reason: 'host' | 'origin' | 'fetch-site'; detail: string };

/** The host of a Host header without its port ("[::1]:8001" → "[::1]"). */
export function hostName(host: string): string {
  const h = host.trim().toLowerCase();
  if (h.startsWith('[')) return h.slice(0, h.indexOf(']') + 1);
  const i = h.lastIndexOf(':');
  return i < 0 ? h : h.slice(0, i);
}

export function acceptHostPatterns(patterns: string[]): RegExp[] {
  return patterns.map((p) => new RegExp(p, 'i'));
}

/** Rule 1, then rule 2, for a request with these headers. */
export function refuseRequest(method: string, headers: IncomingHttpHeaders, acceptHosts: RegExp[]): Refusal {
  const host = headers.host ?? '';
  if (!acceptHosts.some((re) => re.test(hostName(host)))) return { refused: true, reason: 'host', detail: host };
  const origin = headers.origin;
  if (origin !== undefined && !sameOrigin(origin, host)) return { refused: true, reason: 'origin', detail: origin };
  const site = String(headers['sec-fetch-site'] ?? '');
  if ((site === 'cross-site' || site === 'same-site') && !topLevelNavigation(method, headers)) return { refused: true, reason: 'fetch-site', detail: site };
  return { refused: false };
}

/** An Origin ("http://127.0.0.1:8001") that is this server's own: http, and the Host the request was sent to. */
function sameOrigin(origin: string, host: string): boolean {
  try {
    const u = new URL(origin);
    return u.protocol === 'http:' && u.host === new URL(`http://${host}`).host;
  } catch { return false; }
}

/** A link followed in the browser's window (a GET: not a form's POST, a fetch, a frame, an image or a WebSocket). */
function topLevelNavigation(method: string, headers: IncomingHttpHeaders): boolean {
  return (method === 'GET' || method === 'HEAD') && headers['sec-fetch-mode'] === 'navigate' && headers['sec-fetch-dest'] === 'document' && !headers.upgrade;
}
