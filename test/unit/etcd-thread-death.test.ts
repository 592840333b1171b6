/**
 * The etcd client's thread dies under load (src/storage/etcd/thread-client.ts). A real control
 * plane on a private etcd serves creates and reads from many HTTPS clients while its etcd client
 * thread is ended twice, as a crash ends it (endEtcdClientThreads: the Worker terminated, so the
 * serving loop sees its 'exit', as after an uncaught error or an out-of-memory in the thread).
 * What the clients may see: a create answers 201 or a 500 saying the etcd client is unavailable
 * (kube-apiserver answers an etcd error it has no meaning for as a 500 too), a read of an
 * acknowledged object 200 or that 500, never a 404 or a 409; the thread is started again by the
 * next call, so writes succeed again; and no acknowledged write is lost: every 201 is in etcd and
 * served afterwards.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import https from 'node:https';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startControlPlane, type ControlPlane } from '../../src/cli/control-plane.js';
import { silentLogger } from '../../src/util/log.js';
import { endEtcdClientThreads } from '../../src/storage/etcd/thread-client.js';
import { channelClient } from '../../src/storage/etcd/channel-client.js';
import { prefixRange } from '../../src/storage/etcd/keys.js';
import { startEtcd, type PrivateEtcd } from '../e2e/etcd.js';

let etcd: PrivateEtcd;
let cp: ControlPlane;
let agent: https.Agent;
const dataDir = mkdtempSync(join(tmpdir(), 'k8ts-etcd-thread-death-'));

before(async () => {
  etcd = await startEtcd();
  cp = await startControlPlane({
    dataDir, port: 0, bind: '127.0.0.1', controllers: 'none', logger: silentLogger, etcd: { servers: [etcd.url], compactIntervalMs: 0 },
  });
  const { caPem, certPem, keyPem } = cp.clientConfig;
  agent = new https.Agent({ keepAlive: true, maxSockets: 32, ca: caPem, cert: certPem, key: keyPem });
});

after(async () => {
  agent?.destroy();
  await cp?.close();
  await etcd?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

interface Answer { status: number; body: string }

function call(method: string, path: string, body?: object): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = https.request({ host: '127.0.0.1', port: cp.port, path, method, agent, headers: { Accept: 'application/json', 'Content-Type': 'application/json' } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString() }));
    });
    req.on('error', reject);
    req.end(body && JSON.stringify(body));
  });
}

const configMap = (name: string) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: { v: name.repeat(20) } });
const CM = '/api/v1/namespaces/default/configmaps';

/** What the load saw. */
interface Seen { acked: string[]; createFailures: Answer[]; reads: Map<number, number>; readFailures: Answer[]; unexpected: string[] }

/** 16 clients creating ConfigMaps of new names and 4 reading acknowledged ones, until stop(). */
function load(seen: Seen): { stop(): Promise<void> } {
  let running = true;
  let next = 0;
  const creator = async () => {
    while (running) {
      const name = `c-${next++}`;
      const r = await call('POST', CM, configMap(name));
      if (r.status === 201) seen.acked.push(name);
      else if (r.status >= 500) seen.createFailures.push(r);
      else seen.unexpected.push(`create ${name}: ${r.status} ${r.body}`);
    }
  };
  const reader = async () => {
    while (running) {
      if (!seen.acked.length) { await new Promise((r) => setTimeout(r, 5)); continue; }
      const name = seen.acked[Math.floor(Math.random() * seen.acked.length)];
      const r = await call('GET', `${CM}/${name}`);
      seen.reads.set(r.status, (seen.reads.get(r.status) ?? 0) + 1);
      if (r.status >= 500) seen.readFailures.push(r);
      else if (r.status !== 200) seen.unexpected.push(`get ${name}: ${r.status} ${r.body}`);
    }
  };
  const all = Promise.all([...Array.from({ length: 16 }, creator), ...Array.from({ length: 4 }, reader)]);
  return { stop: async () => { running = false; await all; } };
}

