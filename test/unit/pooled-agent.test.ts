import { test } from 'node:test';
import assert from 'node:assert/strict';
import https from 'node:https';
import { PooledAgent } from '../../src/client/agent.js';

// The pool names must be exactly Node's, so that requests share the connections Node would give them.
test('PooledAgent names pools as https.Agent does, per target', () => {
  const opts = { keepAlive: true, ca: 'CA PEM', cert: 'CERT PEM', key: 'KEY PEM', rejectUnauthorized: true };
  const node = new https.Agent(opts);
  const pooled = new PooledAgent(opts);
  const targets = [
    { host: '127.0.0.1', port: 6443 }, { host: '127.0.0.1', port: 6443 }, { host: '127.0.0.1', port: 6444 },
    { host: '10.0.0.1', port: 6443, servername: 'kubernetes' }, { host: '127.0.0.1', port: 6443, localAddress: '127.0.0.2' },
    { host: '127.0.0.1', port: 6443 },
  ];
  for (const t of targets) {
    // As addRequest does: the agent's own options merged into the request's.
    const merged = { ...t, ...opts };
    assert.equal(pooled.getName(merged), node.getName(merged));
  }
  assert.notEqual(pooled.getName({ host: 'a', port: 1, ...opts }), pooled.getName({ host: 'b', port: 1, ...opts }));
  node.destroy();
  pooled.destroy();
});
