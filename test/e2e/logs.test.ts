/**
 * Container logs end to end: a real `k8ts server`, a real `k8ts agent
 * --runtime simulated` process whose kubelet API listens on 127.0.0.1, and the
 * real kubectl. `kubectl logs` goes kubectl → API server (pods/log) → the
 * kubelet's /containerLogs → the simulated runtime's CRI log file; nodes/proxy
 * reaches the kubelet the same way. The kubelet refuses anyone without a
 * certificate from the cluster CA.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import https from 'node:https';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse, stringify } from 'yaml';
import { startCluster, eventually, cliPath, type Cluster } from './harness.js';
import { apiRequest, killChild, lineReader } from './helpers.js';

const node = 'logs-node';

function podYAML(name: string, opts: { containers?: string[]; annotations?: Record<string, string>; nodeName?: string | null } = {}): string {
  return stringify({
    apiVersion: 'v1', kind: 'Pod', metadata: { name, annotations: opts.annotations ?? {} },
    spec: {
      ...(opts.nodeName === null ? {} : { nodeName: opts.nodeName ?? node }),
      // An image the simulation knows no entrypoint of: its log is the simulated lifecycle (nginx's is nginx's own, nginx-log.ts).
      containers: (opts.containers ?? ['web']).map((c) => ({ name: c, image: 'registry.k8s.io/pause:3.10' })),
    },
  });
}

/** A GET to the kubelet's port, with the admin's certificate or with none. */
function kubeletGet(port: number, path: string, creds?: { cert: string; key: string }): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = https.request({ host: '127.0.0.1', port, path, rejectUnauthorized: false, agent: false, ...(creds ?? {}) }, (res) => {
      let body = '';
      res.on('data', (d) => { body += d; });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

/** An exec or attach upgrade (SPDY/3.1, as the API server sends) to the kubelet that it refuses: its status and body. */
function kubeletUpgradeRefused(port: number, path: string, creds: { cert: string; key: string }): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = https.request({ host: '127.0.0.1', port, path, method: 'POST', rejectUnauthorized: false, agent: false, ...creds,
      headers: { Connection: 'Upgrade', Upgrade: 'SPDY/3.1', 'X-Stream-Protocol-Version': 'v4.channel.k8s.io' } }, (res) => {
      let body = '';
      res.on('data', (d) => { body += d; });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('upgrade', (_res, socket) => { socket.destroy(); reject(new Error(`${path}: upgraded, not refused`)); });
    req.on('error', reject);
    req.end();
  });
}

describe('kubectl logs through the kubelet of a simulated node', () => {
  let cluster: Cluster;
  let agent: ChildProcess;
  let agentStderr = '';
  let logsDir: string;
  let kubeletPort: number;

  before(async () => {
    cluster = await startCluster();
    logsDir = mkdtempSync(join(tmpdir(), 'k8ts-e2e-podlogs-'));
    agent = spawn(process.execPath, [cliPath, 'agent', '--kubeconfig', cluster.kubeconfig, '--node-name', node, '--runtime', 'simulated',
      '--node-ip', '127.0.0.1', '--address', '127.0.0.1', '--kubelet-port', '0', '--pod-logs-dir', logsDir, '--delete-delay', '300ms'],
    { stdio: ['ignore', 'ignore', 'pipe'] });
    agent.stderr!.on('data', (d) => { agentStderr += d; });
    const nodeObj = await eventually(async () => {
      const n = JSON.parse((await cluster.kubectl(['get', 'node', node, '-o', 'json'])).stdout);
      return n.status.conditions.some((c: any) => c.type === 'Ready' && c.status === 'True') ? n : undefined;
    }, 15_000, `${node} Ready (agent: ${agentStderr})`);
    kubeletPort = nodeObj.status.daemonEndpoints.kubeletEndpoint.Port;
    await cluster.kubectl(['apply', '-f', '-'], { input: [podYAML('web'), podYAML('two', { containers: ['a', 'b'] })].join('---\n') });
    for (const p of ['web', 'two']) {
      await eventually(async () => (await cluster.kubectl(['get', 'pod', p, '-o', 'jsonpath={.status.phase}'])).stdout === 'Running', 10_000, `${p} Running`);
    }
  });

  after(async () => {
    if (agent) await killChild(agent);
    await cluster?.cleanup();
    if (logsDir) rmSync(logsDir, { recursive: true, force: true });
  });

  it('the node reports the kubelet\'s real port and address', async () => {
    assert.ok(kubeletPort > 0 && kubeletPort !== 10250, `port ${kubeletPort}`);
    const addresses = JSON.parse((await cluster.kubectl(['get', 'node', node, '-o', 'jsonpath={.status.addresses}'])).stdout);
    assert.deepEqual(addresses[0], { type: 'InternalIP', address: '127.0.0.1' });
  });

  it('kubectl logs prints the simulated lifecycle lines', async () => {
    assert.equal((await cluster.kubectl(['logs', 'web'])).stdout, 'Created container web\nStarted container web\n');
  });

  it('--timestamps prefixes RFC3339 timestamps with nine fractional digits; --tail keeps the last lines', async () => {
    const lines = (await cluster.kubectl(['logs', 'web', '--timestamps'])).stdout.trimEnd().split('\n');
    assert.equal(lines.length, 2);
    for (const [i, text] of ['Created container web', 'Started container web'].entries()) {
      assert.match(lines[i]!, new RegExp(`^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}\\.\\d{9}Z ${text}$`));
    }
    assert.equal((await cluster.kubectl(['logs', 'web', '--tail=1'])).stdout, 'Started container web\n');
    assert.equal((await cluster.kubectl(['logs', 'web', '--tail=0'])).stdout, '');
    assert.equal((await cluster.kubectl(['logs', 'web', '--limit-bytes=7'])).stdout, 'Created');
    assert.equal((await cluster.kubectl(['logs', 'web', '--since=1h'])).stdout, 'Created container web\nStarted container web\n');
  });

  it('-c picks a container; the API server wants one for a pod with several, in upstream\'s words', async () => {
    assert.equal((await cluster.kubectl(['logs', 'two', '-c', 'b'])).stdout, 'Created container b\nStarted container b\n');
    // kubectl itself defaults to the first container, so ask the API server directly.
    const none = await cluster.kubectl(['get', '--raw', '/api/v1/namespaces/default/pods/two/log'], { allowFail: true });
    assert.equal(none.code, 1);
    assert.match(none.stderr, /Error from server \(BadRequest\): a container name must be specified for pod two, choose one of: \[a b\]/);
    const wrong = await apiRequest(cluster, '/api/v1/namespaces/default/pods/two/log?container=zz');
    assert.equal(wrong.status, 400);
    assert.equal(wrong.json().message, 'container zz is not valid for pod two');
  });

  it('--previous without a terminated container, and bad options, fail as upstream does', async () => {
    const prev = await cluster.kubectl(['logs', 'web', '--previous'], { allowFail: true });
    assert.equal(prev.code, 1);
    assert.match(prev.stderr, /Error from server \(BadRequest\): previous terminated container "web" in pod "web" not found/);
    const tail = await apiRequest(cluster, '/api/v1/namespaces/default/pods/web/log?tailLines=-2');
    assert.equal(tail.status, 422);
    assert.equal(tail.json().message, 'PodLogOptions "web" is invalid: tailLines: Invalid value: -2: must be greater than or equal to 0');
    const both = await apiRequest(cluster, '/api/v1/namespaces/default/pods/web/log?sinceSeconds=5&sinceTime=2024-01-01T00:00:00Z');
    assert.equal(both.status, 422);
    const bad = await apiRequest(cluster, '/api/v1/namespaces/default/pods/web/log?limitBytes=ten');
    assert.equal(bad.status, 400);
    assert.equal(bad.json().message, 'strconv.ParseInt: parsing "ten": invalid syntax');
  });

  it('a pod whose containers have not started yet, and a pod on no node, as upstream answers', async () => {
    await cluster.kubectl(['apply', '-f', '-'], { input: [podYAML('slow', { annotations: { 'k8ts.io/sim-start-delay': '1h' } }), podYAML('nowhere', { nodeName: null })].join('---\n') });
    await eventually(async () => (await cluster.kubectl(['get', 'pod', 'slow', '-o', 'jsonpath={.status.containerStatuses[0].state.waiting.reason}'])).stdout === 'ContainerCreating', 10_000, 'slow ContainerCreating');
    const slow = await cluster.kubectl(['logs', 'slow'], { allowFail: true });
    assert.equal(slow.code, 1);
    assert.match(slow.stderr, /Error from server \(BadRequest\): container "web" in pod "slow" is waiting to start: ContainerCreating/);
    // Not scheduled: upstream's empty location, 204 with no body; kubectl prints nothing.
    const nowhere = await cluster.kubectl(['logs', 'nowhere']);
    assert.equal(nowhere.stdout, '');
    assert.equal((await apiRequest(cluster, '/api/v1/namespaces/default/pods/nowhere/log')).status, 204);
  });

  it('logs -f streams until the container stops, and a follower can be cut off', async () => {
    await cluster.kubectl(['apply', '-f', '-'], { input: podYAML('followed') });
    await eventually(async () => (await cluster.kubectl(['get', 'pod', 'followed', '-o', 'jsonpath={.status.phase}'])).stdout === 'Running', 10_000, 'followed Running');
    const follower = cluster.spawnKubectl(['logs', '-f', 'followed']);
    const cutOff = cluster.spawnKubectl(['logs', '-f', 'web']);
    try {
      const out = lineReader(follower);
      await out.waitFor((l) => l === 'Started container web', 'the lines so far');
      const other = lineReader(cutOff);
      await other.waitFor((l) => l === 'Started container web', 'web\'s lines');
      const exited = new Promise<number | null>((r) => follower.once('exit', (code) => r(code)));
      // Still open: deleting the pod writes the stop to the log, the follower prints it, and the stream ends with the container.
      assert.equal(follower.exitCode, null);
      await cluster.kubectl(['delete', 'pod', 'followed', '--wait=false']);
      await out.waitFor((l) => l === 'Container web exited with code 0 (Completed)', 'the stop lines');
      assert.equal(await exited, 0);
      assert.deepEqual(out.lines, ['Created container web', 'Started container web', 'Stopping container web', 'Container web exited with code 0 (Completed)']);
      assert.equal(cutOff.exitCode, null, 'web still runs, so its follower is still streaming');
    } finally {
      await killChild(follower);
      await killChild(cutOff);
    }
    // The API server and the kubelet still serve after the follower went away.
    assert.equal((await cluster.kubectl(['logs', 'web', '--tail=1'])).stdout, 'Started container web\n');
  });

  it('a finished pod keeps its logs until it is deleted, as upstream keeps its dead containers', async () => {
    const done = stringify({
      apiVersion: 'v1', kind: 'Pod', metadata: { name: 'finished' },
      spec: { nodeName: node, restartPolicy: 'Never', containers: [{ name: 'job', image: 'busybox' }] },
    });
    await cluster.kubectl(['apply', '-f', '-'], { input: done });
    await eventually(async () => (await cluster.kubectl(['get', 'pod', 'finished', '-o', 'jsonpath={.status.phase}'])).stdout === 'Succeeded', 30_000, 'finished Succeeded');
    // The kubelet acts on the terminal phase (it stops the pod) after writing it: wait for the last line, not a fixed time.
    const logs = await eventually(async () => {
      const r = await cluster.kubectl(['logs', 'finished']);
      return /Container job exited with code 0 \(Completed\)\n$/.test(r.stdout) && r;
    }, 30_000, 'the exit line in the logs of finished');
    assert.match(logs.stdout, /^Created container job\nStarted container job\n/);
    assert.match(logs.stdout, /Container job exited with code 0 \(Completed\)\n$/);
  });

  it('nodes/proxy reaches the kubelet: healthz and the node\'s pods', async () => {
    assert.equal((await cluster.kubectl(['get', '--raw', `/api/v1/nodes/${node}/proxy/healthz`])).stdout, 'ok');
    const pods = JSON.parse((await cluster.kubectl(['get', '--raw', `/api/v1/nodes/${node}/proxy/pods`])).stdout);
    assert.equal(pods.kind, 'PodList');
    assert.ok(pods.items.some((p: any) => p.metadata.name === 'web' && p.status.phase === 'Running'));
    const missing = await cluster.kubectl(['get', '--raw', '/api/v1/nodes/no-such-node/proxy/healthz'], { allowFail: true });
    assert.match(missing.stderr, /nodes "no-such-node" not found/);
  });

  it('the kubelet refuses anonymous callers with 401 and serves a cluster-CA certificate', async () => {
    for (const path of ['/healthz', '/pods', '/containerLogs/default/web/web']) {
      const anon = await kubeletGet(kubeletPort, path);
      assert.equal(anon.status, 401, path);
      assert.equal(anon.body, 'Unauthorized');
    }
    const cfg = parse(readFileSync(cluster.kubeconfig, 'utf8'));
    const b64 = (s: string) => Buffer.from(s, 'base64').toString('utf8');
    const admin = { cert: b64(cfg.users[0].user['client-certificate-data']), key: b64(cfg.users[0].user['client-key-data']) };
    assert.deepEqual(await kubeletGet(kubeletPort, '/healthz', admin), { status: 200, body: 'ok' });
    assert.deepEqual(await kubeletGet(kubeletPort, '/containerLogs/default/web/web?tailLines=1', admin), { status: 200, body: 'Started container web\n' });
    assert.deepEqual(await kubeletGet(kubeletPort, '/containerLogs/default/web/nope', admin), { status: 404, body: 'container "nope" not found in pod "web"' });
    // exec and attach to what is not running, in the upstream kubelet's words (GetExec, GetAttach with the pod's full name;
    // what `kubectl run --rm -i` shows when its command ended before the attach).
    assert.deepEqual(await kubeletUpgradeRefused(kubeletPort, '/exec/default/web/nope?command=true&output=1', admin), { status: 500, body: 'container not found ("nope")' });
    assert.deepEqual(await kubeletUpgradeRefused(kubeletPort, '/attach/default/web/nope?output=1', admin), { status: 500, body: 'container nope not found in pod web_default' });
    assert.deepEqual(await kubeletUpgradeRefused(kubeletPort, '/attach/default/ghost/c?output=1', admin), { status: 404, body: 'pod does not exist' });
  });
});
