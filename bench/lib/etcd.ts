/** A fresh private etcd (Debian's etcd-server, /usr/bin/etcd) on free loopback ports, for benchmarks. */
import { spawn, type ChildProcess } from 'node:child_process';
import http from 'node:http';
import { createServer } from 'node:net';

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => { const { port } = s.address() as { port: number }; s.close(() => resolve(port)); });
  });
}

/** pid: etcd's process, for reading its CPU (/proc/PID/stat). */
export interface Etcd { url: string; pid: number; stop(): Promise<void> }

export async function startEtcd(dir: string): Promise<Etcd> {
  const [client, peer] = [await freePort(), await freePort()];
  const url = `http://127.0.0.1:${client}`;
  const proc: ChildProcess = spawn('etcd', [
    '--data-dir', dir, '--listen-client-urls', url, '--advertise-client-urls', url,
    '--listen-peer-urls', `http://127.0.0.1:${peer}`, '--initial-advertise-peer-urls', `http://127.0.0.1:${peer}`,
    '--initial-cluster', `default=http://127.0.0.1:${peer}`,
  ], { stdio: 'ignore' });
  const stop = () => new Promise<void>((resolve) => {
    if (proc.exitCode !== null) return resolve();
    proc.once('exit', () => resolve());
    proc.kill('SIGTERM');
  });
  for (let i = 0; i < 200; i++) {
    const healthy = await new Promise<boolean>((resolve) => {
      http.get(`${url}/health`, (res) => { let b = ''; res.on('data', (c) => { b += c; }); res.on('end', () => resolve(b.includes('true'))); })
        .on('error', () => resolve(false));
    });
    if (healthy) return { url, pid: proc.pid!, stop };
    await new Promise((r) => setTimeout(r, 100));
  }
  await stop();
  throw new Error('etcd did not become healthy');
}
