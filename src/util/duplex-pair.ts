/**
 * Two connected in-memory streams, what one writes the other reads (Node 22's
 * stream.duplexPair, which Node 20 lacks): a connection that never touches
 * the network, e.g. to a simulated container's port. Ending one side ends
 * the other's readable side (a half-close); destroying one closes both, as
 * a reset connection does.
 */
import { Duplex } from 'node:stream';

class Side extends Duplex {
  peer?: Side;
  /** What the peer wrote before this side was read from. */
  override _read(): void { /* data is pushed by the peer's writes */ }
  override _write(chunk: Buffer, _enc: BufferEncoding, cb: (err?: Error | null) => void): void {
    const peer = this.peer;
    if (!peer || peer.destroyed) { cb(Object.assign(new Error('write EPIPE'), { code: 'EPIPE' })); return; }
    peer.push(chunk);
    cb();
  }
  override _final(cb: (err?: Error | null) => void): void {
    if (this.peer && !this.peer.destroyed) this.peer.push(null);
    cb();
  }
  override _destroy(err: Error | null, cb: (err?: Error | null) => void): void {
    const peer = this.peer;
    this.peer = undefined;
    if (peer && !peer.destroyed) {
      peer.peer = undefined;
      peer.push(null);
      peer.destroy();
    }
    cb(err);
  }
}

export function duplexPair(): [Duplex, Duplex] {
  const a = new Side();
  const b = new Side();
  a.peer = b;
  b.peer = a;
  return [a, b];
}
