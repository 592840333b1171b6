/**
 * Two WebSocket connections joined frame for frame, as the API server and
 * the kubelet join a client's exec or attach to the next hop (upstream
 * proxies the upgraded connection byte for byte; k8ts terminates the
 * WebSocket at each hop so it can speak another protocol version onward).
 *
 *  - Messages pass unchanged, binary stays binary.
 *  - `inbound` may drop or rewrite what the client sends (the kubelet drops
 *    v5 stream-close frames a v4 runtime would read as stdin data).
 *  - When either side closes, the other is closed with the same code
 *    (1000 when none was given); an error on either side ends both.
 *  - `upstream` may arrive paused (ws.pause() on 'open'); it is resumed once
 *    both directions are wired.
 *  - Backpressure: a side whose peer has more than `highWaterBytes` queued
 *    stops being read until the queue drains.
 */
import type { WebSocket, RawData } from 'ws';

const highWaterBytes = 1 << 20;

export interface BridgeOptions {
  /** Rewrites a client message before it goes upstream; undefined drops it. */
  inbound?: (data: Buffer) => Buffer | undefined;
  onClose?: (code: number) => void;
}

const asBuffer = (d: RawData): Buffer => (Buffer.isBuffer(d) ? d : Array.isArray(d) ? Buffer.concat(d) : Buffer.from(d));
const sendable = (code: number) => (code === 1000 || (code >= 3000 && code <= 4999) || (code >= 1001 && code <= 1014 && ![1004, 1005, 1006].includes(code)) ? code : 1000);

export function bridgeWebSockets(client: WebSocket, upstream: WebSocket, opts: BridgeOptions = {}): void {
  let closed = false;
  const pipe = (from: WebSocket, to: WebSocket, rewrite?: (d: Buffer) => Buffer | undefined) => {
    from.on('message', (data, isBinary) => {
      const buf = rewrite ? rewrite(asBuffer(data)) : asBuffer(data);
      if (!buf || to.readyState !== to.OPEN) return;
      to.send(buf, { binary: isBinary });
      if (to.bufferedAmount > highWaterBytes) {
        from.pause();
        const drain = () => (to.bufferedAmount > highWaterBytes && to.readyState === to.OPEN ? setTimeout(drain, 10) : from.resume());
        setTimeout(drain, 10);
      }
    });
    from.on('close', (code) => {
      if (!closed) { closed = true; opts.onClose?.(code); }
      if (to.readyState === to.OPEN || to.readyState === to.CONNECTING) to.close(sendable(code));
    });
    from.on('error', () => to.terminate());
  };
  pipe(client, upstream, opts.inbound);
  pipe(upstream, client);
  // Openers pause the upstream socket on 'open' so that what it sends before the bridge exists
  // (containerd's port-forward writes each channel's port at once) is not emitted to no listener.
  upstream.resume();
}