/** A client's watch of the ConfigMaps: the names it was told were added, and whether the server ended it. */
function watchConfigMaps(): { added: Set<string>; isEnded(): boolean; close(): void } {
  const added = new Set<string>();
  let ended = false;
  let closing = false;
  const end = () => { if (!closing) ended = true; };
  const req = https.get({ host: '127.0.0.1', port: cp.port, path: `${CM}?watch=1`, agent: new https.Agent(agent.options) }, (res) => {
    let rest = '';
    res.on('data', (c: Buffer) => {
      const lines = (rest + c.toString()).split('\n');
      rest = lines.pop()!;
      for (const l of lines) {
        const e = JSON.parse(l) as { type: string; object: { metadata?: { name?: string } } };
        if (e.type === 'ADDED' && e.object.metadata?.name) added.add(e.object.metadata.name);
      }
    });
    res.on('end', end);
    res.on('error', end);
  });
  req.on('error', end);
  return { added, isEnded: () => ended, close: () => { closing = true; req.destroy(); } };
}

async function untilAcked(seen: Seen, count: number): Promise<void> {
  const deadline = Date.now() + 120_000;
  while (seen.acked.length < count) {
    if (Date.now() > deadline) throw new Error(`only ${seen.acked.length} of ${count} creates acknowledged in 2 min`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

test('the etcd client thread dies under load: 500s, never a 404; a new thread serves; nothing acknowledged is lost', async () => {
  const seen: Seen = { acked: [], createFailures: [], reads: new Map(), readFailures: [], unexpected: [] };
  const watch = watchConfigMaps();
  const running = load(seen);
  const ends: number[] = [];
  try {
    await untilAcked(seen, 200);
    assert.equal(watch.isEnded(), false, 'the watch was open when the thread ended');
    ends.push(await endEtcdClientThreads());
    await untilAcked(seen, seen.acked.length + 200);
    // The thread the next call started is the one ended now: it was started again.
    ends.push(await endEtcdClientThreads());
    await untilAcked(seen, seen.acked.length + 200);
  } finally {
    await running.stop();
    watch.close();
  }
  assert.deepEqual(ends, [1, 1], 'one thread running at each end');
  assert.deepEqual(seen.unexpected, []);
  // Calls in flight when the thread ended failed as etcd being unavailable does.
  assert.ok(seen.createFailures.length > 0, 'some creates were in flight in the thread');
  for (const f of [...seen.createFailures, ...seen.readFailures]) {
    assert.equal(f.status, 500, f.body);
    assert.match(JSON.parse(f.body).message, /^rpc error: code = Unavailable desc = etcd client thread exited/);
  }
  assert.ok((seen.reads.get(200) ?? 0) > 0, 'reads were served');
  // A client's watch open across it ended (its client lists again) or missed nothing.
  if (!watch.isEnded()) assert.deepEqual(seen.acked.filter((n) => !watch.added.has(n)), [], 'acknowledged creates a live watch missed');

  // Every acknowledged create is in etcd, and served by the API server.
  const etcdClient = channelClient({ url: etcd.url });
  try {
    // Read raw, where etcd keeps them: upstream's key layout (src/storage/etcd/key-layout.ts).
    const dir = '/registry/configmaps/default/';
    const { key, range_end: rangeEnd } = prefixRange(`${dir}c-`);
    const stored = new Set((await etcdClient.range({ key, rangeEnd })).kvs.map((kv) => kv.key.slice(dir.length)));
    assert.deepEqual(seen.acked.filter((n) => !stored.has(n)), [], 'acknowledged creates missing from etcd');
  } finally {
    etcdClient.close();
  }
  const list = await call('GET', CM);
  assert.equal(list.status, 200, list.body);
  const listed = new Set((JSON.parse(list.body) as { items: { metadata: { name: string } }[] }).items.map((i) => i.metadata.name));
  assert.deepEqual(seen.acked.filter((n) => !listed.has(n)), [], 'acknowledged creates missing from the list');
  for (const name of seen.acked.slice(-20)) assert.equal((await call('GET', `${CM}/${name}`)).status, 200, name);
});
