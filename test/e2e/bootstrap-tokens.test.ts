/**
 * Bootstrap tokens end to end against a real server with its tokencleaner
 * and bootstrapsigner: `k8ts token` output, bearer authentication with a
 * token (and 401 once it is expired or deleted), the cleaner deleting an
 * expired token, and cluster-info gaining and losing signatures.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { startCluster, cliPath, eventually, type Cluster } from './harness.js';
import { Clientset, loadKubeconfig } from '../../src/client/index.js';
import { createBootstrapConfigMapIfNotExists, runBootstrapTokenPhase } from '../../src/kubeadm/bootstraptoken/index.js';
import { buildKubeconfig, caCertHash, writeKubeconfig } from '../../src/pki/index.js';
import { join } from 'node:path';

let cluster: Cluster;
let clients: Clientset;

interface Run { stdout: string; stderr: string; code: number }
const k8ts = (args: string[]): Promise<Run> => new Promise((resolve) => {
  execFile(process.execPath, [cliPath, ...args], (err, stdout, stderr) => resolve({ stdout, stderr, code: err ? (err as any).code ?? 1 : 0 }));
});
const token = (args: string[]) => k8ts(['token', ...args, '--kubeconfig', cluster.kubeconfig]);

before(async () => {
  cluster = await startCluster({ controllers: 'tokencleaner,bootstrapsigner' });
  clients = new Clientset(loadKubeconfig(cluster.kubeconfig));
});
after(async () => {
  clients?.close();
  await cluster?.cleanup();
});

test('token create prints the token; list shows kubeadm\'s columns; delete prints kubeadm\'s line', async () => {
  const created = await token(['create', '--description', 'for workers']);
  assert.equal(created.code, 0, created.stderr);
  const tok = created.stdout.trim();
  assert.match(tok, /^[a-z0-9]{6}\.[a-z0-9]{16}$/);
  assert.equal((await token(['create', 'zzzzzz.0123456789abcdef', '--ttl', '0', '--usages', 'signing', '--groups', ''])).code, 0);
  const list = await token(['list']);
  assert.equal(list.code, 0, list.stderr);
  const lines = list.stdout.split('\n');
  assert.equal(lines[0], 'TOKEN                     TTL         EXPIRES                USAGES                   DESCRIPTION                                                EXTRA GROUPS');
  const row = lines.find((l) => l.startsWith(tok))!;
  assert.match(row, new RegExp(`^${tok.replace('.', '\\.')}   (23h|24h)         \\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\dZ   authentication,signing   for workers {48}system:bootstrappers:kubeadm:default-node-token$`));
  // A token in its own tabwriter block: "<never>" takes only the minimum width, as in kubeadm.
  assert.ok(lines.includes('zzzzzz.0123456789abcdef   <forever>   <never>   signing                  <none>                                                     <none>'), list.stdout);
  const secret = await clients.resource('secrets').get('kube-system', `bootstrap-token-${tok.split('.')[0]}`);
  assert.equal(secret.type, 'bootstrap.kubernetes.io/token');
  const dup = await token(['create', 'zzzzzz.0123456789abcdef']);
  assert.equal(dup.code, 1);
  assert.equal(dup.stderr, 'a token with id "zzzzzz" already exists\nTo see the stack trace of this error execute with --v=5 or higher\n');
  const del = await token(['delete', 'zzzzzz', tok]);
  assert.equal(del.stdout, `bootstrap token "zzzzzz" deleted\nbootstrap token "${tok.split('.')[0]}" deleted\n`);
  const again = await token(['delete', 'zzzzzz']);
  assert.equal(again.stderr, 'failed to delete bootstrap token "zzzzzz": secrets "bootstrap-token-zzzzzz" not found\nTo see the stack trace of this error execute with --v=5 or higher\n');
  assert.equal((await token(['list'])).stdout, '', 'no tokens: not even the header');
});

test('token create rejects what kubeadm rejects, with its words', async () => {
  const bad = await token(['create', '--usages', 'signing,foo', '--groups', 'system:masters']);
  assert.equal(bad.code, 1);
  assert.equal(bad.stderr.split('\n')[0], '[bootstrapTokens.0.usages: Invalid value: []string{"signing", "foo"}: invalid bootstrap token usage string: foo, valid usage options: signing,authentication, '
    + 'bootstrapTokens.0.groups: Invalid value: []string{"system:masters"}: token groups cannot be specified unless --usages includes "authentication", '
    + 'bootstrapTokens.0.groups: Invalid value: []string{"system:masters"}: bootstrap group "system:masters" is invalid (must match \\Asystem:bootstrappers:[a-z0-9:-]{0,255}[a-z0-9]\\z)]');
  const form = await token(['create', 'ABCDEF.0123456789abcdef']);
  assert.equal(form.stderr.split('\n')[0], 'the bootstrap token "ABCDEF.0123456789abcdef" was not of the form "\\\\A([a-z0-9]{6})\\\\.([a-z0-9]{16})\\\\z"');
});

test('--print-join-command prints kubeadm\'s join line (with its trailing space) for this cluster\'s CA', async () => {
  const r = await token(['create', '--print-join-command']);
  assert.equal(r.code, 0, r.stderr);
  const cfg = loadKubeconfig(cluster.kubeconfig);
  const m = /^k8ts join (\S+) --token ([a-z0-9]{6}\.[a-z0-9]{16}) --discovery-token-ca-cert-hash (sha256:[0-9a-f]{64}) \n$/.exec(r.stdout);
  assert.ok(m, JSON.stringify(r.stdout));
  assert.equal(`https://${m[1]}`, cfg.server);
  assert.equal(m[3], caCertHash(cfg.caPem!));
});

/**
 * What the API server answers a bearer token alone (the admin kubeconfig's client certificate would win), from
 * the real kubectl with a kubeconfig holding only the cluster and the token.
 */
