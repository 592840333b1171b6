/**
 * What `k8ts up` guarantees at the moment /readyz first answers 200, and at
 * the moment it prints its "export KUBECONFIG=" message: start-up work was
 * reordered and made concurrent to be ready sooner (bench/startup.ts), and
 * these orderings must survive that. At the first 200 the admin kubeconfig
 * exists (0600) and works with the real kubectl, and the bootstrap objects a
 * client may need at once (system namespaces, the RBAC policy, the
 * `kubernetes` Service) are there; once the message is printed every node is
 * registered. Both on a fresh data directory and on the same one again.
 */
import { describe, it, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, execFile, type ChildProcess } from 'node:child_process';
import { request } from 'node:https';
import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { cliPath } from './harness.js';
import { killChild, lineReader } from './helpers.js';
import { upStartMs } from './up-cluster.js';
import { freePort } from './free-port.js';

const exec = promisify(execFile);

/** One GET /readyz without credentials (public, as upstream's); 0 when nothing answers yet. */
function readyz(port: number): Promise<number> {
  return new Promise((done) => {
    const req = request({ host: '127.0.0.1', port, path: '/readyz', rejectUnauthorized: false, agent: false }, (res) => { res.resume(); done(res.statusCode ?? 0); });
    req.on('error', () => done(0));
    req.end();
  });
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Starts `k8ts up` and returns once /readyz first answers 200, polling as bench/startup.ts does. */
async function upUntilReady(dataDir: string): Promise<{ proc: ChildProcess; out: ReturnType<typeof lineReader> }> {
  const port = await freePort();
  const proc = spawn(process.execPath, [cliPath, 'up', '--data-dir', dataDir, '--port', String(port)], { stdio: ['ignore', 'pipe', 'pipe'] });
  const out = lineReader(proc);
  for (;;) {
    if (proc.exitCode !== null) throw new Error(`k8ts up exited ${proc.exitCode} before /readyz answered 200`);
    if (await readyz(port) === 200) return { proc, out };
    await sleep(5);
  }
}

const kubectl = async (kubeconfig: string, args: string[]) => (await exec('kubectl', ['--kubeconfig', kubeconfig, ...args], { timeout: 60_000 })).stdout;

describe('k8ts up: what is in place when /readyz first answers 200', () => {
  const dir = mkdtempSync(join(tmpdir(), 'k8ts-e2e-up-order-'));
  const dataDir = join(dir, 'data');
  const kubeconfig = join(dataDir, 'admin.conf');
  const running: ChildProcess[] = [];
  after(async () => {
    for (const p of running) await killChild(p);
    rmSync(dir, { recursive: true, force: true });
  });

  for (const start of ['a fresh data directory', 'the same data directory again']) {
    it(`on ${start}: the admin kubeconfig works with kubectl, the bootstrap objects exist, and the message follows the nodes`, async () => {
      const { proc, out } = await upUntilReady(dataDir);
      running.push(proc);
      // Read right after the first 200, before anything else is awaited.
      assert.ok(existsSync(kubeconfig), 'admin.conf exists at the first 200');
      assert.equal(statSync(kubeconfig).mode & 0o777, 0o600);
      for (const f of ['ca.crt', 'apiserver.crt', 'admin.crt', 'front-proxy-ca.crt', 'front-proxy-client.crt', 'sa.pub']) assert.ok(existsSync(join(dataDir, 'pki', f)), f);
      assert.equal(await kubectl(kubeconfig, ['get', '--raw', '/readyz']), 'ok');
      const namespaces = (await kubectl(kubeconfig, ['get', 'namespaces', '-o', 'name'])).split('\n');
      for (const ns of ['default', 'kube-system', 'kube-public', 'kube-node-lease']) assert.ok(namespaces.includes(`namespace/${ns}`), ns);
      assert.equal((await kubectl(kubeconfig, ['get', 'clusterrolebinding', 'cluster-admin', '-o', 'jsonpath={.roleRef.name}'])), 'cluster-admin');
      assert.equal((await kubectl(kubeconfig, ['get', 'service', 'kubernetes', '-n', 'default', '-o', 'jsonpath={.spec.clusterIP}'])), '10.96.0.1');
      assert.equal((await kubectl(kubeconfig, ['get', 'priorityclass', 'system-node-critical', '-o', 'name'])).trim(), 'priorityclass.scheduling.k8s.io/system-node-critical');
      assert.match(await kubectl(kubeconfig, ['auth', 'can-i', '*', '*']), /^yes/);
      // What `npm start` prints is printed once the nodes are registered: kubectl finds all three at once.
      const at = await out.waitFor((l) => l.includes('export KUBECONFIG='), 'the kubeconfig line', 0, upStartMs);
      assert.equal(out.lines[at]!.trim(), `export KUBECONFIG=${kubeconfig}`);
      const nodes = (await kubectl(kubeconfig, ['get', 'nodes', '-o', 'name'])).trim().split('\n').sort();
      assert.deepEqual(nodes, ['node/control-plane', 'node/worker1', 'node/worker2']);
      await killChild(proc);
      assert.equal(proc.exitCode, 0);
    });
  }
});
