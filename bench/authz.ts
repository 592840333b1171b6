/**
 * Authorization cost: ConfigMap creates/s by a user that is not in
 * system:masters (which the chain allows before RBAC is asked), on two fresh
 * servers side by side, one `--authorization-mode AlwaysAllow`, one
 * `--authorization-mode Node,RBAC` where a RoleBinding grants the user create
 * on configmaps. Rounds alternate between the two so load from elsewhere on
 * the machine hits both alike; medians of the rounds are reported. Also the
 * in-process cost of one RBAC decision over the bootstrap policy.
 *
 *   node dist/bench/authz.js [--quick] [--no-write]
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ClusterRoleBinding, RoleBinding } from 'kubernetes-types/rbac/v1.js';
import { issueCertificate } from '../src/pki/index.js';
import { bootstrapClusterRoleBindings, bootstrapClusterRoles } from '../src/api/rbac/bootstrap-policy.js';
import { rbacAuthorizer, type PolicyGetter } from '../src/apiserver/authz/rbac/index.js';
import { ApiClient, type Credentials } from './lib/client.js';
import { startServer, type ServerProcess } from './lib/server.js';
import { median } from './lib/stats.js';
import { sectionHead, table, writeSection } from './lib/results.js';
import { benchArgs } from './lib/args.js';

const repoRoot = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const cliPath = join(repoRoot, 'dist', 'src', 'cli', 'main.js');
const resultsFile = join(repoRoot, 'bench', 'RESULTS.md');
const namespace = 'bench';
const user = 'bench-user';
const log = (msg: string) => console.log(`[${new Date().toISOString().slice(11, 19)}] ${msg}`);

interface Target { mode: string; server: ServerProcess; dataDir: string; client: ApiClient; admin: ApiClient; rates: number[] }

const json = (o: unknown) => ({ body: JSON.stringify(o) });

async function prepare(mode: string): Promise<Target> {
  const dataDir = mkdtempSync(join(tmpdir(), 'k8ts-bench-authz-'));
  const server = await startServer({ cliPath, dataDir, serverArgs: ['--controllers', 'none', '--authorization-mode', mode] });
  const pki = join(dataDir, 'pki');
  const ca = { certPem: readFileSync(join(pki, 'ca.crt'), 'utf8'), keyPem: readFileSync(join(pki, 'ca.key'), 'utf8') };
  const cert = await issueCertificate({ ca, commonName: user, organizations: ['bench'], usages: ['client'], days: 1 });
  const creds: Credentials = { ...server.creds, cert: cert.certPem, key: cert.keyPem };
  const admin = new ApiClient(server.creds, 4);
  await admin.expect(201, 'POST', '/api/v1/namespaces', json({ metadata: { name: namespace } }));
  await admin.expect(201, 'POST', '/apis/rbac.authorization.k8s.io/v1/clusterroles', json({
    metadata: { name: 'configmap-writer' }, rules: [{ apiGroups: [''], resources: ['configmaps'], verbs: ['create', 'get', 'list', 'delete', 'deletecollection'] }],
  }));
  await admin.expect(201, 'POST', `/apis/rbac.authorization.k8s.io/v1/namespaces/${namespace}/rolebindings`, json({
    metadata: { name: 'bench-user-writes' }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'configmap-writer' },
    subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: user }],
  }));
  const client = new ApiClient(creds, 64);
  // The binding reaches the authorizer's cache through its watch.
  for (let i = 0; (await client.request('GET', `/api/v1/namespaces/${namespace}/configmaps?limit=1`)).status !== 200; i++) {
    if (i > 200) throw new Error(`${mode}: ${user} never got access`);
    await new Promise((r) => setTimeout(r, 50));
  }
  return { mode, server, dataDir, client, admin, rates: [] };
}

let serial = 0;
async function creates(t: Target, count: number, concurrency: number): Promise<number> {
  const started = process.hrtime.bigint();
  let next = 0;
  await Promise.all(Array.from({ length: concurrency }, async () => {
    while (next < count) {
      next++;
      await t.client.expect(201, 'POST', `/api/v1/namespaces/${namespace}/configmaps`, json({ metadata: { name: `cm-${serial++}` }, data: { k: 'v' } }));
    }
  }));
  return count / (Number(process.hrtime.bigint() - started) / 1e9);
}

/** Decisions/s of the RBAC authorizer alone over the bootstrap policy plus one RoleBinding, for the bench user. */
function decisionsPerSecond(n: number): number {
  const roles = bootstrapClusterRoles();
  roles.push({ metadata: { name: 'configmap-writer' }, rules: [{ apiGroups: [''], resources: ['configmaps'], verbs: ['create'] }] });
  const crbs: ClusterRoleBinding[] = bootstrapClusterRoleBindings();
  const rb: RoleBinding = {
    metadata: { name: 'w', namespace }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'configmap-writer' },
    subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: user }],
  };
  const policy: PolicyGetter = {
    clusterRole: (name) => roles.find((r) => r.metadata!.name === name),
    role: () => undefined,
    clusterRoleBindings: () => crbs,
    roleBindings: (ns) => (ns === namespace ? [rb] : []),
  };
  const authorize = rbacAuthorizer(policy);
  const attrs = {
    user: { name: user, groups: ['bench', 'system:authenticated'] }, verb: 'create', isResourceRequest: true, path: '', apiGroup: '', apiVersion: 'v1',
    namespace, resource: 'configmaps', subresource: '', name: '',
  };
  const started = process.hrtime.bigint();
  for (let i = 0; i < n; i++) if ((authorize(attrs) as { decision: string }).decision !== 'allow') throw new Error('denied');
  return n / (Number(process.hrtime.bigint() - started) / 1e9);
}

