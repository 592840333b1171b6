/**
 * Port-forward the kubelet serves itself, for a runtime without a streaming
 * server (the process runtime, whose pods are in the host's network):
 * `dial(port)` is the connection into the pod. Upstream's portforward
 * server (kubelet/cri/streaming/portforward), in both its protocols:
 *
 *  - SPDY/3.1, portforward.k8s.io (kubectl; 1.31+ tunnels it through a
 *    WebSocket to the API server, which speaks plain SPDY to the kubelet):
 *    the client opens a pair of streams per connection, headers
 *    `streamType` (error or data), `port` and `requestID`. Every stream is
 *    accepted (SYN_REPLY); once a pair is complete the port is dialled and
 *    bytes flow between it and the data stream. A failure is written on
 *    the error stream; the end of the connection half-closes both streams,
 *    the client's half-close of the data stream half-closes the connection.
 *  - WebSocket v4.channel.k8s.io (`?port=` in the query): one connection
 *    per port for the session, port i on channels 2i (data) and 2i+1
 *    (error), each channel opened by the port as 2 bytes little-endian.
 */
import type { Duplex } from 'node:stream';
import type { RawData } from 'ws';
import { ws } from '../../util/ws.js';
import { HeaderReader } from '../../util/spdy/header-reader.js';
import { controlStreamId, controlType, dataFrame, FrameReader, HeaderWriter, pingFrame, synReplyFrame, flagFin, type Frame } from '../../util/spdy/frames.js';
import { rejectUpgrade } from '../../util/upgrade-response.js';
import type { UpgradeCall } from './runtime-stream.js';

export type Dial = (port: number) => Duplex;

const portForwardProtocol = 'portforward.k8s.io';
const v4 = 'v4.channel.k8s.io';
const asBuffer = (d: RawData): Buffer => (Buffer.isBuffer(d) ? d : Array.isArray(d) ? Buffer.concat(d) : Buffer.from(d));

/** Upstream's message on the error stream, with Go's words for a refused connection. */
export function forwardError(port: number, pod: string, e: NodeJS.ErrnoException): string {
  const cause = e.code === 'ECONNREFUSED' ? `dial tcp 127.0.0.1:${port}: connect: connection refused` : e.message;
  return `error forwarding port ${port} to pod ${pod}: ${cause}`;
}

interface Pair { port?: number; data?: number; error?: number; conn?: Duplex; errorText?: string }

