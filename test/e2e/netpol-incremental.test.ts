/**
 * The NetworkPolicy agent's incremental transactions (src/netpol/table.ts)
 * against the real nft and kernel, in two network namespaces this test
 * creates: after each change (a policy created, changed, deleted; a pod
 * relabelled, given a new address, deleted, added; a namespace relabelled)
 * one namespace gets only the change's transaction, through the long-lived
 * `nft -i` the agent uses, and the other gets the whole table written anew;
 * both must then hold the same table. Each step also checks what the
 * change's transaction may touch, and that objects it did not touch kept
 * their kernel handles (they were not rewritten).
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import type { Pod, Namespace } from 'kubernetes-types/core/v1.js';
import type { NetworkPolicy } from 'kubernetes-types/networking/v1.js';
import { NftSession } from '../../src/util/nft-session.js';
import { PolicyModel } from '../../src/netpol/model.js';
import { ProgrammedTable } from '../../src/netpol/table.js';
import { renderTable } from '../../src/netpol/ruleset.js';

const tag = randomBytes(3).toString('hex');
const incremental = `k8ts-npinc-${tag}-i`;
const whole = `k8ts-npinc-${tag}-w`;
const nft = (ns: string, args: string[], input?: string) => execFileSync('ip', ['netns', 'exec', ns, 'nft', ...args], { encoding: 'utf8', input, maxBuffer: 64 * 1024 * 1024 });

/** The table as comparable data: chains with their rules, sets and maps with sorted elements; handles kept apart. */
function listing(ns: string): { objects: Map<string, string>; handles: Map<string, number> } {
  const items: any[] = JSON.parse(nft(ns, ['-j', 'list', 'table', 'inet', 'k8ts-netpol'])).nftables;
  const objects = new Map<string, string>();
  const handles = new Map<string, number>();
  for (const i of items) {
    if (i.chain) { objects.set(`chain ${i.chain.name}`, JSON.stringify([i.chain.hook, i.chain.prio])); handles.set(`chain ${i.chain.name}`, i.chain.handle); }
    if (i.rule) objects.set(`chain ${i.rule.chain}`, `${objects.get(`chain ${i.rule.chain}`)}\n${JSON.stringify(i.rule.expr)}`);
    const s = i.set ?? i.map;
    if (s) {
      objects.set(`set ${s.name}`, JSON.stringify([s.type, s.map, (s.elem ?? []).map((e: unknown) => JSON.stringify(e)).sort()]));
      handles.set(`set ${s.name}`, s.handle);
    }
  }
  return { objects, handles };
}

const pod = (ns: string, name: string, ip: string, labels: Record<string, string>, node = 'n1'): Pod => ({
  metadata: { namespace: ns, name, labels },
  spec: { nodeName: node, containers: [{ name: 'c', ports: [{ name: 'http', containerPort: 8080 }, { name: 'dns', containerPort: 53, protocol: 'UDP' }] }] },
  status: { phase: 'Running', podIP: ip },
});
const namespace = (name: string, labels: Record<string, string>): Namespace => ({ metadata: { name, labels: { 'kubernetes.io/metadata.name': name, ...labels } } });
const policy = (ns: string, name: string, spec: NetworkPolicy['spec']): NetworkPolicy => ({ metadata: { namespace: ns, name }, spec });

