/**
 * The kubelet's TLS bootstrap and client certificate rotation against a real
 * server: `k8ts agent --bootstrap-kubeconfig` authenticates with a token of
 * group system:bootstrappers, asks for a client certificate through a CSR
 * (approved here with the real `kubectl certificate approve`, signed by
 * csrsigning), writes kubelet-client-current.pem and --kubeconfig, and
 * registers its Node as system:node:<name>. With a short
 * --cluster-signing-duration it renews its certificate through a CSR it
 * makes as the node itself, which csrapproving approves (kubeadm's
 * selfnodeclient binding for system:nodes), and keeps working after the
 * first certificate has expired, without a restart. A bootstrap token may
 * ask for a certificate and nothing else, and an expired one is refused.
 */
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { X509Certificate } from 'node:crypto';
import { readFileSync, writeFileSync, existsSync, lstatSync, readlinkSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { startCluster, eventually, cliPath, type Cluster } from './harness.js';
import { adminCredentials, killChild } from './helpers.js';

const node = 'boot-1';
const token = 'abcdef.0123456789abcdef';
let cluster: Cluster;
let agent: ChildProcess | undefined;
let agentLog = '';

before(async () => {
  const dir = (await import('node:fs')).mkdtempSync(join((await import('node:os')).tmpdir(), 'k8ts-boot-'));
  const tokenFile = join(dir, 'tokens.csv');
  writeFileSync(tokenFile, `${token},system:bootstrap:abcdef,,"system:bootstrappers,system:bootstrappers:kubeadm:default-node-token"\n`);
  cluster = await startCluster({ dataDir: dir, controllers: 'csrsigning,csrapproving', extraArgs: ['--token-auth-file', tokenFile, '--cluster-signing-duration', '45s'] });
  // kubeadm's bootstrap-token phase binds its token group to system:node-bootstrapper; the bootstrap token may do nothing else.
  // Its bootstrap requests are approved here with kubectl (no nodeclient binding), renewals by csrapproving through
  // kubeadm's kubeadm:node-autoapprove-certificate-rotation binding.
  await cluster.kubectl(['create', 'clusterrolebinding', 'kubeadm:kubelet-bootstrap', '--clusterrole=system:node-bootstrapper', '--group=system:bootstrappers:kubeadm:default-node-token']);
  await cluster.kubectl(['create', 'clusterrolebinding', 'kubeadm:node-autoapprove-certificate-rotation',
    '--clusterrole=system:certificates.k8s.io:certificatesigningrequests:selfnodeclient', '--group=system:nodes']);
});
after(async () => {
  if (agent) await killChild(agent);
  await cluster?.cleanup();
  if (cluster) rmSync(cluster.dataDir, { recursive: true, force: true });
});

const csrs = async () => JSON.parse((await cluster.kubectl(['get', 'csr', '-o', 'json'])).stdout).items as any[];

/** Waits for a pending CSR from `username`, approves it with kubectl, and returns it. */
async function approveNextFrom(username: string, seen: Set<string>): Promise<any> {
  const csr = await eventually(async () => (await csrs()).find((c) => c.spec.username === username && !seen.has(c.metadata.name)),
    60_000, `a CSR from ${username} (agent: ${agentLog.slice(-2000)})`);
  seen.add(csr.metadata.name);
  await cluster.kubectl(['certificate', 'approve', csr.metadata.name]);
  return csr;
}

/** kubeadm's bootstrap-kubelet.conf: the cluster and the bootstrap token. */
function writeBootstrapKubeconfig(): string {
  const path = join(cluster.dataDir, 'bootstrap-kubelet.conf');
  writeFileSync(path, stringify({
    apiVersion: 'v1', kind: 'Config', 'current-context': 'tls-bootstrap-token-user@kubernetes',
    clusters: [{ name: 'kubernetes', cluster: { server: cluster.url, 'certificate-authority-data': Buffer.from(adminCredentials(cluster.kubeconfig).ca).toString('base64') } }],
    users: [{ name: 'tls-bootstrap-token-user', user: { token } }],
    contexts: [{ name: 'tls-bootstrap-token-user@kubernetes', context: { cluster: 'kubernetes', user: 'tls-bootstrap-token-user' } }],
  }));
  return path;
}

describe('kubelet TLS bootstrap', () => {
  test('a denied bootstrap request stops the agent with upstream\'s words', async () => {
    const dir = join(cluster.dataDir, 'denied');
    const proc = spawn(process.execPath, [cliPath, 'agent', '--bootstrap-kubeconfig', writeBootstrapKubeconfig(), '--kubeconfig', join(dir, 'kubelet.conf'),
      '--cert-dir', join(dir, 'pki'), '--node-name', 'denied-1', '--runtime', 'simulated', '--root-dir', dir], { stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    proc.stderr!.on('data', (d) => { stderr += d; });
    const exited = new Promise<number | null>((resolve) => proc.once('exit', resolve));
    try {
      const csr = await eventually(async () => (await csrs()).find((c) => c.spec.username === 'system:bootstrap:abcdef'), 60_000, `a bootstrap CSR (agent: ${stderr})`);
      await cluster.kubectl(['certificate', 'deny', csr.metadata.name]);
      assert.equal(await exited, 1);
      assert.match(stderr, /Error: certificate signing request is denied, reason: KubectlDeny, message: This CSR was denied by kubectl certificate deny\./);
      await cluster.kubectl(['delete', 'csr', csr.metadata.name]);
    } finally {
      await killChild(proc);
    }
  });

  test('bootstraps with a token, registers as system:node:<name>, and rotates its certificate', async () => {
    const bootstrapKubeconfig = writeBootstrapKubeconfig();
    const kubeconfig = join(cluster.dataDir, 'kubelet.conf');
    const certDir = join(cluster.dataDir, 'kubelet-pki');
    agent = spawn(process.execPath, [cliPath, 'agent', '--bootstrap-kubeconfig', bootstrapKubeconfig, '--kubeconfig', kubeconfig, '--cert-dir', certDir,
      '--node-name', node, '--runtime', 'simulated', '--node-ip', '127.0.0.1', '--address', '127.0.0.1', '--kubelet-port', '0',
      '--node-lease-duration-seconds', '4', '--root-dir', cluster.dataDir], { stdio: ['ignore', 'ignore', 'pipe'] });
    agent.stderr!.on('data', (d) => { agentLog += d; });
    const seen = new Set<string>();

    // Bootstrap: the token's user asks, kubectl approves, csrsigning signs.
    const bootstrapCSR = await approveNextFrom('system:bootstrap:abcdef', seen);
    assert.match(bootstrapCSR.metadata.name, /^node-csr-/);
    assert.equal(bootstrapCSR.spec.signerName, 'kubernetes.io/kube-apiserver-client-kubelet');
    assert.deepEqual(bootstrapCSR.spec.usages, ['digital signature', 'client auth']);
    assert.ok(bootstrapCSR.spec.groups.includes('system:bootstrappers'));
    const nodeObj = await eventually(async () => {
      const r = await cluster.kubectl(['get', 'node', node, '-o', 'json'], { allowFail: true });
      return r.code === 0 ? JSON.parse(r.stdout) : undefined;
    }, 60_000, `Node ${node} (agent: ${agentLog.slice(-2000)})`);
    assert.equal(nodeObj.metadata.name, node);

    const current = join(certDir, 'kubelet-client-current.pem');
    assert.ok(existsSync(current));
    // The bootstrap certificate, from its CSR: the agent may already have renewed the file on disk.
    const issued = await eventually(async () => JSON.parse((await cluster.kubectl(['get', 'csr', bootstrapCSR.metadata.name, '-o', 'json'])).stdout).status?.certificate,
      60_000, 'the bootstrap certificate');
    const first = new X509Certificate(Buffer.from(issued, 'base64'));
    assert.match(first.subject, /O=system:nodes/);
    assert.match(first.subject, /CN=system:node:boot-1/);
    const kubeletConf = readFileSync(kubeconfig, 'utf8');
    assert.match(kubeletConf, /client-certificate: .*kubelet-client-current\.pem/);

    // Rotation: the node asks as itself (csrapproving's selfnodeclient path) with a fresh key, csrsigning signs, and
    // the agent switches to the new pair without a restart. A 45 s certificate is backdated 5 minutes by the signer,
    // so its rotation deadline (70-90 % of notBefore..notAfter, as upstream computes it) is already past: the agent
    // renews at once, and keeps renewing.
    const renewal = await eventually(async () => (await csrs()).find((c) => c.spec.username === `system:node:${node}`
      && c.status?.certificate && c.status.conditions?.some((k: any) => k.type === 'Approved' && k.reason === 'AutoApproved')),
    60_000, `a renewal CSR from system:node:${node}, approved by csrapproving and issued (agent: ${agentLog.slice(-2000)})`);
    assert.match(renewal.metadata.name, /^csr-/);
    assert.ok(renewal.spec.groups.includes('system:nodes'));
    const renewed = await eventually(async () => {
      const cert = new X509Certificate(readFileSync(current, 'utf8'));
      return cert.serialNumber !== first.serialNumber && cert;
    }, 60_000, `kubelet-client-current.pem renewed (agent: ${agentLog.slice(-2000)})`);
    assert.match(renewed.subject, /CN=system:node:boot-1/);
    assert.match(renewed.subject, /O=system:nodes/);
    assert.ok(renewed.verify(new X509Certificate(adminCredentials(cluster.kubeconfig).ca).publicKey));
    // On disk as upstream's FileStore keeps it: a symlink to kubelet-client-<timestamp>.pem, switched by rename,
    // and the kubeconfig unchanged, still naming the symlink.
    assert.ok(lstatSync(current).isSymbolicLink());
    assert.match(readlinkSync(current), /kubelet-client-\d{4}-\d\d-\d\d-\d\d-\d\d-\d\d\.pem$/);
    assert.equal(readFileSync(kubeconfig, 'utf8'), kubeletConf);

    // Still the same process, still renewing its Lease as system:node:boot-1 (the Node authorizer allows only the
    // node's own Lease) after its first certificate expired, and its Node still Ready.
    const expiredAt = Date.parse(first.validTo);
    await eventually(async () => {
      const lease = JSON.parse((await cluster.kubectl(['get', 'lease', node, '-n', 'kube-node-lease', '-o', 'json'])).stdout);
      return Date.parse(lease.spec.renewTime) > expiredAt + 1000;
    }, 120_000, `lease renewed after the first certificate expired at ${first.validTo} (agent: ${agentLog.slice(-2000)})`);
    const ready = (await cluster.kubectl(['get', 'node', node, '-o', 'jsonpath={.status.conditions[?(@.type=="Ready")].status}'])).stdout;
    assert.equal(ready, 'True');
    assert.equal(agent.exitCode, null);
    assert.doesNotMatch(agentLog, /Unable to (read|watch) the certificate signing request/);
  });

  test('a bootstrap token may ask for a certificate and nothing else; an expired one is refused (401)', async () => {
    const secret = (id: string, expiration: string) => ({
      apiVersion: 'v1', kind: 'Secret', type: 'bootstrap.kubernetes.io/token', metadata: { name: `bootstrap-token-${id}`, namespace: 'kube-system' },
      stringData: { 'token-id': id, 'token-secret': '0123456789abcdef', expiration, 'usage-bootstrap-authentication': 'true',
        'auth-extra-groups': 'system:bootstrappers:kubeadm:default-node-token' },
    });
    // No tokencleaner runs here: the expired token's Secret stays, and the authenticator itself refuses it.
    const items = [secret('live01', new Date(Date.now() + 3600_000).toISOString()), secret('old001', new Date(Date.now() - 60_000).toISOString())];
    await cluster.kubectl(['apply', '-f', '-'], { input: items.map((i) => stringify(i)).join('---\n') });
    const asToken = (id: string, args: string[]) => {
      const path = join(cluster.dataDir, `token-${id}.conf`);
      writeFileSync(path, stringify({
        apiVersion: 'v1', kind: 'Config', 'current-context': 't',
        clusters: [{ name: 'c', cluster: { server: cluster.url, 'certificate-authority-data': Buffer.from(adminCredentials(cluster.kubeconfig).ca).toString('base64') } }],
        users: [{ name: 'u', user: { token: `${id}.0123456789abcdef` } }], contexts: [{ name: 't', context: { cluster: 'c', user: 'u' } }],
      }));
      return new Promise<{ code: number; stderr: string }>((resolve) => {
        const p = spawn('kubectl', ['--kubeconfig', path, '--cache-dir', join(cluster.dataDir, `cache-${id}`), ...args], { stdio: ['ignore', 'ignore', 'pipe'] });
        let stderr = '';
        p.stderr!.on('data', (d) => { stderr += d; });
        p.once('exit', (code) => resolve({ code: code ?? 1, stderr }));
      });
    };
    const csrRights = await asToken('live01', ['auth', 'can-i', 'create', 'certificatesigningrequests']);
    assert.equal(csrRights.code, 0, csrRights.stderr);
    const pods = await asToken('live01', ['get', 'pods', '--all-namespaces']);
    assert.equal(pods.code, 1);
    assert.equal(pods.stderr, 'Error from server (Forbidden): pods is forbidden: User "system:bootstrap:live01" cannot list resource "pods" in API group "" at the cluster scope\n');
    const expired = await asToken('old001', ['get', 'pods', '--all-namespaces']);
    assert.equal(expired.code, 1);
    // kubectl's words for a 401 on its discovery request.
    assert.match(expired.stderr, /\nerror: You must be logged in to the server \(the server has asked for the client to provide credentials\)\n$/);
  });
});
