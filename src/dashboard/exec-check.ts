/**
 * Why an exec WebSocket was refused, in the API's words. A browser sees a
 * refused WebSocket handshake only as "closed": the status and the Status
 * body the API server answered (403 from RBAC, a simulated node's "runs no
 * processes", `container not found`) are hidden from the page. So after a
 * refusal the page asks `GET /dashboard/api/exec-check/namespaces/NS/pods/NAME?container=C`,
 * and the server side makes the same handshake with the caller's own
 * credentials (its bearer token, or `k8ts dashboard`'s kubeconfig user) and
 * returns what the API answered: the Status with its code, or a Success
 * when the handshake went through this time (that connection is closed at
 * once, which ends its command: `true`, chosen to have no effect).
 */
import { randomBytes } from 'node:crypto';
import type { OutgoingHttpHeaders } from 'node:http';
import type { RequestOptions } from 'node:https';
import type { Status } from '../api/status.js';
import { dialUpgrade } from '../util/upgrade-proxy.js';

export const execCheckPath = /^\/dashboard\/api\/exec-check\/namespaces\/([^/]+)\/pods\/([^/]+)$/;

export interface ExecCheckTarget { namespace: string; name: string; container?: string }

/** The exec URL the check dials (stdout only, command `true`). */
export function execCheckURL(server: string, t: ExecCheckTarget): string {
  const q = new URLSearchParams({ command: 'true', stdout: 'true' });
  if (t.container) q.set('container', t.container);
  return `${server.replace(/\/$/, '')}/api/v1/namespaces/${encodeURIComponent(t.namespace)}/pods/${encodeURIComponent(t.name)}/exec?${q}`;
}

/** A refusal's body as a Status: the API's own when it sent one, else its text as the message. */
export function refusalStatus(code: number, body: string): Status {
  try {
    const s = JSON.parse(body) as Status;
    if (s?.kind === 'Status') return { ...s, code: s.code ?? code };
  } catch { /* not JSON: a plain-text refusal */ }
  return { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: body.trim() || `${code}`, code } as Status;
}

/** Dials the WebSocket handshake the page's terminal makes, with `auth` (headers and TLS) as the caller; returns the API's answer. */
export async function checkExec(server: string, t: ExecCheckTarget, auth: { headers?: OutgoingHttpHeaders; tls?: RequestOptions }): Promise<Status> {
  const answer = await dialUpgrade(execCheckURL(server, t), {
    method: 'GET', tls: auth.tls, timeoutMs: 30_000,
    headers: {
      ...auth.headers, Connection: 'Upgrade', Upgrade: 'websocket', 'Sec-WebSocket-Version': '13',
      'Sec-WebSocket-Key': randomBytes(16).toString('base64'), 'Sec-WebSocket-Protocol': 'v5.channel.k8s.io, v4.channel.k8s.io',
    },
  });
  if (answer.upgraded) {
    answer.socket.destroy();
    return { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', code: 200 } as Status;
  }
  return refusalStatus(answer.statusCode, answer.body);
}
