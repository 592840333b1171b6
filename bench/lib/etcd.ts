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

async function etcdMetrics(url: string): Promise<string> {
  return new Promise<string>((resolve, reject) => {
    http.get(`${url}/metrics`, (res) => { let b = ''; res.setEncoding('utf8'); res.on('data', (c) => { b += c; }); res.on('end', () => resolve(b)); })
      .on('error', reject);
  });
}

function metricValue(text: string, name: string): number {
  const m = new RegExp(`^${name} (\\S+)$`, 'm').exec(text);
  if (!m) throw new Error(`etcd /metrics has no ${name}`);
  return Number(m[1]);
}

/**
 * etcd's backend file against its quota (--quota-backend-bytes, 2 GiB by default): the file's size
 * and the part of it in use (what compaction frees is reused, but only a defragmentation shrinks the file).
 */
export interface EtcdDb { totalBytes: number; inUseBytes: number }

export async function readEtcdDb(url: string): Promise<EtcdDb> {
  const text = await etcdMetrics(url);
  return { totalBytes: metricValue(text, 'etcd_mvcc_db_total_size_in_bytes'), inUseBytes: metricValue(text, 'etcd_mvcc_db_total_size_in_use_in_bytes') };
}

/**
 * etcd's batching, from its /metrics: WAL fsyncs (each persists one raft Ready's entries, however
 * many proposals it carries) and proposals committed. Deltas over a run give the writes per fsync
 * (how many txns etcd gathered into one batch) and the fsync's mean time.
 */
export interface EtcdBatching { fsyncs: number; fsyncSeconds: number; proposals: number }

export async function readEtcdBatching(url: string): Promise<EtcdBatching> {
  const text = await etcdMetrics(url);
  const value = (name: string) => metricValue(text, name);
  return {
    fsyncs: value('etcd_disk_wal_fsync_duration_seconds_count'),
    fsyncSeconds: value('etcd_disk_wal_fsync_duration_seconds_sum'),
    proposals: value('etcd_server_proposals_committed_total'),
  };
}

/** Writes per WAL fsync and the fsync's mean in ms, between two readings. */
export function batchingBetween(a: EtcdBatching, b: EtcdBatching): { perFsync: number; fsyncMs: number } {
  const fsyncs = b.fsyncs - a.fsyncs;
  return { perFsync: fsyncs ? (b.proposals - a.proposals) / fsyncs : 0, fsyncMs: fsyncs ? ((b.fsyncSeconds - a.fsyncSeconds) * 1000) / fsyncs : 0 };
}

/** The Ranges etcd has answered OK (its gRPC counter): a list page's storage reads, counted. */
export async function readEtcdRanges(url: string): Promise<number> {
  const text = await etcdMetrics(url);
  const m = /^grpc_server_handled_total\{grpc_code="OK",grpc_method="Range",grpc_service="etcdserverpb.KV",grpc_type="unary"\} (\d+)$/m.exec(text);
  if (!m) throw new Error('etcd /metrics has no Range counter');
  return Number(m[1]);
}
