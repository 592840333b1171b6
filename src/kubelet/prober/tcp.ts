/** The tcpSocket probe (upstream pkg/probe/tcp): success when a connection opens within the timeout. */
import { connect } from 'node:net';
import type { ProbeOutcome } from './worker.js';

export function tcpProbe(host: string, port: number, timeoutMs: number): Promise<ProbeOutcome> {
  const addr = host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`;
  return new Promise((resolve) => {
    const sock = connect({ host, port });
    const done = (o: ProbeOutcome) => { clearTimeout(timer); sock.destroy(); resolve(o); };
    const timer = setTimeout(() => done({ result: 'failure', output: `dial tcp ${addr}: i/o timeout` }), timeoutMs);
    sock.once('connect', () => done({ result: 'success', output: '' }));
    sock.once('error', (e: NodeJS.ErrnoException) => done({
      result: 'failure',
      output: e.code === 'ECONNREFUSED' ? `dial tcp ${addr}: connect: connection refused` : `dial tcp ${addr}: ${e.message}`,
    }));
  });
}
