/**
 * A connection to a pod's port through its node's kubelet, for pods/proxy
 * and services/proxy to a pod on a simulated node (k8ts only): such a pod's
 * IP is made up, nothing on this machine routes to it, so the API server
 * opens a port-forward to the pod on the node's kubelet API
 * (`/portForward/{namespace}/{pod}?port=N`, WebSocket v4.channel.k8s.io,
 * with its kubelet client certificate; the kubelet authenticates and
 * authorizes it as any caller) and speaks HTTP over the forwarded port.
 *
 * The v4 port-forward protocol: channel 0 carries the data, channel 1 the
 * errors; each opens with the port as 2 bytes little-endian. An error
 * (`... connect: connection refused`) fails the connection with
 * ECONNREFUSED, so the proxy answers in Go's words as for a real pod.
 */
import { Duplex } from 'node:stream';
import type { RawData, WebSocket } from 'ws';
import type { KubeletEndpoint } from '../../api/kubelet-endpoint.js';
import type { KubeletClient } from '../kubelet-client/client.js';

const asBuffer = (d: RawData): Buffer => (Buffer.isBuffer(d) ? d : Array.isArray(d) ? Buffer.concat(d) : Buffer.from(d));

class ForwardedConnection extends Duplex {
  /** Whether the port prefix of channel 0 and of channel 1 came. */
  private readonly opened = [false, false];

  constructor(private readonly ws: WebSocket) {
    super();
    ws.on('message', (raw) => {
      const d = asBuffer(raw);
      const channel = d[0];
      if ((channel === 0 || channel === 1) && !this.opened[channel]) { this.opened[channel] = true; return; }
      if (channel === 0) this.push(d.subarray(1));
      else if (channel === 1 && d.length > 1) this.destroy(forwardError(d.subarray(1).toString('utf8')));
    });
    ws.on('close', () => { if (!this.destroyed) { this.push(null); this.destroy(); } });
    ws.on('error', (e) => this.destroy(e));
    ws.resume();
  }

  override _read(): void { /* pushed as frames arrive */ }

  override _write(chunk: Buffer, _enc: BufferEncoding, cb: (err?: Error | null) => void): void {
    this.ws.send(Buffer.concat([Buffer.from([0]), chunk]), cb);
  }

  /**
   * The HTTP client is done with the connection (it ends it after the
   * answer, having asked for Connection: close): v4 port-forward has no
   * half-close, so the forward itself ends.
   */
  override _final(cb: (err?: Error | null) => void): void {
    cb();
    this.destroy();
  }

  override _destroy(err: Error | null, cb: (err?: Error | null) => void): void {
    this.ws.terminate();
    cb(err);
  }
}

/** The kubelet's error text as a dial error; a refused port keeps Node's code, which the proxy turns into Go's words. */
function forwardError(text: string): Error {
  const e = new Error(text) as NodeJS.ErrnoException;
  if (text.includes('connection refused')) e.code = 'ECONNREFUSED';
  return e;
}

export async function dialThroughKubelet(kubelet: KubeletClient, endpoint: KubeletEndpoint, namespace: string, pod: string, port: number): Promise<Duplex> {
  const path = `/portForward/${encodeURIComponent(namespace)}/${encodeURIComponent(pod)}?port=${port}`;
  return new ForwardedConnection(await kubelet.webSocket(endpoint, path, ['v4.channel.k8s.io']));
}
