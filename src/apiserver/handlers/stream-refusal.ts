/**
 * A kubelet's refusal of an exec or attach, told to the caller as
 * kube-apiserver 1.30+ tells it (pods/exec and pods/attach wrap the
 * upgrade-aware proxy in a StreamTranslatorHandler for v5 WebSockets):
 *
 *  1. A v5.channel.k8s.io WebSocket caller (kubectl 1.30+): upstream
 *     accepts the caller's WebSocket first and only then dials the kubelet
 *     over SPDY, so a refusal comes as a Status on the error channel (3),
 *     then the connection closes. It is the kubelet's own Status when its
 *     body is one; otherwise client-go's SPDY upgrader's words wrapped as
 *     an internal error, e.g. `Internal error occurred: unable to upgrade
 *     connection: container bb not found in pod bb_default`, what
 *     `kubectl run -it --rm` of a command that has already ended prints
 *     before it falls back to the logs. The handshake succeeded, so kubectl
 *     does not retry over SPDY.
 *  2. Any other caller (SPDY, older WebSocket subprotocols) gets the
 *     kubelet's answer as it is, status and body, as upstream's
 *     UpgradeAwareHandler writes it back: a SPDY client then says
 *     `unable to upgrade connection: <body>`.
 *
 * The Status waits until the caller has created its streams
 * (util/caller-streams.ts: kubectl 1.32 drops frames that come before).
 */
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import type { RawData } from 'ws';
import type { Status } from 'kubernetes-types/meta/v1.js';
import { CallerStreamsGate } from '../../util/caller-streams.js';
import { rejectUpgrade } from '../../util/upgrade-response.js';
import { ws } from '../../util/ws.js';
import type { KubeletRefusal } from '../kubelet-client/client.js';

const v5 = 'v5.channel.k8s.io';
const errorChannel = 3;
const resizeChannel = 4;

export interface RefusedCall {
  req: IncomingMessage;
  socket: Duplex;
  head: Buffer;
  /** The caller's offered WebSocket subprotocols (none for SPDY). */
  protocols: string[];
  tty: boolean;
}

/** The Status a v5 caller reads on its error channel (json.Marshal of upstream's StatusError: no kind, no apiVersion). */
export function translatedRefusalStatus(refusal: KubeletRefusal): Status {
  const kubelets = kubeletStatus(refusal.body);
  if (kubelets) return kubelets;
  const cause = `unable to upgrade connection: ${refusal.body.trim()}`;
  return { metadata: {}, status: 'Failure', message: `Internal error occurred: ${cause}`, reason: 'InternalError', details: { causes: [{ message: cause }] }, code: 500 };
}

/** The kubelet's body when it is a Status (client-go's upgrader decodes it so). */
function kubeletStatus(body: string): Status | undefined {
  try {
    const parsed: unknown = JSON.parse(body);
    if (parsed && typeof parsed === 'object' && (parsed as Status).kind === 'Status') return parsed as Status;
  } catch { /* plain text, as the kubelet's refusals are */ }
  return undefined;
}

export function answerRefusal(call: RefusedCall, refusal: KubeletRefusal): void {
  if (!call.protocols.includes(v5)) return rejectUpgrade(call.socket, refusal.statusCode, refusal.body, refusal.contentType);
  const wss = new (ws().WebSocketServer)({ noServer: true, perMessageDeflate: false, clientTracking: false, handleProtocols: () => v5 });
  wss.handleUpgrade(call.req, call.socket, call.head, (client) => {
    const gate = new CallerStreamsGate((channel, data) => client.send(Buffer.concat([Buffer.from([channel]), data])), call.tty);
    client.on('message', (d: RawData) => { if (Buffer.isBuffer(d) && d[0] === resizeChannel) gate.open(); });
    client.on('close', () => gate.close());
    client.on('error', () => gate.close());
    gate.write(errorChannel, Buffer.from(JSON.stringify(translatedRefusalStatus(refusal))));
    gate.whenOpen(() => client.close(1000));
  });
}