async function kubectlWithToken(tok: string): Promise<Run> {
  const cfg = loadKubeconfig(cluster.kubeconfig);
  const path = join(cluster.dataDir, `token-${tok.split('.')[0]}.conf`);
  await writeKubeconfig(path, buildKubeconfig({ server: cfg.server, caCertPem: cfg.caPem!, userName: 'tls-bootstrap-token-user', token: tok }));
  return new Promise((resolve) => {
    // Who the server says the token is: every authenticated user may ask (system:basic-user), a bootstrap token included.
    execFile('kubectl', ['--kubeconfig', path, '--cache-dir', join(cluster.dataDir, 'kubectl-cache'), 'auth', 'whoami', '-o', 'jsonpath={.status.userInfo.username} {.status.userInfo.groups}'],
      (err, stdout, stderr) => resolve({ stdout, stderr, code: err ? (err as any).code ?? 1 : 0 }));
  });
}

test('a token authenticates until it is deleted; unknown and non-authentication tokens are refused (401)', async () => {
  const tok = (await token(['create'])).stdout.trim();
  const ok = await eventually(async () => { const r = await kubectlWithToken(tok); return r.code === 0 && r; }, 15_000, 'token accepted');
  assert.equal(ok.stdout, `system:bootstrap:${tok.split('.')[0]} ["system:bootstrappers","system:bootstrappers:kubeadm:default-node-token","system:authenticated"]`);
  const unknown = await kubectlWithToken('aaaaaa.0123456789abcdef');
  assert.equal(unknown.code, 1);
  assert.match(unknown.stderr, /error: You must be logged in to the server \(Unauthorized\)/);
  const signingOnly = (await token(['create', '--usages', 'signing', '--groups', ''])).stdout.trim();
  assert.match((await kubectlWithToken(signingOnly)).stderr, /Unauthorized/);
  await token(['delete', tok]);
  await eventually(async () => (await kubectlWithToken(tok)).stderr.includes('(Unauthorized)'), 15_000, 'deleted token refused');
});

test('the token cleaner deletes an expired token\'s Secret on time, and the token is refused', async () => {
  const tok = (await token(['create', '--ttl', '4s'])).stdout.trim();
  const name = `bootstrap-token-${tok.split('.')[0]}`;
  // The Secret stays until it expires (the cleaner waits for its expiration)...
  assert.equal((await clients.resource('secrets').get('kube-system', name)).metadata.name, name);
  // ...and is gone after: deleted by the cleaner, not by anyone here.
  await eventually(async () => {
    try { await clients.resource('secrets').get('kube-system', name); return false; } catch (e: any) { return e.code === 404; }
  }, 30_000, 'expired token deleted');
  assert.match((await kubectlWithToken(tok)).stderr, /Unauthorized/);
});

test('the bootstrap signer signs cluster-info for each signing token and drops signatures of deleted ones', async () => {
  const cfg = loadKubeconfig(cluster.kubeconfig);
  const lines: string[] = [];
  await createBootstrapConfigMapIfNotExists(clients, { server: cfg.server, caCertPem: cfg.caPem! }, (l) => lines.push(l));
  assert.deepEqual(lines, ['[bootstrap-token] Creating the "cluster-info" ConfigMap in the "kube-public" namespace']);
  const a = (await token(['create', 'aaaaaa.aaaaaaaaaaaaaaaa'])).stdout.trim();
  const b = (await token(['create', 'bbbbbb.bbbbbbbbbbbbbbbb', '--usages', 'authentication'])).stdout.trim();
  const cm = () => clients.resource('configmaps').get('kube-public', 'cluster-info');
  const signed = await eventually(async () => { const c = await cm(); return c.data['jws-kubeconfig-aaaaaa'] && c; }, 15_000, 'signature');
  assert.match(signed.data['jws-kubeconfig-aaaaaa'], /^eyJhbGciOiJIUzI1NiIsImtpZCI6ImFhYWFhYSJ9\.\.[A-Za-z0-9_-]{43}$/);
  assert.equal(signed.data['jws-kubeconfig-bbbbbb'], undefined, 'a token without the signing usage signs nothing');
  assert.ok(signed.data.kubeconfig.includes(`server: ${cfg.server}`));
  // A forged signature is put right.
  await clients.resource('configmaps').update({ ...signed, data: { ...signed.data, 'jws-kubeconfig-aaaaaa': 'forged..sig', 'jws-kubeconfig-cccccc': 'stale..sig' } });
  await eventually(async () => { const c = await cm(); return c.data['jws-kubeconfig-aaaaaa'] === signed.data['jws-kubeconfig-aaaaaa'] && !c.data['jws-kubeconfig-cccccc']; }, 15_000, 'resigned');
  await token(['delete', a, b]);
  await eventually(async () => !('jws-kubeconfig-aaaaaa' in (await cm()).data), 15_000, 'signature removed');
});

