/**
 * NetworkPolicy rule programming (issue #21's benchmark): the time the
 * agent of `k8ts proxy` takes to program table `inet k8ts-netpol` for
 * 1,000 NetworkPolicies over 10,000 pods (100 namespaces of 100 pods, ten
 * policies each), for a node holding 100 of the pods (a 100-node cluster)
 * and for a node holding all 10,000. "compute" is the agent's own rule
 * builder (src/netpol/ruleset.ts, the function every sync runs); "nft" is
 * the real `nft -f -` of that transaction into a network namespace the
 * benchmark creates. Then, run by run, one policy's peer selector changes
 * and one local pod is relabelled (tier frontend <-> backend: it leaves or
 * joins a peer set that ten policies share), and each change is
 * timed from the agent's event to the kernel: this branch's path (the
 * model's event, its one incremental transaction through the long-lived
 * `nft -i` the agent uses, table.ts) against a baseline build's
 * (`--baseline DIR`: main's ruleset.ts rebuilds the whole table and
 * `nft -f -` replaces it), interleaved in one run, each in its own network
 * namespace. The informer and the agent's min-sync-period wait are left out
 * of both.
 *
 * Run as root: `node dist/bench/netpol.js [--pods 10000] [--policies 1000] [--runs 5] [--baseline /tmp/base-netpolsync]`.
 * Results go to bench/RESULTS.md, section "netpol".
 */
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { Pod, Namespace } from 'kubernetes-types/core/v1.js';
import type { NetworkPolicy } from 'kubernetes-types/networking/v1.js';
import type { Snapshot, Ruleset } from '../src/netpol/ruleset.js';
import { PolicyModel } from '../src/netpol/model.js';
import { ProgrammedTable } from '../src/netpol/table.js';
import { NftSession, sessionScriptLimit } from '../src/util/nft-session.js';
import { revisionLine, sectionHead, table, writeSection } from './lib/results.js';
import { benchArgs } from './lib/args.js';

const repoRoot = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const { values } = benchArgs('NetworkPolicy rule programming: compute and `nft -f -` of table inet k8ts-netpol (as root, in a network namespace).', { options: {
  pods: { type: 'string', default: '10000' },
  policies: { type: 'string', default: '1000' },
  runs: { type: 'string', default: '5' },
  baseline: { type: 'string', default: '/tmp/base-netpolsync', help: 'a built checkout of the baseline, measured beside this build' },
} });
const podCount = Number(values.pods);
const policyCount = Number(values.policies);
const runs = Number(values.runs);
const baselineDir = resolve(values.baseline);
const nsCount = 100;
const median = (xs: number[]) => { const s = [...xs].sort((a, b) => a - b); return s[Math.floor((s.length - 1) / 2)] ?? NaN; };

/** Pods spread over nsCount namespaces and nodeCount nodes, with app/tier labels and named ports. */
function cluster(nodeCount: number): Snapshot {
  const namespaces: Namespace[] = Array.from({ length: nsCount }, (_, i) => ({
    metadata: { name: `ns-${i}`, labels: { 'kubernetes.io/metadata.name': `ns-${i}`, team: `team-${i % 10}` } },
  }));
  const pods: Pod[] = Array.from({ length: podCount }, (_, i) => ({
    metadata: { namespace: `ns-${i % nsCount}`, name: `pod-${i}`, labels: { app: `app-${Math.floor(i / nsCount) % 10}`, tier: i % 3 ? 'backend' : 'frontend' } },
    spec: { nodeName: `node-${Math.floor(i / Math.ceil(podCount / nodeCount))}`, containers: [{ name: 'c', ports: [{ name: 'http', containerPort: 8080 }, { name: 'metrics', containerPort: 9090 }] }] },
    status: { phase: 'Running', podIP: `10.${64 + Math.floor(i / 65536)}.${Math.floor(i / 256) % 256}.${i % 256}` },
  }));
  const shapes = [
    (ns: string, i: number): NetworkPolicy['spec'] => ({ podSelector: { matchLabels: { app: `app-${i % 10}` } }, ingress: [{ from: [{ podSelector: { matchLabels: { tier: 'frontend' } } }], ports: [{ port: 'http', protocol: 'TCP' }] }] }),
    (_ns: string, i: number) => ({ podSelector: { matchLabels: { app: `app-${i % 10}` } }, ingress: [{ from: [{ namespaceSelector: { matchLabels: { team: `team-${i % 10}` } } }], ports: [{ port: 8080, protocol: 'TCP' }] }] }),
    (_ns: string, i: number) => ({ podSelector: { matchLabels: { tier: 'backend' } }, ingress: [{ from: [{ namespaceSelector: { matchLabels: { team: `team-${i % 10}` } }, podSelector: { matchLabels: { tier: 'frontend' } } }] }] }),
    () => ({ podSelector: {}, ingress: [{ from: [{ ipBlock: { cidr: '10.0.0.0/8', except: ['10.64.0.0/16'] } }], ports: [{ port: 9000, endPort: 9100, protocol: 'TCP' }] }] }),
    () => ({ podSelector: { matchLabels: { tier: 'frontend' } }, policyTypes: ['Egress'], egress: [{ ports: [{ port: 53, protocol: 'UDP' }, { port: 53, protocol: 'TCP' }] }, { to: [{ podSelector: { matchLabels: { tier: 'backend' } } }] }] }),
  ] as ((ns: string, i: number) => NetworkPolicy['spec'])[];
  const policies: NetworkPolicy[] = Array.from({ length: policyCount }, (_, i) => {
    const ns = `ns-${i % nsCount}`;
    return { metadata: { namespace: ns, name: `policy-${i}` }, spec: shapes[i % shapes.length]!(ns, i) };
  });
  return { namespaces, pods, policies, nodeName: 'node-0' };
}