async function main(): Promise<void> {
  const { values } = benchArgs('ConfigMap creates/s under --authorization-mode AlwaysAllow beside Node,RBAC.', { options: { quick: { type: 'boolean', default: false }, 'no-write': { type: 'boolean', default: false } } });
  const rounds = values.quick ? 3 : 7;
  const perRound = values.quick ? 200 : 1_000;
  const concurrency = 16;
  const targets: Target[] = [];
  try {
    for (const mode of ['AlwaysAllow', 'Node,RBAC']) { log(`starting --authorization-mode ${mode}`); targets.push(await prepare(mode)); }
    for (const t of targets) await creates(t, 300, concurrency); // warm-up: V8 optimizes the request path
    for (let r = 0; r < rounds; r++) {
      for (const t of (r % 2 === 0 ? targets : [...targets].reverse())) {
        const rate = await creates(t, perRound, concurrency);
        t.rates.push(rate);
        log(`round ${r + 1} ${t.mode}: ${rate.toFixed(0)} creates/s`);
      }
    }
    const decisions = median([1, 2, 3].map(() => decisionsPerSecond(200_000)));
    const [allow, rbac] = targets.map((t) => median(t.rates)) as [number, number];
    const body = [
      ...sectionHead(repoRoot, '## Authorization: ConfigMap creates/s, AlwaysAllow versus Node,RBAC (bench/authz.ts)'),
      `- Setup: two fresh \`k8ts server --controllers none\` side by side; the client is \`${user}\` (a client certificate of the cluster CA, not in system:masters), `
        + `bound by a RoleBinding to a ClusterRole granting create on configmaps in \`${namespace}\` (the Node,RBAC server also holds the bootstrap policy: `
        + `${bootstrapClusterRoleBindings().length} ClusterRoleBindings, ${bootstrapClusterRoles().length} ClusterRoles); ${rounds} rounds of ${perRound} creates at `
        + `${concurrency} concurrent requests, alternating between the servers; medians of the rounds.`,
      '',
      table(['--authorization-mode', 'creates/s (median)', 'rounds'], targets.map((t) => [t.mode, t.rates.length ? median(t.rates).toFixed(0) : 'n/a', t.rates.map((x) => x.toFixed(0)).join(', ')])),
      '',
      `Node,RBAC / AlwaysAllow: **${(rbac / allow).toFixed(3)}**. One RBAC decision in-process (the bench user's create, over the bootstrap policy and one RoleBinding): `
        + `${(1e6 / decisions).toFixed(2)} µs (${decisions.toFixed(0)} decisions/s, median of 3 × 200,000). The policy is read from an in-memory cache kept by watches, so a request lists nothing.`,
    ].join('\n');
    console.log(body);
    if (!values['no-write']) writeSection(resultsFile, 'authz', body);
  } finally {
    for (const t of targets) { t.client.close(); t.admin.close(); await t.server.stop(); rmSync(t.dataDir, { recursive: true, force: true }); }
  }
}

main().catch((e) => { console.error(e); process.exit(1); });
