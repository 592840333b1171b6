/**
 * Admission webhook cost: pod creates/s on one `k8ts server` with 0, 1 and 3
 * ValidatingWebhookConfigurations installed (each one webhook on pods CREATE,
 * failurePolicy Fail, allowing everything), answered by an HTTPS webhook server
 * in this process (its own CA, keep-alive connections). Rounds cycle through the
 * three settings (order alternating) on the same server, so load from elsewhere
 * hits all alike; medians of the rounds are reported, with the server's CPU per
 * create. The 0 row is the same server with no webhook installed: the baseline.
 *
 *   node dist/bench/webhooks.js [--quick] [--no-write]
 */
import https from 'node:https';
import { mkdtempSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createCA, issueCertificate } from '../src/pki/index.js';
import { ApiClient } from './lib/client.js';
import { createPods, type CreateRun } from './lib/load.js';
import { readCpuMs, startServer } from './lib/server.js';
import { median } from './lib/stats.js';
import { sectionHead, table, writeSection } from './lib/results.js';
import { benchArgs } from './lib/args.js';

const repoRoot = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const cliPath = join(repoRoot, 'dist', 'src', 'cli', 'main.js');
const resultsFile = join(repoRoot, 'bench', 'RESULTS.md');
const namespace = 'bench';
const settings = [0, 1, 3];
const log = (msg: string) => console.log(`[${new Date().toISOString().slice(11, 19)}] ${msg}`);

