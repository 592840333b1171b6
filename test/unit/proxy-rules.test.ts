/**
 * kube-proxy's pure parts: which endpoints a service port uses
 * (CategorizeEndpoints) and what one nft transaction writes when Services
 * come, change and go (the partial sync's diff).
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Service } from 'kubernetes-types/core/v1.js';
import type { EndpointSlice, Endpoint } from 'kubernetes-types/discovery/v1.js';
import { servicePorts } from '../../src/proxy/service-port.js';
import { portRules } from '../../src/proxy/rules.js';
import { TableState, type ServiceRules } from '../../src/proxy/transaction.js';

const svc = (spec: Partial<NonNullable<Service['spec']>> = {}): Service => ({
  metadata: { name: 'web', namespace: 'ns' },
  spec: { clusterIP: '10.96.0.10', ports: [{ name: 'http', port: 80, protocol: 'TCP' }], ...spec },
});
const ep = (ip: string, conditions: Endpoint['conditions'] = {}, nodeName = 'n1'): Endpoint => ({ addresses: [ip], conditions, nodeName });
const slice = (...endpoints: Endpoint[]): EndpointSlice => ({
  addressType: 'IPv4', endpoints, ports: [{ name: 'http', port: 8080, protocol: 'TCP' }], metadata: { name: 's' },
});
const ips = (eps: { ip: string }[]) => eps.map((e) => e.ip);

describe('servicePorts: the endpoints a port uses', () => {
  const cases: [string, Endpoint[], string[], string[]][] = [
    ['ready endpoints only', [ep('1.1.1.1'), ep('1.1.1.2', { ready: false })], ['1.1.1.1'], ['1.1.1.1']],
    ['nil ready is ready', [ep('1.1.1.1', undefined)], ['1.1.1.1'], ['1.1.1.1']],
    ['terminating serving ones when none is ready', [ep('1.1.1.1', { ready: false, serving: true, terminating: true }), ep('1.1.1.2', { ready: false, serving: false, terminating: true })], ['1.1.1.1'], ['1.1.1.1']],
    ['terminating ones unused while one is ready', [ep('1.1.1.1', { ready: false, serving: true, terminating: true }), ep('1.1.1.2')], ['1.1.1.2'], ['1.1.1.2']],
    ['local ones: this node only, with their own fallback', [ep('1.1.1.1', {}, 'n2'), ep('1.1.1.2', { ready: false, serving: true, terminating: true })], ['1.1.1.1'], ['1.1.1.2']],
  ];
  for (const [name, eps, cluster, local] of cases) {
    it(name, () => {
      const [p] = servicePorts(svc(), [slice(...eps)], 'n1');
      assert.deepEqual(ips(p!.clusterEndpoints), cluster);
      assert.deepEqual(ips(p!.localEndpoints), local);
    });
  }
  it('ignores headless and ExternalName Services', () => {
    assert.deepEqual(servicePorts(svc({ clusterIP: 'None' }), [], 'n1'), []);
    assert.deepEqual(servicePorts(svc({ type: 'ExternalName', externalName: 'x.example' }), [], 'n1'), []);
  });
});

describe('portRules and TableState: the partial sync', () => {
  const rulesOf = (s: Service, sl: EndpointSlice[]): ServiceRules => new Map(servicePorts(s, sl, 'n1').map((p) => [p.spn, portRules(p, { clusterCIDR: '10.244.0.0/16' })]));

  it('a Service without endpoints rejects; endpoints move it to service-ips', () => {
    const st = new TableState();
    const empty = st.partial(new Map([['ns/web', rulesOf(svc(), [])]]));
    assert.match(empty.script, /add map ip kube-proxy no-endpoint-services \{ type .*elements = \{ 10\.96\.0\.10 \. tcp \. 80 : goto reject-chain \} ; \}/);
    assert.equal(empty.followUp, '');
    empty.commit();
    const tx = st.partial(new Map([['ns/web', rulesOf(svc(), [slice(ep('1.1.1.1'))])]]));
    // The small no-endpoint map is rewritten whole in the fast transaction (`flush map` reads no chain): no delete, no follow-up.
    assert.equal(tx.followUp, '');
    assert.match(tx.script, /^flush map ip kube-proxy no-endpoint-services$/m);
    assert.doesNotMatch(tx.script, /no-endpoint-services \{ type/, 'nothing left in it');
    assert.match(tx.script, /add map ip kube-proxy service-ips \{ .*elements = \{ 10\.96\.0\.10 \. tcp \. 80 : goto service-[A-Z2-7]{8}-ns\/web\/tcp\/http \} ; \}/);
    assert.doesNotMatch(tx.script + tx.followUp, /cluster-ips/, 'the cluster IP element is unchanged');
    tx.commit();
    assert.equal(st.staleCount, 0);
  });

  it('a no-endpoint map keeps its other elements when rewritten, and beyond the rewrite limit the removal waits for the cleanup', () => {
    const named = (name: string, ip: string): Service => ({ ...svc(), metadata: { name, namespace: 'ns' }, spec: { ...svc().spec, clusterIP: ip } });
    const st = new TableState();
    const empties = new Map(Array.from({ length: 3 }, (_, i) => [`ns/e${i}`, rulesOf(named(`e${i}`, `10.96.1.${i}`), [])]));
    st.partial(empties).commit();
    const one = st.partial(new Map([['ns/e0', rulesOf(named('e0', '10.96.1.0'), [slice(ep('1.1.1.1'))])]]));
    assert.match(one.script, /^flush map ip kube-proxy no-endpoint-services\nadd map ip kube-proxy no-endpoint-services \{ .*elements = \{ 10\.96\.1\.1 \. tcp \. 80 : goto reject-chain, 10\.96\.1\.2 \. tcp \. 80 : goto reject-chain \} ; \}$/m);
    one.commit();
    const many = new Map(Array.from({ length: 2001 }, (_, i) => [`ns/m${i}`, rulesOf(named(`m${i}`, `10.97.${i >> 8}.${i & 255}`), [])]));
    st.partial(many).commit();
    const two = st.partial(new Map([['ns/e1', rulesOf(named('e1', '10.96.1.1'), [slice(ep('1.1.1.1'))])]]));
    assert.doesNotMatch(two.script, /flush map/);
    assert.equal(two.followUp, '');
    two.commit();
    assert.match(st.cleanup().script, /^delete element ip kube-proxy no-endpoint-services \{ 10\.96\.1\.1 \. tcp \. 80 \}$/m);
  });

  it('a stale element added back keeps its kernel entry if its value is the same, and is replaced if not', () => {
    const st = new TableState();
    st.partial(new Map([['ns/web', rulesOf(svc(), [slice(ep('1.1.1.1'))])]])).commit();
    st.partial(new Map([['ns/web', undefined]])).commit();
    const back = st.partial(new Map([['ns/web', rulesOf(svc(), [slice(ep('1.1.1.1'))])]]));
    assert.doesNotMatch(back.script, /service-ips|cluster-ips/, 'both elements are still in the kernel');
    assert.equal(back.followUp, '');
    back.commit();
    assert.equal(st.staleCount, 0);
    st.partial(new Map([['ns/web', undefined]])).commit();
    // Another Service takes the cluster IP before the cleanup: its element has another value.
    const other = st.partial(new Map([['ns/other', rulesOf({ ...svc(), metadata: { name: 'other', namespace: 'ns' } }, [slice(ep('1.1.1.1'))])]]));
    assert.match(other.followUp, /^delete element ip kube-proxy service-ips \{ 10\.96\.0\.10 \. tcp \. 80 \}\n(.*\n)*add element ip kube-proxy service-ips \{ 10\.96\.0\.10 \. tcp \. 80 : goto service-\S+-ns\/other\/tcp\/http \}$/m);
    assert.doesNotMatch(other.script, /cluster-ips/, 'the cluster IP element is the same');
    assert.match(other.followUp, /^delete chain ip kube-proxy service-\S+-ns\/web\/tcp\/http$/m, 'a follow-up that reads the cache anyway takes the stale objects along');
    other.commit();
    assert.equal(st.staleCount, 0);
  });

  it('a second change touches only the chains that changed, and a deleted Service leaves nothing', () => {
    const st = new TableState();
    st.partial(new Map([['ns/web', rulesOf(svc(), [slice(ep('1.1.1.1'))])], ['ns/other', rulesOf({ ...svc(), metadata: { name: 'other', namespace: 'ns' }, spec: { ...svc().spec, clusterIP: '10.96.0.11' } }, [slice(ep('2.2.2.2'))])]])).commit();
    const tx = st.partial(new Map([['ns/web', rulesOf(svc(), [slice(ep('1.1.1.1'), ep('1.1.1.2'))])]]));
    assert.doesNotMatch(tx.script, /other/);
    assert.doesNotMatch(tx.script, /(add|flush) chain \S+ \S+ endpoint-\S+1\.1\.1\.1\/8080/, 'the existing endpoint chain is not rewritten');
    assert.match(tx.script, /add chain ip kube-proxy endpoint-[A-Z2-7]{8}-ns\/web\/tcp\/http__1\.1\.1\.2\/8080 \{/);
    assert.match(tx.script, /flush chain ip kube-proxy service-[A-Z2-7]{8}-ns\/web\/tcp\/http\nadd chain ip kube-proxy service-[A-Z2-7]{8}-ns\/web\/tcp\/http \{/);
    assert.equal(tx.followUp, '');
    tx.commit();
    const del = st.partial(new Map([['ns/web', undefined]]));
    assert.equal(del.script.trim().split('\n').filter((l) => l.startsWith('flush chain')).length, 3, 'service chain and two endpoint chains flushed at once');
    assert.equal(del.followUp, '', 'no delete in the sync: nft reads no cache');
    del.commit();
    assert.equal(st.staleCount, 5);
    const clean = st.cleanup();
    const lines = clean.script.trim().split('\n');
    assert.ok(lines.some((l) => /^delete element ip kube-proxy service-ips \{ 10\.96\.0\.10 \. tcp \. 80 \}$/.test(l)));
    assert.ok(lines.some((l) => /^delete element ip kube-proxy cluster-ips \{ 10\.96\.0\.10 \}$/.test(l)));
    assert.equal(lines.filter((l) => l.startsWith('delete chain')).length, 3, 'then deleted after the elements that point at them');
    assert.ok(lines.findIndex((l) => l.startsWith('delete chain')) > lines.map((l) => l.startsWith('delete element')).lastIndexOf(true));
    clean.commit();
    assert.equal(st.staleCount, 0);
  });

  it('the fast transaction never makes nft read its cache: no add rule, add element or delete', () => {
    const st = new TableState();
    const affinity = svc({ sessionAffinity: 'ClientIP', sessionAffinityConfig: { clientIP: { timeoutSeconds: 60 } } });
    const steps: Service[][] = [[svc()], [affinity], [svc({ type: 'NodePort', externalIPs: ['192.0.2.1'], ports: [{ name: 'http', port: 80, nodePort: 30080, protocol: 'TCP' }] })]];
    for (const [s] of steps) {
      for (const eps of [[ep('1.1.1.1')], [ep('1.1.1.1'), ep('1.1.1.2')], [ep('1.1.1.2')], []]) {
        const tx = st.partial(new Map([['ns/web', rulesOf(s!, [slice(...eps)])]]));
        assert.doesNotMatch(tx.script, /^(add rule|add element|delete) /m);
        tx.commit();
      }
    }
  });

  it('a chain that writes an affinity set declares the set in the same transaction (nft resolves @set from its declaration)', () => {
    const st = new TableState();
    const affinity = svc({ sessionAffinity: 'ClientIP', sessionAffinityConfig: { clientIP: { timeoutSeconds: 60 } } });
    st.partial(new Map([['ns/web', rulesOf(affinity, [slice(ep('1.1.1.1'))])]])).commit();
    const tx = st.partial(new Map([['ns/web', rulesOf(affinity, [slice(ep('1.1.1.1'), ep('1.1.1.2'))])]]));
    const lines = tx.script.split('\n');
    const decl = lines.findIndex((l) => /^add set ip kube-proxy affinity-\S+1\.1\.1\.1\/8080 \{ type ipv4_addr ; flags dynamic,timeout ; timeout 60s ; \}$/.test(l));
    const use = lines.findIndex((l) => /ip saddr @affinity-\S+1\.1\.1\.1\/8080 goto/.test(l));
    assert.ok(decl >= 0 && use > decl, tx.script);
  });

  it('an endpoint that goes is flushed now and deleted by the cleanup, unless it comes back first', () => {
    const st = new TableState();
    st.partial(new Map([['ns/web', rulesOf(svc(), [slice(ep('1.1.1.1'), ep('1.1.1.2'))])]])).commit();
    const down = st.partial(new Map([['ns/web', rulesOf(svc(), [slice(ep('1.1.1.1'))])]]));
    assert.match(down.script, /^flush chain ip kube-proxy endpoint-\S+1\.1\.1\.2\/8080$/m);
    assert.equal(down.followUp, '');
    down.commit();
    assert.equal(st.staleCount, 1);
    const up = st.partial(new Map([['ns/web', rulesOf(svc(), [slice(ep('1.1.1.1'), ep('1.1.1.2'))])]]));
    assert.match(up.script, /^flush chain ip kube-proxy endpoint-\S+1\.1\.1\.2\/8080\nadd chain ip kube-proxy endpoint-\S+1\.1\.1\.2\/8080 \{$/m, 'the chain still exists');
    up.commit();
    assert.equal(st.staleCount, 0);
    assert.equal(st.cleanup().script, '');
    st.partial(new Map([['ns/web', rulesOf(svc(), [slice(ep('1.1.1.2'))])]])).commit();
    const clean = st.cleanup();
    assert.match(clean.script, /^delete chain ip kube-proxy endpoint-\S+1\.1\.1\.1\/8080\n$/);
    clean.commit();
    assert.equal(st.staleCount, 0);
  });

  it('an element whose value changes is deleted and added again after the fast transaction', () => {
    const st = new TableState();
    st.partial(new Map([['ns/web', rulesOf(svc(), [slice(ep('1.1.1.1'))])]])).commit();
    const tx = st.partial(new Map([['ns/web', rulesOf(svc({ internalTrafficPolicy: 'Local' }), [slice(ep('1.1.1.1'))])]]));
    assert.doesNotMatch(tx.script, /service-ips/);
    assert.match(tx.followUp, /^delete element ip kube-proxy service-ips \{ 10\.96\.0\.10 \. tcp \. 80 \}\nadd element ip kube-proxy service-ips \{ 10\.96\.0\.10 \. tcp \. 80 : goto local-\S+ \}$/m);
  });

  it('session affinity: a timeout set per endpoint, checked before the random pick', () => {
    const r = rulesOf(svc({ sessionAffinity: 'ClientIP', sessionAffinityConfig: { clientIP: { timeoutSeconds: 60 } } }), [slice(ep('1.1.1.1'))]);
    const [rules] = [...r.values()];
    assert.deepEqual([...rules!.sets.values()], [60]);
    const svcChain = [...rules!.chains].find(([n]) => n.startsWith('service-'))![1];
    assert.match(svcChain[1]!, /^ip saddr @affinity-[A-Z2-7]{8}-ns\/web\/tcp\/http__1\.1\.1\.1\/8080 goto endpoint-/);
    assert.match(svcChain[2]!, /^goto endpoint-[A-Z2-7]{8}-ns\/web\/tcp\/http__1\.1\.1\.1\/8080$/);
  });

  it('picks among up to 16 endpoints with a numgen rule each (uniform: 1 in n-i), above with one anonymous vmap', () => {
    const many = (n: number) => rulesOf(svc(), [slice(...Array.from({ length: n }, (_, i) => ep(`1.1.1.${i + 1}`)))]);
    const svcChain = (r: ServiceRules) => [...[...r.values()][0]!.chains].find(([n]) => n.startsWith('service-'))![1];
    const three = svcChain(many(3));
    assert.deepEqual(three.slice(1).map((r) => r.replace(/endpoint-\S+__/, 'endpoint-')), [
      'numgen random mod 3 0 goto endpoint-1.1.1.1/8080', 'numgen random mod 2 0 goto endpoint-1.1.1.2/8080', 'goto endpoint-1.1.1.3/8080']);
    assert.equal(svcChain(many(16)).length, 1 + 16);
    const big = svcChain(many(17));
    assert.equal(big.length, 2);
    assert.match(big[1]!, /^numgen random mod 17 vmap \{ 0 : goto endpoint-\S+, 1 : goto /);
  });

  it('a full sync writes chains as blocks and elements as map declarations: no statement that makes nft 1.0.6 read its cache', () => {
    const st = new TableState();
    const tx = st.full(new Map([['ns/web', rulesOf(svc({ sessionAffinity: 'ClientIP' }), [slice(ep('1.1.1.1'), ep('1.1.1.2'))])]]), ['192.0.2.1']);
    assert.doesNotMatch(tx.script, /^(add rule|add element|delete) /m);
    assert.match(tx.script, /^add map ip kube-proxy service-ips \{ .*elements = \{ 10\.96\.0\.10 \. tcp \. 80 : goto service-\S+ \} ; \}$/m);
    assert.match(tx.script, /^add set ip kube-proxy nodeport-ips \{ .*elements = \{ 192\.0\.2\.1 \} ; \}$/m);
    assert.match(tx.script, /^add chain ip kube-proxy nat-prerouting \{ jump services ; \}$/m);
    tx.commit();
    // A restart's full sync over a table it finds declares the sets again too (nft has no cache to resolve `@affinity-...` from).
    const again = st.full(new Map([['ns/web', rulesOf(svc({ sessionAffinity: 'ClientIP' }), [slice(ep('1.1.1.1'), ep('1.1.1.2'))])]]), ['192.0.2.1']);
    assert.equal((again.script.match(/^add set ip kube-proxy affinity-/gm) ?? []).length, 2);
  });
});
