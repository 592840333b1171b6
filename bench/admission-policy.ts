/**
 * ValidatingAdmissionPolicy cost: pod creates/s on two fresh servers side
 * by side, one without policies, one with a ValidatingAdmissionPolicy that
 * matches every pod create (a ConfigMap param, a variable, two validations
 * that pass) and its Deny binding. Rounds alternate between the servers so
 * load from elsewhere on the machine hits both alike; medians are reported.
 *
 *   node dist/bench/admission-policy.js [--quick] [--no-write]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ApiClient } from './lib/client.js';
import { startServer, type ServerProcess } from './lib/server.js';
import { median } from './lib/stats.js';
import { sectionHead, table, writeSection } from './lib/results.js';
import { benchArgs } from './lib/args.js';

const repoRoot = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const cliPath = join(repoRoot, 'dist', 'src', 'cli', 'main.js');
const resultsFile = join(repoRoot, 'bench', 'RESULTS.md');
const namespace = 'bench';
const log = (msg: string) => console.log(`[${new Date().toISOString().slice(11, 19)}] ${msg}`);
const json = (o: unknown) => ({ body: JSON.stringify(o) });

interface Target { label: string; server: ServerProcess; dataDir: string; client: ApiClient; rates: number[] }

const policy = {
  apiVersion: 'admissionregistration.k8s.io/v1', kind: 'ValidatingAdmissionPolicy', metadata: { name: 'pod-limits' },
  spec: {
    paramKind: { apiVersion: 'v1', kind: 'ConfigMap' },
    matchConstraints: { resourceRules: [{ apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE', 'UPDATE'], resources: ['pods'] }] },
    variables: [{ name: 'maxContainers', expression: 'int(params.data.maxContainers)' }],
    validations: [
      { expression: 'object.spec.containers.size() <= variables.maxContainers', messageExpression: "'at most ' + string(variables.maxContainers) + ' containers'" },
      { expression: "object.spec.containers.all(c, c.image != '')" },
    ],
  },
};
const binding = {
  apiVersion: 'admissionregistration.k8s.io/v1', kind: 'ValidatingAdmissionPolicyBinding', metadata: { name: 'pod-limits' },
  spec: { policyName: 'pod-limits', validationActions: ['Deny'], paramRef: { name: 'limits', parameterNotFoundAction: 'Deny' } },
};

async function prepare(label: string, withPolicy: boolean): Promise<Target> {
  const dataDir = mkdtempSync(join(tmpdir(), 'k8ts-bench-vap-'));
  const server = await startServer({ cliPath, dataDir, serverArgs: ['--controllers', 'none'] });
  const client = new ApiClient(server.creds, 64);
  await client.expect(201, 'POST', '/api/v1/namespaces', json({ metadata: { name: namespace } }));
  await client.expect(201, 'POST', `/api/v1/namespaces/${namespace}/configmaps`, json({ metadata: { name: 'limits' }, data: { maxContainers: '4' } }));
  if (withPolicy) {
    await client.expect(201, 'POST', '/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicies', json(policy));
    await client.expect(201, 'POST', '/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicybindings', json(binding));
    // The binding is enforced once its cache has it: a pod of five containers is refused.
    const five = { metadata: { name: 'five' }, spec: { automountServiceAccountToken: false, containers: Array.from({ length: 5 }, (_, i) => ({ name: `c${i}`, image: 'k8ts.local/pause:1' })) } };
    for (let i = 0; (await client.request('POST', `/api/v1/namespaces/${namespace}/pods?dryRun=All`, json(five))).status !== 422; i++) {
      if (i > 200) throw new Error('the policy was never enforced');
      await new Promise((r) => setTimeout(r, 50));
    }
  }
  return { label, server, dataDir, client, rates: [] };
}

let serial = 0;
async function creates(t: Target, count: number, concurrency: number): Promise<number> {
  const started = process.hrtime.bigint();
  let next = 0;
  await Promise.all(Array.from({ length: concurrency }, async () => {
    while (next < count) {
      next++;
      await t.client.expect(201, 'POST', `/api/v1/namespaces/${namespace}/pods`, json({
        metadata: { name: `p-${serial++}`, labels: { app: 'bench' } },
        spec: { automountServiceAccountToken: false, containers: [{ name: 'c', image: 'k8ts.local/pause:1' }] },
      }));
    }
  }));
  return count / (Number(process.hrtime.bigint() - started) / 1e9);
}

async function main(): Promise<void> {
  const { values } = benchArgs('Pod creates/s with and without one ValidatingAdmissionPolicy, two fresh servers side by side.', { options: { quick: { type: 'boolean', default: false }, 'no-write': { type: 'boolean', default: false } } });
  const rounds = values.quick ? 3 : 5;
  const perRound = values.quick ? 200 : 500;
  const concurrency = 16;
  const targets: Target[] = [];
  try {
    for (const [label, withPolicy] of [['no policy', false], ['one ValidatingAdmissionPolicy', true]] as const) {
      log(`starting: ${label}`);
      targets.push(await prepare(label, withPolicy));
    }
    for (const t of targets) await creates(t, 200, concurrency); // warm-up
    for (let r = 0; r < rounds; r++) {
      for (const t of (r % 2 === 0 ? targets : [...targets].reverse())) {
        const rate = await creates(t, perRound, concurrency);
        t.rates.push(rate);
        log(`round ${r + 1} ${t.label}: ${rate.toFixed(0)} pod creates/s`);
      }
    }
    const [none, one] = targets.map((t) => median(t.rates)) as [number, number];
    const body = [
      ...sectionHead(repoRoot, '## ValidatingAdmissionPolicy: pod creates/s with one policy versus none (bench/admission-policy.ts)'),
      `- Setup: two fresh \`k8ts server --controllers none\` side by side; one holds a ValidatingAdmissionPolicy matching pod CREATE/UPDATE (ConfigMap param, `
        + `one variable, two validations that pass: containers.size() <= param, every image non-empty) and its Deny binding; ${rounds} rounds of ${perRound} `
        + `pod creates at ${concurrency} concurrent requests (admin client), alternating between the servers; medians of the rounds.`,
      '',
      table(['server', 'pod creates/s (median)', 'rounds'], targets.map((t) => [t.label, median(t.rates).toFixed(0), t.rates.map((x) => x.toFixed(0)).join(', ')])),
      '',
      `One policy / none: **${(one / none).toFixed(3)}**.`,
    ].join('\n');
    console.log(body);
    if (!values['no-write']) writeSection(resultsFile, 'admission-policy', body);
  } finally {
    for (const t of targets) { t.client.close(); await t.server.stop(); rmSync(t.dataDir, { recursive: true, force: true }); }
  }
}

main().catch((e) => { console.error(e); process.exit(1); });