/** An HTTPS webhook that allows every review; counts them. */
async function startAllowingWebhook(): Promise<{ url: string; caBundle: string; calls: () => number; close(): void }> {
  const ca = await createCA({ commonName: 'bench-webhook-ca', days: 1 });
  const leaf = await issueCertificate({ ca, commonName: 'bench-webhook', ipAddresses: ['127.0.0.1'], usages: ['server'], days: 1 });
  let calls = 0;
  const server = https.createServer({ cert: leaf.certPem, key: leaf.keyPem, keepAlive: true }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      calls++;
      const uid = JSON.parse(Buffer.concat(chunks).toString('utf8')).request.uid;
      res.setHeader('Content-Type', 'application/json');
      res.end(JSON.stringify({ apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', response: { uid, allowed: true } }));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  return { url: `https://127.0.0.1:${port}/validate`, caBundle: Buffer.from(ca.certPem).toString('base64'), calls: () => calls, close: () => { server.closeAllConnections(); server.close(); } };
}

const configPath = '/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations';

/** Installs exactly `n` configurations (bench-0 .. bench-n-1), then waits for the server's cache to hold them. */
async function installWebhooks(admin: ApiClient, n: number, hook: { url: string; caBundle: string }, calls: () => number): Promise<void> {
  for (let i = 0; i < 3; i++) {
    const name = `bench-${i}`;
    if (i < n) {
      await admin.request('POST', configPath, { body: JSON.stringify({
        metadata: { name },
        webhooks: [{
          name: `${name}.bench.example.com`, admissionReviewVersions: ['v1'], sideEffects: 'None', failurePolicy: 'Fail',
          clientConfig: { url: hook.url, caBundle: hook.caBundle },
          rules: [{ operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['pods'] }],
        }],
      }) });
    } else {
      await admin.request('DELETE', `${configPath}/${name}`);
    }
  }
  // The configurations reach the admission cache through its watch: a probe pod must reach n webhooks.
  for (let tries = 0; ; tries++) {
    const before = calls();
    await admin.expect(201, 'POST', `/api/v1/namespaces/${namespace}/pods?dryRun=All`, { body: JSON.stringify({ metadata: { name: 'probe' }, spec: { containers: [{ name: 'c', image: 'i' }] } }) });
    if (calls() - before === n) return;
    if (tries > 100) throw new Error(`webhooks never took effect (wanted ${n}, saw ${calls() - before})`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

async function main(): Promise<void> {
  const { values } = benchArgs('Pod creates/s with 0, 1 and 3 validating admission webhooks.', { options: { quick: { type: 'boolean', default: false }, 'no-write': { type: 'boolean', default: false } } });
  const rounds = values.quick ? 2 : 5;
  const perRound = values.quick ? 200 : 1_000;
  const concurrency = 16;
  const dataDir = mkdtempSync(join(tmpdir(), 'k8ts-bench-webhooks-'));
  const server = await startServer({ cliPath, dataDir, serverArgs: ['--controllers', 'none'] });
  const hook = await startAllowingWebhook();
  const admin = new ApiClient(server.creds, 4);
  const client = new ApiClient(server.creds, concurrency);
  const runs = new Map<number, CreateRun[]>(settings.map((n) => [n, []]));
  let from = 0;
  try {
    await admin.expect(201, 'POST', '/api/v1/namespaces', { body: JSON.stringify({ metadata: { name: namespace } }) });
    await createPods(client, () => readCpuMs(server.pid), { namespace, prefix: 'warm', from: 0, count: 300, concurrency });
    for (let r = 0; r < rounds; r++) {
      for (const n of r % 2 === 0 ? settings : [...settings].reverse()) {
        await installWebhooks(admin, n, hook, hook.calls);
        const before = hook.calls();
        const run = await createPods(client, () => readCpuMs(server.pid), { namespace, prefix: 'pod', from, count: perRound, concurrency });
        from += perRound;
        if (hook.calls() - before !== n * perRound) throw new Error(`expected ${n * perRound} webhook calls, saw ${hook.calls() - before}`);
        runs.get(n)!.push(run);
        log(`round ${r + 1}, ${n} webhooks: ${run.perSec.toFixed(0)} creates/s, p50 ${run.p50.toFixed(1)} ms, p99 ${run.p99.toFixed(1)} ms, server CPU ${(run.cpuUsPerOp / 1000).toFixed(2)} ms/create`);
      }
    }
    const base = median(runs.get(0)!.map((x) => x.perSec));
    const rows = settings.map((n) => {
      const rs = runs.get(n)!;
      const rate = median(rs.map((x) => x.perSec));
      return [String(n), rate.toFixed(0), (rate / base).toFixed(2), median(rs.map((x) => x.p50)).toFixed(1), median(rs.map((x) => x.p99)).toFixed(1),
        (median(rs.map((x) => x.cpuUsPerOp)) / 1000).toFixed(2), rs.map((x) => x.perSec.toFixed(0)).join(', ')];
    });
    const body = [
      ...sectionHead(repoRoot, '## Admission webhooks: pod creates/s with 0, 1 and 3 validating webhooks (bench/webhooks.ts)'),
      `- Setup: one \`k8ts server --controllers none\`; ${rounds} rounds of ${perRound} creates of ~1.3 KB DaemonSet-style pods at ${concurrency} concurrent requests, `
        + 'cycling through 0, 1 and 3 ValidatingWebhookConfigurations (one webhook each on pods CREATE, failurePolicy Fail) on the same server; '
        + 'the webhook server (HTTPS, keep-alive, allows all) and the client run in the benchmark process on the same 2 cores; medians of the rounds.',
      '',
      table(['webhooks', 'creates/s', 'vs. 0', 'p50 ms', 'p99 ms', 'server CPU ms/create', 'rounds (creates/s)'], rows),
      '',
      'Anchor: upstream gives each webhook call a budget of timeoutSeconds (default 10 s) and calls validating webhooks in parallel, so a request waits for the slowest one; '
        + 'each call costs the API server one AdmissionReview encoding, one HTTPS round trip on a kept-alive connection and one decode.',
    ].join('\n');
    console.log(body);
    if (!values['no-write']) writeSection(resultsFile, 'webhooks', body);
  } finally {
    client.close(); admin.close(); hook.close();
    await server.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

main().catch((e) => { console.error(e); process.exit(1); });