const baseline: { buildRuleset(s: Snapshot): Ruleset } = await import(pathToFileURL(join(baselineDir, 'dist', 'src', 'netpol', 'ruleset.js')).href);

function nftInto(netns: string, script: string): void {
  execFileSync('ip', ['netns', 'exec', netns, 'nft', '-f', '-'], { input: script, maxBuffer: 256 * 1024 * 1024 });
}

const key = (o: { metadata?: { namespace?: string; name?: string } }) => `${o.metadata!.namespace}/${o.metadata!.name}`;

/** A network namespace, with an `nft` wrapper into it for the agent's long-lived session. */
function room(tag: string) {
  const netns = `k8ts-npbench-${randomBytes(3).toString('hex')}-${tag}`;
  const dir = mkdtempSync(join(tmpdir(), 'k8ts-npbench-'));
  execFileSync('ip', ['netns', 'add', netns]);
  const wrapper = join(dir, 'nft');
  writeFileSync(wrapper, `#!/bin/sh\nexec ip netns exec ${netns} nft "$@"\n`);
  chmodSync(wrapper, 0o755);
  const session = new NftSession(wrapper);
  return { netns, session, close: () => { session.close(); execFileSync('ip', ['netns', 'del', netns]); rmSync(dir, { recursive: true, force: true }); } };
}

/** The table's objects, sorted, without handles. */
function listing(netns: string): string {
  const items: any[] = JSON.parse(execFileSync('ip', ['netns', 'exec', netns, 'nft', '-j', 'list', 'table', 'inet', 'k8ts-netpol'], { encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 })).nftables;
  return items.filter((i) => !i.metainfo).map((i) => {
    const [kind, o] = Object.entries(i)[0] as [string, any];
    const { handle: _h, elem, ...rest } = o;
    return JSON.stringify([kind, rest, elem ? elem.map((e: unknown) => JSON.stringify(e)).sort() : []]);
  }).sort().join('\n');
}

interface Times { main: number[]; branch: number[]; bytes: number[] }
const newTimes = (): Times => ({ main: [], branch: [], bytes: [] });

