/**
 * A v5.channel.k8s.io WebSocket caller served by a runtime that speaks v5
 * only over SPDY (containerd 1.6/1.7 offer WebSocket v4 at most, which
 * cannot close stdin): the kubelet is the SPDY client toward the runtime,
 * as upstream's API server is when it translates (StreamTranslatorHandler).
 *
 *  1. The runtime's streaming URL is upgraded to SPDY/3.1 with
 *     X-Stream-Protocol-Version v4.channel.k8s.io; a refusal answers the
 *     caller's handshake with the runtime's status and body.
 *  2. One SPDY stream per channel, opened in upstream's order with header
 *     `streamType`: error, then stdin, stdout, stderr as requested, and
 *     resize with a terminal.
 *  3. Caller → runtime: channel 0 is stdin data, 4 a resize (the same JSON
 *     TerminalSize both ways), and the v5 close frame [255, 0] ends stdin
 *     with a FIN, which the command reads as EOF (`kubectl cp` into a pod,
 *     `echo x | kubectl exec -i ... -- cat`). Data for a stream waits for
 *     its SYN_REPLY (Go's spdystream drops data on an unanswered stream).
 *  4. Runtime → caller: stdout, stderr and the error Status become channel
 *     1, 2 and 3 frames; when the runtime closes the connection (it does
 *     once the command has ended and the Status is written), the caller's
 *     WebSocket closes with 1000.
 *  5. The caller going away ends the SPDY session (GOAWAY, then the socket).
 */
import type { Duplex } from 'node:stream';
import type { WebSocket, RawData } from 'ws';
import { ws } from '../../util/ws.js';
import { rejectUpgrade } from '../../util/upgrade-response.js';
import { dialUpgrade } from '../../util/upgrade-proxy.js';
import { FrameReader, HeaderWriter, controlStreamId, controlType, dataFrame, goawayFrame, pingFrame, synStreamFrame, type Frame } from '../../util/spdy/frames.js';
import type { StreamRequest } from '../runtime/runtime.js';
import type { UpgradeCall } from './runtime-stream.js';

const v5 = 'v5.channel.k8s.io';
const highWaterBytes = 1 << 20;
const channel = { stdin: 0, stdout: 1, stderr: 2, error: 3, resize: 4, close: 255 } as const;
type StreamType = 'error' | 'stdin' | 'stdout' | 'stderr' | 'resize';

/** The SPDY streams of a session in upstream's order, with their client stream IDs (odd, from 1). */
export function plannedStreams(req: StreamRequest): { type: StreamType; id: number }[] {
  const types: StreamType[] = ['error'];
  if (req.stdin) types.push('stdin');
  if (req.stdout) types.push('stdout');
  if (req.stderr && !req.tty) types.push('stderr');
  if (req.tty) types.push('resize');
  return types.map((type, i) => ({ type, id: 2 * i + 1 }));
}

const asBuffer = (d: RawData): Buffer => (Buffer.isBuffer(d) ? d : Array.isArray(d) ? Buffer.concat(d) : Buffer.from(d));

export async function serveV5OverSPDY(call: UpgradeCall, target: string, request: StreamRequest): Promise<void> {
  let answer;
  try {
    answer = await dialUpgrade(target, { method: 'POST', headers: { Connection: 'Upgrade', Upgrade: 'SPDY/3.1', 'X-Stream-Protocol-Version': 'v4.channel.k8s.io' } });
  } catch (e) {
    return rejectUpgrade(call.socket, 500, `connecting to the runtime's streaming server: ${(e as Error).message}`);
  }
  if (!answer.upgraded) return rejectUpgrade(call.socket, answer.statusCode, answer.body);
  const runtime = answer.socket;
  if (call.socket.destroyed) { runtime.destroy(); return; }
  const wss = new (ws().WebSocketServer)({ noServer: true, perMessageDeflate: false, clientTracking: false, handleProtocols: () => v5 });
  wss.handleUpgrade(call.req, call.socket, call.head, (client) => {
    client.on('error', (e) => call.logger.debug(`${call.what} client stream failed`, { pod: call.pod, err: e.message }));
    runSession(client, runtime, request, answer.head);
    call.logger.debug(`${call.what} session started`, { pod: call.pod, protocol: v5, runtimeProtocol: 'v4.channel.k8s.io', transport: 'SPDY/3.1' });
  });
}

function runSession(client: WebSocket, runtime: Duplex, request: StreamRequest, head: Buffer): void {
  const streams = plannedStreams(request);
  const idOf = (t: StreamType) => streams.find((s) => s.type === t)?.id;
  const channelOf = new Map<number, number>();
  for (const s of streams) if (s.type === 'stdout' || s.type === 'stderr' || s.type === 'error') channelOf.set(s.id, channel[s.type]);
  const replied = new Set<number>();
  const waiting = new Map<number, Buffer[]>();
  let ended = false;
  const end = () => {
    if (ended) return;
    ended = true;
    if (runtime.writable) runtime.end(goawayFrame(0));
    runtime.destroy();
    if (client.readyState === client.OPEN) client.close(1000); else client.terminate();
  };
  const write = (buf: Buffer) => {
    if (!runtime.writable) return;
    if (!runtime.write(buf)) { client.pause(); runtime.once('drain', () => client.resume()); }
  };
  const send = (id: number | undefined, frame: Buffer) => {
    if (id === undefined) return;
    if (replied.has(id)) write(frame); else waiting.set(id, [...(waiting.get(id) ?? []), frame]);
  };

  const headers = new HeaderWriter();
  for (const s of streams) write(synStreamFrame(s.id, headers.block({ streamtype: s.type })));

  const onFrame = (f: Frame) => {
    if (!f.control) {
      const ch = channelOf.get(f.streamId);
      if (ch !== undefined && f.data.length && client.readyState === client.OPEN) {
        client.send(Buffer.concat([Buffer.from([ch]), f.data]), { binary: true });
        if (client.bufferedAmount > highWaterBytes) {
          runtime.pause();
          const drain = () => (client.bufferedAmount > highWaterBytes && client.readyState === client.OPEN ? setTimeout(drain, 10) : runtime.resume());
          setTimeout(drain, 10);
        }
      }
      return;
    }
    if (f.type === controlType.synReply) {
      const id = controlStreamId(f.payload);
      replied.add(id);
      for (const frame of waiting.get(id) ?? []) write(frame);
      waiting.delete(id);
    } else if (f.type === controlType.ping && (f.payload.readUInt32BE(0) & 1) === 0) {
      write(pingFrame(f.payload.readUInt32BE(0)));
    }
  };
  const reader = new FrameReader();
  const onData = (chunk: Buffer) => {
    let frames: Frame[];
    try { frames = reader.push(chunk); } catch { return end(); }
    for (const f of frames) onFrame(f);
  };
  if (head.length) onData(head);
  runtime.on('data', onData);
  runtime.on('close', end);
  runtime.on('end', end);
  runtime.on('error', end);

  client.on('message', (raw) => {
    const d = asBuffer(raw);
    if (d.length === 0) return;
    const payload = d.subarray(1);
    switch (d[0]) {
      case channel.stdin: if (payload.length) send(idOf('stdin'), dataFrame(idOf('stdin')!, payload)); break;
      case channel.resize: send(idOf('resize'), dataFrame(idOf('resize') ?? 0, payload)); break;
      case channel.close: if (payload[0] === channel.stdin) send(idOf('stdin'), dataFrame(idOf('stdin') ?? 0, Buffer.alloc(0), true)); break;
    }
  });
  client.on('close', end);
  client.on('error', end);
}
