/**
 * The kubelet API authorizes every request (hardening issue, finding 5): a
 * real `k8ts server` signing CSRs, a real `k8ts agent --runtime simulated`
 * on node credentials (CN system:node:<name>, as kubeadm's kubelet.conf) whose
 * kubelet API listens on 127.0.0.1, the real kubectl, and HTTPS requests sent
 * straight to the kubelet's port.
 *
 *  - A certificate for CN=mallory, issued through a CSR approved with
 *    kubectl, authenticates but is refused with upstream's 403 text on /pods,
 *    /containerLogs, /stats/summary and an exec upgrade.
 *  - A service account's bearer token is checked by TokenReview: unknown
 *    tokens get 401; a known one without rights 403, and 200 once RBAC grants
 *    nodes/proxy get (after the 30 s for which upstream caches a refusal).
 *  - The API server's own kubelet client still passes: kubectl logs and
 *    nodes/proxy work.
 *  - A spray of random bearer tokens (each one a TokenReview) stalls neither
 *    the API server nor the kubelet's answers to its other callers.
 *  - With the API server gone, an undecided request is a 500, never an allow.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import https from 'node:https';
import { randomBytes } from 'node:crypto';
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { startCluster, eventually, cliPath, type Cluster } from './harness.js';
import { adminCredentials, killChild } from './helpers.js';
import { duringAttack } from './bystander.js';
import { nodeKubeconfig } from './node-credentials.js';

const node = 'authz-node';

interface Credentials { cert?: string; key?: string; token?: string }
interface KubeletResponse { status: number; body: string }

/** A request straight to the kubelet's port; `upgrade` asks for a WebSocket, as kubectl exec does. */
function kubeletRequest(port: number, path: string, creds: Credentials = {}, upgrade = false): Promise<KubeletResponse> {
  const headers: Record<string, string> = creds.token ? { Authorization: `Bearer ${creds.token}` } : {};
  if (upgrade) {
    Object.assign(headers, {
      Connection: 'Upgrade', Upgrade: 'websocket', 'Sec-WebSocket-Version': '13',
      'Sec-WebSocket-Key': randomBytes(16).toString('base64'), 'Sec-WebSocket-Protocol': 'v5.channel.k8s.io',
    });
  }
  return new Promise((resolve, reject) => {
    const req = https.request({
      host: '127.0.0.1', port, path, headers, rejectUnauthorized: false, agent: false,
      ...(creds.cert ? { cert: creds.cert, key: creds.key } : {}),
    }, (res) => {
      let body = '';
      res.on('data', (d) => { body += d; });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('upgrade', (res, socket) => { socket.destroy(); resolve({ status: res.statusCode ?? 0, body: 'upgraded' }); });
    req.on('error', reject);
    req.end();
  });
}

describe('the kubelet API authenticates and authorizes every request', () => {
  let cluster: Cluster;
  let agent: ChildProcess;
  let agentStderr = '';
  let logsDir: string;
  let port: number;
  let mallory: Credentials;

  /** A client certificate for `/CN=name` from an openssl key, through a CSR approved with kubectl and signed by csrsigning. */
  async function approvedCertificate(name: string): Promise<Credentials> {
    const keyFile = join(logsDir, `${name}.key`);
    const csr = execFileSync('openssl', ['req', '-new', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes',
      '-keyout', keyFile, '-subj', `/CN=${name}`], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
    await cluster.kubectl(['apply', '-f', '-'], {
      input: stringify({
        apiVersion: 'certificates.k8s.io/v1', kind: 'CertificateSigningRequest', metadata: { name },
        spec: { request: Buffer.from(csr).toString('base64'), signerName: 'kubernetes.io/kube-apiserver-client', usages: ['client auth'] },
      }),
    });
    await cluster.kubectl(['certificate', 'approve', name]);
    const issued = await eventually(async () => (await cluster.kubectl(['get', 'csr', name, '-o', 'jsonpath={.status.certificate}'])).stdout, 30_000, `${name}'s certificate`);
    return { cert: Buffer.from(issued, 'base64').toString(), key: readFileSync(keyFile, 'utf8') };
  }

  before(async () => {
    cluster = await startCluster({ controllers: 'csrsigning' });
    logsDir = mkdtempSync(join(tmpdir(), 'k8ts-e2e-kubelet-authz-'));
    const kubeletConf = await nodeKubeconfig(cluster, node);
    agent = spawn(process.execPath, [cliPath, 'agent', '--kubeconfig', kubeletConf, '--node-name', node, '--runtime', 'simulated',
      '--node-ip', '127.0.0.1', '--address', '127.0.0.1', '--kubelet-port', '0', '--pod-logs-dir', logsDir],
    { stdio: ['ignore', 'ignore', 'pipe'] });
    agent.stderr!.on('data', (d) => { agentStderr += d; });
    const nodeObj = await eventually(async () => {
      const n = JSON.parse((await cluster.kubectl(['get', 'node', node, '-o', 'json'])).stdout);
      return n.status.conditions.some((c: any) => c.type === 'Ready' && c.status === 'True') ? n : undefined;
    }, 30_000, `${node} Ready (agent: ${agentStderr})`);
    port = nodeObj.status.daemonEndpoints.kubeletEndpoint.Port;
    await cluster.kubectl(['apply', '-f', '-'], {
      input: stringify({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'web' }, spec: { nodeName: node, containers: [{ name: 'web', image: 'registry.k8s.io/pause:3.10', env: [{ name: 'SECRET', value: 's3cr3t' }] }] } }),
    });
    await eventually(async () => (await cluster.kubectl(['get', 'pod', 'web', '-o', 'jsonpath={.status.phase}'])).stdout === 'Running', 20_000, 'web Running');
    mallory = await approvedCertificate('mallory');
  });

  after(async () => {
    if (agent) await killChild(agent);
    await cluster?.cleanup();
    if (logsDir) rmSync(logsDir, { recursive: true, force: true });
  });

  it('the API server\'s kubelet client passes: kubectl logs and nodes/proxy work', async () => {
    assert.equal((await cluster.kubectl(['logs', 'web'])).stdout, 'Created container web\nStarted container web\n');
    const pods = JSON.parse((await cluster.kubectl(['get', '--raw', `/api/v1/nodes/${node}/proxy/pods`])).stdout);
    assert.ok(pods.items.some((p: any) => p.metadata.name === 'web'));
  });

  it('a cluster-CA certificate for mallory is refused by the API server and by the kubelet, with upstream\'s 403 text', async () => {
    const api = await kubectlGetPodsAs(cluster, mallory);
    assert.match(api, /Error from server \(Forbidden\): pods is forbidden: User "mallory" cannot list resource "pods"/);
    const forbidden = (sub: string) => ({ status: 403, body: `Forbidden (user=mallory, verb=get, resource=nodes, subresource=${sub})` });
    assert.deepEqual(await kubeletRequest(port, '/pods', mallory), forbidden('proxy'));
    assert.deepEqual(await kubeletRequest(port, '/containerLogs/default/web/web', mallory), forbidden('proxy'));
    assert.deepEqual(await kubeletRequest(port, '/stats/summary', mallory), forbidden('stats'));
    assert.deepEqual(await kubeletRequest(port, '/metrics/resource', mallory), forbidden('metrics'));
    assert.deepEqual(await kubeletRequest(port, '/exec/default/web/web?command=env&output=1', mallory, true), forbidden('proxy'));
    // Unknown paths are authorized before they are routed, as go-restful's container filters run first.
    assert.deepEqual(await kubeletRequest(port, '/no-such-path', mallory), forbidden('proxy'));
  });

  it('while mallory asks /pods, /containerLogs and /stats/summary over and over, every ask is refused and the API server and its kubelet client are served', async () => {
    const paths = ['/pods', '/containerLogs/default/web/web', '/stats/summary'];
    const refusal = (path: string) => `Forbidden (user=mallory, verb=get, resource=nodes, subresource=${path === '/stats/summary' ? 'stats' : 'proxy'})`;
    const answers = new Map<string, number>();
    // The bystander asks the API server for /readyz and a GET, and through it (as its kubelet client,
    // kube-apiserver-kubelet-client) the same three kubelet endpoints: each must be a 200 within 1 s.
    await duringAttack(cluster, async () => {
      const attacker = async () => {
        for (let round = 0; round < 50; round++) {
          for (const path of paths) {
            const r = await kubeletRequest(port, path, mallory);
            const key = `${r.status} ${r.body === refusal(path) ? 'refused' : r.body.slice(0, 200)}`;
            answers.set(key, (answers.get(key) ?? 0) + 1);
          }
        }
      };
      await Promise.all(Array.from({ length: 4 }, attacker));
    }, {
      paths: ['/readyz', '/api/v1/namespaces/default', `/api/v1/nodes/${node}/proxy/pods`,
        '/api/v1/namespaces/default/pods/web/log', `/api/v1/nodes/${node}/proxy/stats/summary`],
      minSamples: 10, pids: [agent.pid!],
    });
    assert.deepEqual([...answers], [['403 refused', 4 * 50 * paths.length]]);
  });

  it('the admin (system:masters) still reads the kubelet directly', async () => {
    const admin = adminCredentials(cluster.kubeconfig);
    const pods = await kubeletRequest(port, '/pods', admin);
    assert.equal(pods.status, 200);
    assert.ok(pods.body.includes('s3cr3t'));
    assert.deepEqual(await kubeletRequest(port, '/containerLogs/default/web/web?tailLines=1', admin), { status: 200, body: 'Started container web\n' });
  });

  it('an unknown bearer token, and no credentials at all, get 401 Unauthorized', async () => {
    assert.deepEqual(await kubeletRequest(port, '/pods', { token: 'not-a-token' }), { status: 401, body: 'Unauthorized' });
    assert.deepEqual(await kubeletRequest(port, '/pods'), { status: 401, body: 'Unauthorized' });
    assert.deepEqual(await kubeletRequest(port, '/exec/default/web/web?command=env&output=1', { token: 'not-a-token' }, true), { status: 401, body: 'Unauthorized' });
  });

  it('a service account token: 403 without rights, 200 for /pods once RBAC grants nodes/proxy get', async () => {
    await cluster.kubectl(['create', 'serviceaccount', 'reader']);
    const token = (await cluster.kubectl(['create', 'token', 'reader'])).stdout.trim();
    const user = 'system:serviceaccount:default:reader';
    assert.deepEqual(await kubeletRequest(port, '/pods', { token }), { status: 403, body: `Forbidden (user=${user}, verb=get, resource=nodes, subresource=proxy)` });
    await cluster.kubectl(['create', 'clusterrole', 'kubelet-pods-reader', '--verb=get', '--resource=nodes/proxy']);
    await cluster.kubectl(['create', 'clusterrolebinding', 'reader-kubelet-pods', '--clusterrole=kubelet-pods-reader', `--serviceaccount=default:reader`]);
    // Other subresources stay refused; the refusal of /pods is cached for up to 30 s (upstream's unauthorized TTL), then the grant counts.
    assert.deepEqual(await kubeletRequest(port, '/stats/summary', { token }), { status: 403, body: `Forbidden (user=${user}, verb=get, resource=nodes, subresource=stats)` });
    const started = Date.now();
    const granted = await eventually(async () => {
      const r = await kubeletRequest(port, '/pods', { token });
      return r.status === 200 ? r : undefined;
    }, 45_000, 'the grant to take effect');
    assert.ok(Date.now() - started < 40_000);
    assert.equal(JSON.parse(granted.body).kind, 'PodList');
    assert.deepEqual(await kubeletRequest(port, '/stats/summary', { token }), { status: 403, body: `Forbidden (user=${user}, verb=get, resource=nodes, subresource=stats)` });
  });

  it('a spray of random bearer tokens stalls neither the API server nor the kubelet\'s other callers', async () => {
    const admin = adminCredentials(cluster.kubeconfig);
    assert.equal((await kubeletRequest(port, '/healthz', admin)).status, 200);
    let spraying = true;
    let worstAdminMs = 0;
    const statuses = new Map<number, number>();
    await duringAttack(cluster, async () => {
      const spray = async () => {
        for (let i = 0; i < 40; i++) {
          const r = await kubeletRequest(port, '/pods', { token: randomBytes(24).toString('base64url') });
          statuses.set(r.status, (statuses.get(r.status) ?? 0) + 1);
        }
      };
      const probe = async () => {
        while (spraying) {
          const started = performance.now();
          assert.equal((await kubeletRequest(port, '/healthz', admin)).status, 200);
          worstAdminMs = Math.max(worstAdminMs, performance.now() - started);
          await new Promise((r) => setTimeout(r, 100));
        }
      };
      const probing = probe();
      await Promise.all(Array.from({ length: 5 }, spray)).finally(() => { spraying = false; });
      await probing;
    }, { pids: [agent.pid!] });
    // 200 reviews are more than the review client's burst (100), so they queue behind its rate limit; the admin's request
    // (certificate, cached decision) waits for none of them. 2 s, not 1: this test process itself makes every TLS handshake.
    assert.deepEqual([...statuses], [[401, 200]]);
    assert.ok(worstAdminMs < 2_000, `the kubelet answered the admin in ${Math.round(worstAdminMs)} ms during the spray`);
  });

  it('with the API server gone, an undecided request is a 500 and an unreviewed token a 401, never an allow', async () => {
    await cluster.stop();
    // Never asked before, so not cached: the SubjectAccessReview cannot be sent.
    const admin = adminCredentials(cluster.kubeconfig);
    assert.deepEqual(await kubeletRequest(port, '/metrics/resource', admin),
      { status: 500, body: 'Authorization error (user=kubernetes-admin, verb=get, resource=nodes, subresource=metrics)' });
    assert.deepEqual(await kubeletRequest(port, '/pods', { token: 'another-unknown-token' }), { status: 401, body: 'Unauthorized' });
    // An allow is cached for 5 minutes, as upstream's; mallory's refusal (30 s) has expired by now, and is not turned into an allow.
    assert.equal((await kubeletRequest(port, '/pods', admin)).status, 200);
    assert.equal((await kubeletRequest(port, '/pods', mallory)).status, 500);
  });
});

/** What kubectl says when a client certificate's user lists pods. */
async function kubectlGetPodsAs(cluster: Cluster, creds: Credentials): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), 'k8ts-e2e-mallory-'));
  try {
    const conf = join(dir, 'mallory.conf');
    writeFileSync(conf, readFileSync(cluster.kubeconfig));
    writeFileSync(join(dir, 'c.pem'), creds.cert!);
    writeFileSync(join(dir, 'k.pem'), creds.key!);
    execFileSync('kubectl', ['--kubeconfig', conf, 'config', 'set-credentials', 'mallory', '--embed-certs',
      `--client-certificate=${join(dir, 'c.pem')}`, `--client-key=${join(dir, 'k.pem')}`]);
    execFileSync('kubectl', ['--kubeconfig', conf, 'config', 'set-context', '--current', '--user=mallory']);
    const r = await cluster.kubectl(['--kubeconfig', conf, 'get', 'pods'], { allowFail: true });
    assert.equal(r.code, 1);
    return r.stderr;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