export function serveLocalPortForwardSPDY(call: UpgradeCall, dial: Dial): void {
  const versions = String(call.req.headers['x-stream-protocol-version'] ?? '').split(',').map((s) => s.trim());
  if (!versions.includes(portForwardProtocol)) return rejectUpgrade(call.socket, 403, `unable to upgrade: unable to negotiate protocol: client supports ${JSON.stringify(versions)}, server supports [${JSON.stringify(portForwardProtocol)}]`);
  const { socket } = call;
  socket.write(`HTTP/1.1 101 Switching Protocols\r\nConnection: Upgrade\r\nUpgrade: SPDY/3.1\r\nX-Stream-Protocol-Version: ${portForwardProtocol}\r\n\r\n`);
  const headersIn = new HeaderReader();
  const headersOut = new HeaderWriter();
  const pairs = new Map<string, Pair>();
  /** Stream ID → its pair and role. */
  const streams = new Map<number, { pair: Pair; role: 'data' | 'error' }>();
  const write = (buf: Buffer) => { if (socket.writable) socket.write(buf); };
  const closeStream = (id: number | undefined) => { if (id !== undefined) write(dataFrame(id, Buffer.alloc(0), true)); };
  const fail = (pair: Pair, text: string) => {
    call.logger.debug('port-forward failed', { pod: call.pod, err: text });
    if (pair.error !== undefined) write(dataFrame(pair.error, Buffer.from(text)));
    closeStream(pair.error);
    closeStream(pair.data);
  };
  const start = (pair: Pair) => {
    const port = pair.port!;
    if (!Number.isInteger(port) || port < 1 || port > 65535) return fail(pair, `invalid port ${pair.port}`);
    let conn: Duplex;
    try { conn = dial(port); } catch (e) { return fail(pair, (e as Error).message); }
    pair.conn = conn;
    conn.on('data', (d: Buffer) => write(dataFrame(pair.data!, d)));
    conn.on('error', (e) => { pair.errorText ??= forwardError(port, call.pod, e); });
    conn.on('close', () => {
      if (pair.errorText) return fail(pair, pair.errorText);
      closeStream(pair.data);
      closeStream(pair.error);
    });
  };
  const onSynStream = (f: Extract<Frame, { control: true }>) => {
    const id = controlStreamId(f.payload);
    const headers = headersIn.block(f.payload.subarray(10));
    write(synReplyFrame(id, headersOut.block({})));
    const requestID = headers.requestid ?? headers.port ?? '';
    const pair = pairs.get(requestID) ?? {};
    pairs.set(requestID, pair);
    pair.port = Number(headers.port);
    const role = headers.streamtype === 'error' ? 'error' : 'data';
    pair[role] = id;
    streams.set(id, { pair, role });
    if (pair.data !== undefined && pair.error !== undefined && !pair.conn) start(pair);
  };
  const onFrame = (f: Frame) => {
    if (!f.control) {
      const s = streams.get(f.streamId);
      if (s?.role !== 'data' || !s.pair.conn) return;
      if (f.data.length) s.pair.conn.write(f.data);
      if (f.flags & flagFin) s.pair.conn.end();
      return;
    }
    if (f.type === controlType.synStream) onSynStream(f);
    else if (f.type === controlType.rstStream) streams.get(controlStreamId(f.payload))?.pair.conn?.destroy();
    else if (f.type === controlType.ping) write(pingFrame(f.payload.readUInt32BE(0)));
    else if (f.type === controlType.goaway) end();
  };
  const reader = new FrameReader();
  let ended = false;
  const end = () => {
    if (ended) return;
    ended = true;
    for (const p of pairs.values()) p.conn?.destroy();
    socket.destroy();
  };
  const onData = (chunk: Buffer) => {
    let frames: Frame[];
    try { frames = reader.push(chunk); } catch { return end(); }
    try { for (const f of frames) onFrame(f); } catch (e) {
      call.logger.debug('port-forward session failed', { pod: call.pod, err: (e as Error).message });
      end();
    }
  };
  if (call.head.length) onData(call.head);
  socket.on('data', onData);
  socket.on('close', end);
  socket.on('error', end);
  call.logger.debug('portforward session started', { pod: call.pod, protocol: portForwardProtocol, transport: 'local SPDY/3.1' });
}

export function serveLocalPortForwardWebSocket(call: UpgradeCall, protocols: string[], ports: number[], dial: Dial): void {
  if (protocols.length && !protocols.includes(v4)) return rejectUpgrade(call.socket, 400, `port-forward in this runtime needs a WebSocket speaking ${v4}`);
  const wss = new (ws().WebSocketServer)({ noServer: true, perMessageDeflate: false, clientTracking: false, handleProtocols: () => (protocols.length ? v4 : false) });
  wss.handleUpgrade(call.req, call.socket, call.head, (ws) => {
    const send = (channel: number, data: Buffer) => { if (ws.readyState === ws.OPEN) ws.send(Buffer.concat([Buffer.from([channel]), data])); };
    const portBytes = (p: number) => { const b = Buffer.alloc(2); b.writeUInt16LE(p, 0); return b; };
    const conns = ports.map((port, i) => {
      send(2 * i, portBytes(port));
      send(2 * i + 1, portBytes(port));
      const conn = dial(port);
      conn.on('data', (d: Buffer) => send(2 * i, d));
      conn.on('error', (e) => send(2 * i + 1, Buffer.from(forwardError(port, call.pod, e))));
      conn.on('close', () => { if (conns.every((c) => c.destroyed)) ws.close(1000); });
      return conn;
    });
    ws.on('message', (raw) => {
      const d = asBuffer(raw);
      const i = d[0]! / 2;
      if (Number.isInteger(i) && conns[i] && d.length > 1) conns[i]!.write(d.subarray(1));
    });
    ws.on('close', () => { for (const c of conns) c.destroy(); });
    ws.on('error', () => {});
    call.logger.debug('portforward session started', { pod: call.pod, protocol: v4, transport: 'local' });
  });
}
