/**
 * The KV calls of the request path (Txn, Range) straight onto the gRPC channel of the one etcd
 * server, without the etcd3 client's per-call layers: a global retry policy, a circuit breaker
 * per host, an auth-metadata promise and call-option resolution (about a third of the CPU of a
 * create on etcd, in the profile). gRPC multiplexes them all on the one HTTP/2 connection, many in
 * flight at once, as upstream's clientv3 does.
 *
 * Only with a single server and without etcd auth (k8ts passes none): with several servers the
 * pool's host selection and failover are the point, and calls go through it. A call that fails
 * with an error the pool would recover from (the connection is gone) is handed to the pool, which
 * resets the channel and retries, as every call did before.
 */
import { castGrpcError, isRecoverableError, type Etcd3, type IRangeRequest, type IRangeResponse, type ITxnRequest, type ITxnResponse } from 'etcd3';

type Callback<T> = (err: Error | null, res: T) => void;
interface KvService {
  txn(req: ITxnRequest, cb: Callback<ITxnResponse>): void;
  range(req: IRangeRequest, cb: Callback<IRangeResponse>): void;
}
/** What of etcd3's (untyped, internal) connection pool this reads. */
interface PoolInternals { hosts?: Array<{ getServiceClient(name: 'KV'): KvService }> }

export interface KvCalls {
  txn(req: ITxnRequest): Promise<ITxnResponse>;
  range(req: IRangeRequest): Promise<IRangeResponse>;
}

export function directKv(client: Etcd3, servers: number): KvCalls {
  const pool = (client as unknown as { pool?: PoolInternals }).pool;
  const host = servers === 1 && pool?.hosts?.length === 1 ? pool.hosts[0] : undefined;
  if (!host) return { txn: (req) => client.kv.txn(req), range: (req) => client.kv.range(req) };
  const call = <Req, Res>(method: 'txn' | 'range', req: Req, viaPool: (r: Req) => Promise<Res>): Promise<Res> =>
    new Promise<Res>((resolve, reject) => {
      // The host caches its service client; after a reset (by the pool) it makes a new one.
      let kv: KvService;
      try {
        kv = host.getServiceClient('KV');
      } catch (err) {
        return reject(err);
      }
      (kv[method] as (r: Req, cb: Callback<Res>) => void)(req, (err, res) => {
        if (!err) return resolve(res);
        const cast = castGrpcError(err);
        if (isRecoverableError(cast)) viaPool(req).then(resolve, reject);
        else reject(cast);
      });
    });
  return {
    txn: (req) => call('txn', req, (r) => client.kv.txn(r)),
    range: (req) => call('range', req, (r) => client.kv.range(r)),
  };
}