async function measure(nodeCount: number): Promise<string[]> {
  let snap = cluster(nodeCount);
  const base = room('m');
  const inc = room('b');
  try {
    // First programming, both ways.
    let t0 = performance.now();
    const rs = baseline.buildRuleset(snap);
    nftInto(base.netns, rs.script);
    const firstMain = performance.now() - t0;
    t0 = performance.now();
    const model = new PolicyModel(snap.nodeName);
    for (const n of snap.namespaces) model.setNamespace(n.metadata!.name!, n);
    for (const p of snap.pods) model.setPod(key(p), p);
    for (const np of snap.policies) model.setPolicy(key(np), np);
    model.resolve();
    model.takeDirty();
    const tbl = new ProgrammedTable();
    const full = tbl.full(model);
    nftInto(inc.netns, full.script);
    full.commit();
    const firstBranch = performance.now() - t0;
    const policy = newTimes();
    const relabel = newTimes();
    const incremental = async (apply: () => void, into: Times) => {
      const t = performance.now();
      apply();
      model.resolve();
      const tx = tbl.partial(model, model.takeDirty());
      if (tx.script.length > sessionScriptLimit) nftInto(inc.netns, tx.script); else if (tx.script) await inc.session.run(tx.script);
      tx.commit();
      into.branch.push(performance.now() - t);
      into.bytes.push(tx.script.length);
    };
    const whole = (next: Snapshot, into: Times) => {
      const t = performance.now();
      nftInto(base.netns, baseline.buildRuleset(next).script);
      into.main.push(performance.now() - t);
    };
    for (let r = 0; r < runs; r++) {
      // One policy's peer selector changes (policy-0 applies on node-0 in both layouts).
      const changed = { ...snap.policies[0]!, spec: { ...snap.policies[0]!.spec!, ingress: [{ from: [{ podSelector: { matchLabels: { tier: `t-${r}` } } }] }] } };
      snap = { ...snap, policies: [changed, ...snap.policies.slice(1)] };
      // One local pod (pod-0, on node-0, selected by policy-0) moves between tiers: it leaves or joins the peer set of its namespace's frontend.
      const p0 = snap.pods[0]!;
      const relabelled: Pod = { ...p0, metadata: { ...p0.metadata, labels: { ...p0.metadata!.labels, tier: p0.metadata!.labels!.tier === 'frontend' ? 'backend' : 'frontend' } } };
      const afterPolicy = snap;
      snap = { ...snap, pods: [relabelled, ...snap.pods.slice(1)] };
      // Interleaved, the order alternating run by run.
      const steps = [() => whole(afterPolicy, policy), () => whole(snap, relabel)];
      const mine = [() => incremental(() => model.setPolicy(key(changed), changed), policy), () => incremental(() => model.setPod(key(relabelled), relabelled), relabel)];
      for (let i = 0; i < 2; i++) {
        if (r % 2) { await mine[i]!(); steps[i]!(); } else { steps[i]!(); await mine[i]!(); }
      }
    }
    // Both ways must end with the same table in the kernel (handles aside), or the comparison means nothing.
    if (listing(base.netns) !== listing(inc.netns)) throw new Error('the incremental table differs from the whole rewrite');
    const ms = (x: number) => `${x.toFixed(0)} ms`;
    const cell = (t: Times) => `${ms(median(t.main))} / ${ms(median(t.branch))} (${(median(t.main) / median(t.branch)).toFixed(0)}x; ${(median(t.bytes) / 1024).toFixed(1)} KiB)`;
    return [`${(podCount / nodeCount).toLocaleString('en-US')} of ${podCount.toLocaleString('en-US')} pods local (${nodeCount} node${nodeCount > 1 ? 's' : ''})`,
      `${model.activePolicies} / ${model.isolatedPods}`, `${(full.script.length / 1024).toFixed(0)} KiB`,
      `${ms(firstMain)} / ${ms(firstBranch)}`, cell(policy), cell(relabel)];
  } finally {
    base.close();
    inc.close();
  }
}

const rows = [await measure(100), await measure(1)];
const body = [
  ...sectionHead(repoRoot, '## NetworkPolicy: programming 1,000 policies over 10,000 pods, and one change (bench/netpol.ts, issue #21)', ' (run as root: it creates network namespaces and programs nftables in them)'),
  `- Baseline: ${baselineDir} at ${revisionLine(baselineDir)} (main), interleaved in the same run`,
  '',
  `${podCount.toLocaleString('en-US')} pods in ${nsCount} namespaces, ${policyCount.toLocaleString('en-US')} policies (five shapes: podSelector + named port, namespaceSelector, both combined, ipBlock with except + endPort, egress with DNS). Each cell is main / this branch. "first programming" is the whole table (rule build + \`nft -f -\`). "one policy changed" (policy-0's peer selector) and "one pod relabelled" (pod-0, local, tier frontend <-> backend: it leaves or joins the peer set ten policies of its namespace share) are timed from the agent's event to the kernel: main rebuilds and replaces the whole table; this branch applies the event to its model and writes one incremental transaction (its size in parentheses) through the agent's long-lived \`nft -i\`. Informer and min-sync-period wait left out of both. Medians of ${runs} runs.`,
  '',
  table(['Node', 'policies applying here / isolated local pods', 'full transaction', 'first programming', 'one policy changed', 'one pod relabelled'], rows),
];
console.log(body.join('\n'));
writeSection(join(repoRoot, 'bench', 'RESULTS.md'), 'netpol', body.join('\n'));
