/**
 * The load balancer a kubeadm HA cluster puts in front of its API servers (HAProxy, kube-vip ...), at its
 * simplest: a TCP proxy on 127.0.0.1 that sends each connection to the next backend that accepts it, so a
 * dead API server is skipped. The tests' control-plane endpoint; the user brings their own.
 */
import { createServer, connect, type Server, type Socket } from 'node:net';

export interface TCPBalancer { port: number; backends: Array<{ host: string; port: number }>; close(): Promise<void> }

function dial(b: { host: string; port: number }): Promise<Socket | undefined> {
  return new Promise((resolve) => {
    const s = connect({ host: b.host, port: b.port });
    const fail = () => { s.destroy(); resolve(undefined); };
    s.setTimeout(3_000, fail);
    s.once('error', fail);
    s.once('connect', () => { s.setTimeout(0); s.removeListener('error', fail); resolve(s); });
  });
}

export function startTCPBalancer(): Promise<TCPBalancer> {
  const backends: Array<{ host: string; port: number }> = [];
  const sockets = new Set<Socket>();
  let next = 0;
  const server: Server = createServer((client) => {
    sockets.add(client);
    client.on('close', () => sockets.delete(client));
    client.pause();
    void (async () => {
      const start = next++;
      for (let i = 0; i < backends.length; i++) {
        const upstream = await dial(backends[(start + i) % backends.length]!);
        if (!upstream) continue;
        if (client.destroyed) { upstream.destroy(); return; }
        sockets.add(upstream);
        upstream.on('close', () => { sockets.delete(upstream); client.destroy(); });
        upstream.on('error', () => client.destroy());
        client.on('error', () => upstream.destroy());
        client.on('close', () => upstream.destroy());
        client.pipe(upstream).pipe(client);
        client.resume();
        return;
      }
      client.destroy();
    })();
  });
  return new Promise((resolve) => {
    server.listen(0, '127.0.0.1', () => resolve({
      port: (server.address() as { port: number }).port, backends,
      close: () => new Promise((r) => { for (const s of sockets) s.destroy(); server.close(() => r()); }),
    }));
  });
}
