/**
 * A private etcd for one test file: /usr/bin/etcd (Debian's etcd-server) on free loopback
 * ports with its data in a temporary directory, killed and removed in after().
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createCA, issueCertificate } from '../../src/pki/certificates.js';
import { freePort } from './free-port.js';

export interface PrivateEtcd {
  /** The client URL, for --etcd-servers. */
  url: string;
  dataDir: string;
  /** With `tls`: the files for --etcd-cafile, --etcd-certfile and --etcd-keyfile. */
  caFile?: string;
  certFile?: string;
  keyFile?: string;
  /** SIGKILL, keeping the data: etcd is down until restart(). */
  kill(): Promise<void>;
  /** Starts etcd again on the same ports and data (killing it first if it runs). */
  restart(): Promise<void>;
  /** Kills etcd and removes its data. */
  stop(): Promise<void>;
}

/** A CA, etcd's serving certificate for 127.0.0.1 and a client certificate, as files in `dir`. */
async function writeTLSFiles(dir: string) {
  const ca = await createCA({ commonName: 'etcd-ca', days: 1 });
  const server = await issueCertificate({ ca, commonName: 'etcd', ipAddresses: ['127.0.0.1'], usages: ['server'], days: 1 });
  const client = await issueCertificate({ ca, commonName: 'kube-apiserver-etcd-client', usages: ['client'], days: 1 });
  const files = {
    caFile: join(dir, 'ca.crt'), serverCert: join(dir, 'server.crt'), serverKey: join(dir, 'server.key'),
    certFile: join(dir, 'client.crt'), keyFile: join(dir, 'client.key'),
  };
  writeFileSync(files.caFile, ca.certPem);
  writeFileSync(files.serverCert, server.certPem);
  writeFileSync(files.serverKey, server.keyPem);
  writeFileSync(files.certFile, client.certPem);
  writeFileSync(files.keyFile, client.keyPem);
  return files;
}


/** Spawns etcd and resolves once it serves clients; a failed start leaves no process behind. */
async function spawnEtcd(args: string[]): Promise<ChildProcess> {
  const proc = spawn('etcd', args, { stdio: ['ignore', 'ignore', 'pipe'] });
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
    await kill(proc);
    throw err;
  }
  proc.stderr!.resume();
  return proc;
}

async function kill(proc: ChildProcess): Promise<void> {
  if (proc.exitCode !== null || proc.signalCode !== null) return;
  const exited = once(proc, 'exit');
  proc.kill('SIGKILL');
  await exited;
}

/** etcd's --data-dir, --name and peer URL, for a `prepare` step that writes the data directory first. */
export interface EtcdMember { dataDir: string; name: string; peerUrl: string }

/**
 * `tls`: clients must present a certificate of a private CA (etcd's --client-cert-auth).
 * `prepare`: runs before etcd first starts, e.g. to restore a snapshot into its --data-dir.
 * `args`: more flags for etcd (e.g. a small --quota-backend-bytes).
 */
export async function startEtcd(opts: { tls?: boolean; prepare?: (member: EtcdMember) => Promise<void>; args?: string[] } = {}): Promise<PrivateEtcd> {
  const dataDir = mkdtempSync(join(tmpdir(), 'k8ts-etcd-'));
  const [clientPort, peerPort] = [await freePort(), await freePort()];
  const url = `${opts.tls ? 'https' : 'http'}://127.0.0.1:${clientPort}`;
  const tls = opts.tls ? await writeTLSFiles(dataDir) : undefined;
  const tlsArgs = tls ? ['--cert-file', tls.serverCert, '--key-file', tls.serverKey, '--trusted-ca-file', tls.caFile, '--client-cert-auth'] : [];
  const peer = `http://127.0.0.1:${peerPort}`;
  const args = [
    '--name', 'k8ts-test', '--data-dir', join(dataDir, 'data'),
    '--listen-client-urls', url, '--advertise-client-urls', url,
    '--listen-peer-urls', peer, '--initial-advertise-peer-urls', peer, '--initial-cluster', `k8ts-test=${peer}`,
    ...tlsArgs, ...(opts.args ?? []),
  ];
  if (opts.prepare) {
    await opts.prepare({ dataDir: join(dataDir, 'data'), name: 'k8ts-test', peerUrl: peer })
      .catch((err) => { rmSync(dataDir, { recursive: true, force: true }); throw err; });
  }
  let proc = await spawnEtcd(args).catch((err) => { rmSync(dataDir, { recursive: true, force: true }); throw err; });
  return {
    url, dataDir,
    ...(tls && { caFile: tls.caFile, certFile: tls.certFile, keyFile: tls.keyFile }),
    kill: () => kill(proc),
    restart: async () => { await kill(proc); proc = await spawnEtcd(args); },
    stop: async () => { await kill(proc); rmSync(dataDir, { recursive: true, force: true }); },
  };
}
