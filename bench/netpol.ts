/**
 * NetworkPolicy rule programming (issue #21's benchmark): the time the
 * agent of `k8ts proxy` takes to program table `inet k8ts-netpol` for
 * 1,000 NetworkPolicies over 10,000 pods (100 namespaces of 100 pods, ten
 * policies each), for a node holding 100 of the pods (a 100-node cluster)
 * and for a node holding all 10,000. "compute" is the agent's own rule
 * builder (src/netpol/ruleset.ts, the function every sync runs); "nft" is
 * the real `nft -f -` of that transaction into a network namespace the
 * benchmark creates; "one policy changed" is the next sync after one
 * policy's peer selector changed (the agent rewrites the node's whole table
 * per sync, atomically, as kube-router does).
 *
 * Run as root: `node dist/bench/netpol.js [--pods 10000] [--policies 1000] [--runs 3]`.
 * Results go to bench/RESULTS.md, section "netpol".
 */
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Pod, Namespace } from 'kubernetes-types/core/v1.js';
import type { NetworkPolicy } from 'kubernetes-types/networking/v1.js';
import { buildRuleset, type Snapshot } from '../src/netpol/ruleset.js';
import { machineLine, revisionLine, table, writeSection } from './lib/results.js';

const repoRoot = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const arg = (name: string) => { const i = process.argv.indexOf(name); return i > 0 ? process.argv[i + 1] : undefined; };
const podCount = Number(arg('--pods') ?? 10_000);
const policyCount = Number(arg('--policies') ?? 1000);
const runs = Number(arg('--runs') ?? 3);
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

function nftInto(netns: string, script: string): number {
  const t0 = performance.now();
  execFileSync('ip', ['netns', 'exec', netns, 'nft', '-f', '-'], { input: script, maxBuffer: 256 * 1024 * 1024 });
  return performance.now() - t0;
}

function measure(netns: string, nodeCount: number): string[] {
  const snap = cluster(nodeCount);
  const first: { compute: number; nft: number; bytes: number; pods: number; policies: number }[] = [];
  const change: { compute: number; nft: number }[] = [];
  for (let r = 0; r < runs; r++) {
    execFileSync('ip', ['netns', 'exec', netns, 'nft', 'flush', 'ruleset']); // only this benchmark's namespace
    let t0 = performance.now();
    const rs = buildRuleset(snap);
    const compute = performance.now() - t0;
    first.push({ compute, nft: nftInto(netns, rs.script), bytes: rs.script.length, pods: rs.isolatedPods, policies: rs.policies });
    // One policy's peer selector changes (policy-0 applies on node-0 in both layouts).
    const changed = { ...snap, policies: snap.policies.map((p, i) => (i === 0 ? { ...p, spec: { ...p.spec!, ingress: [{ from: [{ podSelector: { matchLabels: { tier: `t-${r}` } } }] }] } } : p)) };
    t0 = performance.now();
    const rs2 = buildRuleset(changed);
    const compute2 = performance.now() - t0;
    change.push({ compute: compute2, nft: nftInto(netns, rs2.script) });
  }
  const f = first[0]!;
  const fm = { compute: median(first.map((x) => x.compute)), nft: median(first.map((x) => x.nft)) };
  const cm = { compute: median(change.map((x) => x.compute)), nft: median(change.map((x) => x.nft)) };
  return [`${(podCount / nodeCount).toLocaleString('en-US')} of ${podCount.toLocaleString('en-US')} pods local (${nodeCount} node${nodeCount > 1 ? 's' : ''})`,
    `${f.policies} / ${f.pods}`, `${(f.bytes / 1024).toFixed(0)} KiB`,
    `${(fm.compute + fm.nft).toFixed(0)} ms (compute ${fm.compute.toFixed(0)}, nft ${fm.nft.toFixed(0)})`,
    `${(cm.compute + cm.nft).toFixed(0)} ms (compute ${cm.compute.toFixed(0)}, nft ${cm.nft.toFixed(0)})`];
}

const netns = `k8ts-npbench-${randomBytes(3).toString('hex')}`;
execFileSync('ip', ['netns', 'add', netns]);
let rows: string[][];
try {
  rows = [measure(netns, 100), measure(netns, 1)];
} finally {
  execFileSync('ip', ['netns', 'del', netns]);
}
const command = `sudo node dist/bench/netpol.js --pods ${podCount} --policies ${policyCount} --runs ${runs}`;
const body = [
  '## NetworkPolicy: programming 1,000 policies over 10,000 pods (bench/netpol.ts, issue #21)',
  '',
  `Command: \`${command}\` (as root: it creates a network namespace and programs nftables in it). ${machineLine()}; commit ${revisionLine(repoRoot)}.`,
  '',
  `${podCount.toLocaleString('en-US')} pods in ${nsCount} namespaces, ${policyCount.toLocaleString('en-US')} policies (five shapes: podSelector + named port, namespaceSelector, both combined, ipBlock with except + endPort, egress with DNS). "compute" is the agent's rule builder (src/netpol/ruleset.ts), "nft" the real \`nft -f -\` of the transaction into the benchmark's network namespace; the agent rewrites the node's table atomically on every sync, so a one-policy change costs a whole sync. Medians of ${runs} runs.`,
  '',
  table(['Node', 'policies applying here / isolated local pods', 'transaction', 'first programming', 'one policy changed'], rows),
];
console.log(body.join('\n'));
writeSection(join(repoRoot, 'bench', 'RESULTS.md'), 'netpol', body.join('\n'));
