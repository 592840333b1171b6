/**
 * An exec session over the API server's exec WebSocket, as kubectl 1.30+
 * speaks it (remotecommand's channel protocol): subprotocol
 * v5.channel.k8s.io, else v4.channel.k8s.io. Every message starts with its
 * channel: 0 stdin (page → command), 1 stdout, 2 stderr, 3 the outcome as a
 * metav1.Status, 4 terminal size (`{"Width":80,"Height":24}`); in v5 the
 * message [255, 0] closes stdin. A browser cannot set Authorization on a
 * WebSocket, so the bearer token goes as the subprotocol
 * `base64url.bearer.authorization.k8s.io.<token>` (what the API server's
 * authenticator accepts and `k8ts dashboard` drops before adding its own
 * credentials). A refused handshake shows in a browser only as a close; the
 * API's words for it come from the dashboard's exec-check (exec-check.ts).
 */
import { api, ApiFailure, session } from './api.js';

export interface ExecTarget { namespace: string; pod: string; container: string; command: string[] }

/** The outcome: Success, or a Failure with the API's message (a non-zero exit: reason NonZeroExitCode). */
export interface ExecOutcome { ok: boolean; message: string }

export interface ExecHandlers {
  onOpen(): void;
  onOutput(bytes: Uint8Array): void;
  onEnd(outcome: ExecOutcome): void;
}

export interface ExecSession { input(text: string): void; resize(cols: number, rows: number): void; close(): void }

const channelProtocols = ['v5.channel.k8s.io', 'v4.channel.k8s.io'];

/** RFC 4648 base64url without padding, as upstream's websocket token protocol reads it. */
const base64url = (s: string) => btoa(String.fromCharCode(...new TextEncoder().encode(s))).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');

export function execPath(t: ExecTarget): string {
  const q = new URLSearchParams();
  for (const c of t.command) q.append('command', c);
  for (const k of ['stdin', 'stdout', 'tty']) q.set(k, 'true');
  q.set('container', t.container);
  return `/api/v1/namespaces/${encodeURIComponent(t.namespace)}/pods/${encodeURIComponent(t.pod)}/exec?${q}`;
}

/** `kubectl exec -it` doing the same. */
export const execCommand = (t: ExecTarget) => `kubectl exec -it -n ${t.namespace} ${t.pod} -c ${t.container} -- ${t.command.join(' ')}`;

/** The Status on channel 3 as the page says it: kubectl's own words for a non-zero exit. */
export function outcomeOf(status: { status?: string; message?: string; reason?: string; details?: { causes?: { reason?: string; message?: string }[] } }): ExecOutcome {
  if (status.status === 'Success') return { ok: true, message: 'exit code 0' };
  const code = status.details?.causes?.find((c) => c.reason === 'ExitCode')?.message;
  if (status.reason === 'NonZeroExitCode' && code) return { ok: false, message: `command terminated with exit code ${code}` };
  return { ok: false, message: status.message ?? 'exec failed' };
}

/** Why the handshake was refused, in the API's words (the dashboard's exec-check makes the same handshake server-side). */
async function refusal(t: ExecTarget): Promise<string> {
  try {
    const s = await api<{ status?: string; message?: string }>(`/dashboard/api/exec-check/namespaces/${encodeURIComponent(t.namespace)}/pods/${encodeURIComponent(t.pod)}?container=${encodeURIComponent(t.container)}`);
    return s?.status === 'Success' ? 'the connection was refused, then accepted: open the terminal again' : s?.message ?? 'exec refused';
  } catch (e) {
    return e instanceof ApiFailure ? e.message : String(e);
  }
}

export function openExec(t: ExecTarget, h: ExecHandlers): ExecSession {
  const scheme = location.protocol === 'https:' ? 'wss' : 'ws';
  const protocols = [...channelProtocols];
  if (session.token) protocols.push(`base64url.bearer.authorization.k8s.io.${base64url(session.token)}`);
  const ws = new WebSocket(`${scheme}://${location.host}${execPath(t)}`, protocols);
  ws.binaryType = 'arraybuffer';
  let opened = false;
  let outcome: ExecOutcome | undefined;
  let ended = false;
  const end = (o: ExecOutcome) => { if (!ended) { ended = true; h.onEnd(o); } };
  const send = (channel: number, data: Uint8Array) => {
    if (ws.readyState !== WebSocket.OPEN) return;
    const m = new Uint8Array(data.length + 1);
    m[0] = channel;
    m.set(data, 1);
    ws.send(m);
  };
  ws.onopen = () => { opened = true; h.onOpen(); };
  ws.onmessage = (m) => {
    const b = new Uint8Array(m.data as ArrayBuffer);
    if (b[0] === 1 || b[0] === 2) h.onOutput(b.subarray(1));
    else if (b[0] === 3) {
      try { outcome = outcomeOf(JSON.parse(new TextDecoder().decode(b.subarray(1)))); } catch { outcome = { ok: false, message: 'exec failed' }; }
    }
  };
  ws.onclose = () => {
    if (!opened) void refusal(t).then((message) => end({ ok: false, message }));
    else end(outcome ?? { ok: false, message: 'the connection closed' });
  };
  return {
    input: (text) => send(0, new TextEncoder().encode(text)),
    resize: (cols, rows) => send(4, new TextEncoder().encode(JSON.stringify({ Width: cols, Height: rows }))),
    close: () => {
      // v5 can say end-of-input; then the socket goes (which ends the command, as kubectl's exit does).
      if (ws.protocol === 'v5.channel.k8s.io') send(255, new Uint8Array([0]));
      ws.close();
    },
  };
}