describe('NetworkPolicy: incremental transactions hold the same table as a whole rewrite (real nftables)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'k8ts-npinc-'));
  const wrapper = join(dir, 'nft');
  const model = new PolicyModel('n1');
  const table = new ProgrammedTable();
  let session: NftSession;

  before(async () => {
    for (const ns of [incremental, whole]) execFileSync('ip', ['netns', 'add', ns]);
    writeFileSync(wrapper, `#!/bin/sh\nexec ip netns exec ${incremental} nft "$@"\n`);
    chmodSync(wrapper, 0o755);
    session = new NftSession(wrapper);
    for (const n of [namespace('x', { team: 'a' }), namespace('y', { team: 'a' }), namespace('z', { team: 'b' })]) model.setNamespace(n.metadata!.name!, n);
    let i = 1;
    for (const ns of ['x', 'y', 'z']) {
      for (const name of ['a', 'b', 'c']) { const p = pod(ns, name, `10.0.0.${i}`, { pod: name }, name === 'c' ? 'n2' : 'n1'); model.setPod(`${ns}/${name}`, p); i++; }
    }
    model.setPolicy('x/deny', policy('x', 'deny', { podSelector: {} }));
    model.setPolicy('y/from-team-a', policy('y', 'from-team-a', { podSelector: { matchLabels: { pod: 'a' } }, ingress: [{ from: [{ namespaceSelector: { matchLabels: { team: 'a' } } }] }] }));
    model.resolve();
    model.takeDirty();
    const tx = table.full(model);
    nft(incremental, ['-f', '-'], tx.script);
    tx.commit();
  });
  after(() => {
    session?.close();
    for (const ns of [incremental, whole]) execFileSync('ip', ['netns', 'del', ns]);
    rmSync(dir, { recursive: true, force: true });
  });

  /** Applies one change both ways; returns the incremental transaction and the handles before it. */
  async function step(change: () => void): Promise<{ script: string; before: Map<string, number>; after: Map<string, number> }> {
    const before = listing(incremental).handles;
    change();
    model.resolve();
    const tx = table.partial(model, model.takeDirty());
    if (tx.script) await session.run(tx.script);
    tx.commit();
    nft(whole, ['-f', '-'], renderTable(model));
    const inc = listing(incremental);
    assert.deepEqual(inc.objects, listing(whole).objects, `after:\n${tx.script}`);
    return { script: tx.script, before, after: inc.handles };
  }

  const kept = (r: { before: Map<string, number>; after: Map<string, number> }, name: string) => assert.equal(r.after.get(name), r.before.get(name), `${name} kept its handle`);

  it('a second policy: only its chain, its sets and the map elements of the pods it selects', async () => {
    const r = await step(() => model.setPolicy('x/from-b', policy('x', 'from-b', { podSelector: { matchLabels: { pod: 'a' } }, ingress: [{ from: [{ podSelector: { matchLabels: { pod: 'b' } } }], ports: [{ port: 'http' }] }] })));
    assert.doesNotMatch(r.script, /chain inet k8ts-netpol [\w-]+-x\/deny|from-team-a|delete chain|delete set/, 'the other policies\' chains are not written');
    assert.match(r.script, /ingress-pods \{ 10\.0\.0\.1 \}/, 'x/a, now isolated by two policies, moves to another isolation chain');
    assert.doesNotMatch(r.script, /10\.0\.0\.2 : jump/, 'x/b is isolated as before');
    for (const name of [...r.before.keys()].filter((n) => /deny|from-team-a/.test(n))) kept(r, name);
  });

  it('changing one policy among several rewrites only its chain (the others keep their handles)', async () => {
    const r = await step(() => model.setPolicy('x/from-b', policy('x', 'from-b', { podSelector: { matchLabels: { pod: 'a' } }, ingress: [{ from: [{ podSelector: { matchLabels: { pod: 'b' } } }], ports: [{ port: 'dns', protocol: 'UDP' }] }] })));
    assert.match(r.script, /^flush chain inet k8ts-netpol ingress-\w+-x\/from-b$/m);
    assert.doesNotMatch(r.script, /x\/deny|from-team-a|ingress-pods/);
    for (const name of r.before.keys()) if (!name.includes('named-port')) kept(r, name);
  });

  it('a pod relabelled out of a peer set: that set loses its address, nothing else is written', async () => {
    const r = await step(() => model.setPod('x/b', pod('x', 'b', '10.0.0.2', { pod: 'd' })));
    assert.deepEqual(r.script.trim().split('\n').map((l) => l.replace(/peer-\w+/, 'peer-S')), ['delete element inet k8ts-netpol peer-S { 10.0.0.2 }']);
    await step(() => model.setPod('x/b', pod('x', 'b', '10.0.0.2', { pod: 'b' })));
  });

  it('a namespace relabelled: the namespaceSelector sets change, no chain is written', async () => {
    const r = await step(() => model.setNamespace('z', namespace('z', { team: 'a' })));
    assert.match(r.script, /elements = \{ 10\.0\.0\.7, 10\.0\.0\.8, 10\.0\.0\.9 \}/);
    assert.doesNotMatch(r.script, /chain/);
    await step(() => model.setNamespace('z', namespace('z', { team: 'b' })));
  });

  it('a pod with a new address: its named-port and peer elements and its map element move', async () => {
    const r = await step(() => model.setPod('x/a', pod('x', 'a', '10.0.1.1', { pod: 'a' })));
    assert.match(r.script, /named-port-dns \{ 10\.0\.0\.1 \. udp \. 53 \}/);
    assert.match(r.script, /ingress-pods \{ type ipv4_addr : verdict ; elements = \{ 10\.0\.1\.1 : jump/);
    assert.doesNotMatch(r.script, /chain/);
  });

  it('pods deleted and added, local and remote', async () => {
    await step(() => { model.setPod('x/b', undefined); model.setPod('z/c', undefined); });
    await step(() => { model.setPod('x/e', pod('x', 'e', '10.0.0.20', { pod: 'b' })); model.setPod('z/e', pod('z', 'e', '10.0.0.21', { pod: 'b' }, 'n2')); });
  });

  it('a policy that stops selecting local pods leaves the node; a deleted one takes its chains and sets along', async () => {
    const r = await step(() => model.setPolicy('y/from-team-a', policy('y', 'from-team-a', { podSelector: { matchLabels: { pod: 'c' } }, ingress: [{ from: [{ namespaceSelector: { matchLabels: { team: 'a' } } }] }] })));
    assert.match(r.script, /delete chain inet k8ts-netpol ingress-\w+-y\/from-team-a/);
    await step(() => model.setPolicy('x/from-b', undefined));
    await step(() => model.setPolicy('x/deny', undefined));
    assert.equal(listing(incremental).objects.size, 5, 'two maps and three base chains are left');
  });
});
