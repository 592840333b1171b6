/**
 * A byte stream carried in WebSocket binary messages (client-go's
 * TunnelingConnection, which kubectl's port-forward uses for SPDY over
 * WebSocket): every message's payload is the next bytes of the stream, and
 * every chunk read from the other side goes out as one binary message.
 *
 *  - Text messages are not part of the stream: the tunnel ends.
 *  - When either side closes or fails, both end (the WebSocket with 1000).
 *  - Backpressure: the socket is paused while the WebSocket has more than
 *    `highWaterBytes` queued; the WebSocket is paused while the socket's
 *    buffer is full.
 */
import type { Duplex } from 'node:stream';
import type { WebSocket, RawData } from 'ws';

const highWaterBytes = 1 << 20;

const asBuffer = (d: RawData): Buffer => (Buffer.isBuffer(d) ? d : Array.isArray(d) ? Buffer.concat(d) : Buffer.from(d));

export function tunnelWebSocket(ws: WebSocket, socket: Duplex): void {
  let ended = false;
  const end = () => {
    if (ended) return;
    ended = true;
    socket.destroy();
    if (ws.readyState === ws.OPEN || ws.readyState === ws.CONNECTING) ws.close(1000); else ws.terminate();
  };
  ws.on('message', (data, isBinary) => {
    if (!isBinary) return end();
    if (!socket.write(asBuffer(data))) {
      ws.pause();
      socket.once('drain', () => ws.resume());
    }
  });
  socket.on('data', (chunk: Buffer) => {
    if (ws.readyState !== ws.OPEN) return;
    ws.send(chunk, { binary: true });
    if (ws.bufferedAmount > highWaterBytes) {
      socket.pause();
      const drain = () => (ws.bufferedAmount > highWaterBytes && ws.readyState === ws.OPEN ? setTimeout(drain, 10) : socket.resume());
      setTimeout(drain, 10);
    }
  });
  ws.on('close', end);
  ws.on('error', end);
  socket.on('end', end);
  socket.on('close', end);
  socket.on('error', end);
}
