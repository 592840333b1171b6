/**
 * A private etcd for one test file: /usr/bin/etcd (Debian's etcd-server) on free loopback
 * ports with its data in a temporary directory, killed and removed in after().
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface PrivateEtcd {
  /** The client URL, for --etcd-servers. */
  url: string;
  dataDir: string;
  stop(): Promise<void>;
}

async function freePort(): Promise<number> {
  const server = createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as { port: number };
  server.close();
  await once(server, 'close');
  return port;
}

export async function startEtcd(): Promise<PrivateEtcd> {
  const dataDir = mkdtempSync(join(tmpdir(), 'k8ts-etcd-'));
  const [clientPort, peerPort] = [await freePort(), await freePort()];
  const url = `http://127.0.0.1:${clientPort}`;
  const peer = `http://127.0.0.1:${peerPort}`;
  const proc: ChildProcess = spawn('etcd', [
    '--name', 'k8ts-test', '--data-dir', join(dataDir, 'data'),
    '--listen-client-urls', url, '--advertise-client-urls', url,
    '--listen-peer-urls', peer, '--initial-advertise-peer-urls', peer, '--initial-cluster', `k8ts-test=${peer}`,
  ], { stdio: ['ignore', 'ignore', 'pipe'] });
  const stop = async () => {
    if (proc.exitCode === null && proc.signalCode === null) {
      const exited = once(proc, 'exit');
      proc.kill('SIGKILL');
      await exited;
    }
    rmSync(dataDir, { recursive: true, force: true });
  };
  try {
    await new Promise<void>((resolve, reject) => {
      let log = '';
      const onData = (d: Buffer) => {
        log += d.toString();
        // etcd 3.4 says "ready to serve client requests" once its client listener accepts requests.
        if (log.includes('ready to serve client requests')) { proc.stderr!.off('data', onData); resolve(); }
      };
      proc.stderr!.on('data', onData);
      proc.once('exit', (code) => reject(new Error(`etcd exited with ${code}: ${log}`)));
      setTimeout(() => reject(new Error(`etcd not ready in 60s: ${log}`)), 60_000).unref();
    });
  } catch (err) {
    await stop();
    throw err;
  }
  proc.stderr!.resume();
  return { url, dataDir, stop };
}
