/**
 * The etcd3 library's client (a gRPC channel per server, with its host pool and failover), for
 * what the backend's own channel client does not do: several servers, snapshots, membership.
 */
import { readFileSync } from 'node:fs';
import { Etcd3 } from 'etcd3';
import type { EtcdBackendOptions } from './options.js';

/** One client (a gRPC channel per server) shared by every request and watch of the backend. */
export function createClient(opts: EtcdBackendOptions): Etcd3 {
  if (opts.servers.length === 0) throw new Error('--etcd-servers must name at least one server');
  const ca = opts.caFile ? readFileSync(opts.caFile) : undefined;
  if ((opts.certFile || opts.keyFile) && !(opts.certFile && opts.keyFile)) {
    throw new Error('--etcd-certfile and --etcd-keyfile must be given together');
  }
  return new Etcd3({
    hosts: opts.servers,
    // A list answers every object in one message; grpc's 4 MiB default would fail big lists
    // (upstream's client lifts the limit the same way: MaxCallRecvMsgSize = math.MaxInt32).
    grpcOptions: { 'grpc.max_receive_message_length': -1 },
    // Without credentials an https:// server is verified against the system's roots.
    credentials: ca || opts.certFile ? {
      // grpc's createSsl takes null as "the system's roots".
      rootCertificate: ca ?? (null as unknown as Buffer),
      certChain: opts.certFile ? readFileSync(opts.certFile) : undefined,
      privateKey: opts.keyFile ? readFileSync(opts.keyFile) : undefined,
    } : undefined,
  });
}