test('kubeadm\'s bootstrap-token phase: its lines, the token, the RBAC objects by kubeadm\'s names, and cluster-info', async () => {
  const cfg = loadKubeconfig(cluster.kubeconfig);
  const lines: string[] = [];
  const tokens = [{ token: { id: 'iiiiii', secret: 'iiiiiiiiiiiiiiii' }, ttlMs: 3_600_000, usages: ['signing', 'authentication'], groups: ['system:bootstrappers:kubeadm:default-node-token'] }];
  const phase = { tokens, clusterInfo: { server: cfg.server, caCertPem: cfg.caPem! }, now: new Date(), print: (l: string) => lines.push(l) };
  await runBootstrapTokenPhase(clients, phase);
  assert.deepEqual(lines, [
    '[bootstrap-token] Using token: iiiiii.iiiiiiiiiiiiiiii',
    '[bootstrap-token] Configuring bootstrap tokens, cluster-info ConfigMap, RBAC Roles',
    '[bootstrap-token] Configured RBAC rules to allow Node Bootstrap tokens to get nodes',
    '[bootstrap-token] Configured RBAC rules to allow Node Bootstrap tokens to post CSRs in order for nodes to get long term certificate credentials',
    '[bootstrap-token] Configured RBAC rules to allow the csrapprover controller automatically approve CSRs from a Node Bootstrap Token',
    '[bootstrap-token] Configured RBAC rules to allow certificate rotation for all node client certificates in the cluster',
    '[bootstrap-token] Creating the "cluster-info" ConfigMap in the "kube-public" namespace',
  ]);
  // Running it again (init re-run) is fine: everything exists and is updated or kept.
  await runBootstrapTokenPhase(clients, { ...phase, print: () => {} });
  const get = async (args: string[]) => JSON.parse((await cluster.kubectl(['get', ...args, '-o', 'json'])).stdout);
  const crb = async (name: string) => { const b = await get(['clusterrolebinding', name]); return [b.roleRef.name, b.subjects.map((s: any) => `${s.kind}:${s.name}`)]; };
  assert.deepEqual(await crb('kubeadm:kubelet-bootstrap'), ['system:node-bootstrapper', ['Group:system:bootstrappers:kubeadm:default-node-token']]);
  assert.deepEqual(await crb('kubeadm:get-nodes'), ['kubeadm:get-nodes', ['Group:system:bootstrappers:kubeadm:default-node-token']]);
  assert.deepEqual(await crb('kubeadm:node-autoapprove-bootstrap'),
    ['system:certificates.k8s.io:certificatesigningrequests:nodeclient', ['Group:system:bootstrappers:kubeadm:default-node-token']]);
  assert.deepEqual(await crb('kubeadm:node-autoapprove-certificate-rotation'),
    ['system:certificates.k8s.io:certificatesigningrequests:selfnodeclient', ['Group:system:nodes']]);
  assert.deepEqual((await get(['clusterrole', 'kubeadm:get-nodes'])).rules, [{ verbs: ['get'], apiGroups: [''], resources: ['nodes'] }]);
  const role = await get(['role', '-n', 'kube-public', 'kubeadm:bootstrap-signer-clusterinfo']);
  assert.deepEqual(role.rules, [{ verbs: ['get'], apiGroups: [''], resources: ['configmaps'], resourceNames: ['cluster-info'] }]);
  const rb = await get(['rolebinding', '-n', 'kube-public', 'kubeadm:bootstrap-signer-clusterinfo']);
  assert.deepEqual(rb.subjects.map((s: any) => `${s.kind}:${s.name}`), ['User:system:anonymous']);
  assert.equal(rb.roleRef.name, 'kubeadm:bootstrap-signer-clusterinfo');
  const cm = await get(['configmap', '-n', 'kube-public', 'cluster-info']);
  assert.match(cm.data.kubeconfig, /^apiVersion: v1\nclusters:\n- cluster:\n    certificate-authority-data: \S+\n    server: \S+\n  name: ""\ncontexts: null\ncurrent-context: ""\nkind: Config\npreferences: \{\}\nusers: null\n$/);
  const list = await token(['list']);
  assert.match(list.stdout, /^iiiiii\.iiiiiiiiiiiiiiii {3}/m);
});
