/** The NetworkPolicy rule builder's rules (src/netpol), table-driven; the e2e truth tables are test/e2e/netpol.test.ts. */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Pod, Namespace } from 'kubernetes-types/core/v1.js';
import type { NetworkPolicy, NetworkPolicyPeer } from 'kubernetes-types/networking/v1.js';
import { peerMatcher, policyAddress, policyTypes } from '../../src/netpol/selection.js';
import { policyRules } from '../../src/netpol/rules.js';
import { buildRuleset } from '../../src/netpol/ruleset.js';

const pod = (id: string, ip: string, labels: Record<string, string>, extra: Partial<Pod['spec']> = {}, phase = 'Running'): Pod => ({
  metadata: { namespace: id.split('/')[0], name: id.split('/')[1], labels },
  spec: { nodeName: 'n1', containers: [{ name: 'c', ports: [{ name: 'http', containerPort: 8080 }, { name: 'dns', containerPort: 53, protocol: 'UDP' }] }], ...extra },
  status: { phase, podIP: ip },
});
const namespaces: Namespace[] = [
  { metadata: { name: 'x', labels: { 'kubernetes.io/metadata.name': 'x', team: 'a' } } },
  { metadata: { name: 'y', labels: { 'kubernetes.io/metadata.name': 'y', team: 'a' } } },
  { metadata: { name: 'z', labels: { 'kubernetes.io/metadata.name': 'z', team: 'b' } } },
];
const pods = [
  pod('x/a', '10.0.0.1', { app: 'web' }), pod('x/b', '10.0.0.2', { app: 'db' }),
  pod('y/a', '10.0.0.3', { app: 'web' }), pod('z/a', '10.0.0.4', { app: 'web' }, { nodeName: 'n2' }),
  pod('x/host', '10.9.9.9', { app: 'web' }, { hostNetwork: true }), pod('x/done', '10.0.0.5', { app: 'web' }, {}, 'Succeeded'),
];
const namespaceLabels = new Map(namespaces.map((n) => [n.metadata!.name!, n.metadata!.labels!]));
const visible = pods.filter((p) => policyAddress(p));
const peerPods = (peer: NetworkPolicyPeer, ns: string) => visible.filter((p) => peerMatcher(peer, ns).matches(p.metadata!.namespace!, p.metadata!.labels!, namespaceLabels));
const names = (ps: Pod[]) => ps.map((p) => `${p.metadata!.namespace}/${p.metadata!.name}`).sort();
const np = (spec: NetworkPolicy['spec'], ns = 'x', name = 'p'): NetworkPolicy => ({ metadata: { namespace: ns, name }, spec });

describe('NetworkPolicy selections', () => {
  it('spec.podSelector selects in the policy namespace; host-network and finished pods are never selected', () => {
    const isolated = (spec: NetworkPolicy['spec']) => [...buildRuleset({ policies: [np(spec)], pods, namespaces, nodeName: 'n1' }).script.matchAll(/(10\.\d+\.\d+\.\d+) : jump/g)].map((m) => m[1]);
    assert.deepEqual(isolated({ podSelector: {} }), ['10.0.0.1', '10.0.0.2']);
    assert.deepEqual(isolated({ podSelector: { matchLabels: { app: 'web' } } }), ['10.0.0.1']);
  });
  const cases: [string, NetworkPolicyPeer, string[]][] = [
    ['podSelector only: the policy namespace', { podSelector: { matchLabels: { app: 'web' } } }, ['x/a']],
    ['namespaceSelector only: every pod of the matching namespaces', { namespaceSelector: { matchLabels: { team: 'a' } } }, ['x/a', 'x/b', 'y/a']],
    ['namespaceSelector {}: every pod of the cluster', { namespaceSelector: {} }, ['x/a', 'x/b', 'y/a', 'z/a']],
    ['both: pods matching podSelector in the matching namespaces', { namespaceSelector: { matchLabels: { team: 'a' } }, podSelector: { matchLabels: { app: 'web' } } }, ['x/a', 'y/a']],
  ];
  for (const [what, peer, want] of cases) it(what, () => assert.deepEqual(names(peerPods(peer, 'x')), want));
  it('policyTypes default: Ingress, plus Egress when egress rules exist', () => {
    assert.deepEqual(policyTypes(np({ podSelector: {} })), { ingress: true, egress: false });
    assert.deepEqual(policyTypes(np({ podSelector: {}, egress: [{}] })), { ingress: true, egress: true });
    assert.deepEqual(policyTypes(np({ podSelector: {}, policyTypes: ['Egress'] })), { ingress: false, egress: true });
  });
});

describe('NetworkPolicy rules', () => {
  const ctx = { peerSet: () => 'peer-S', namedPortSet: (n: string) => `named-port-${n}` };
  const cases: [string, Parameters<typeof policyRules>[1], string[]][] = [
    ['no rules: allows nothing', [], []],
    ['an empty rule allows everything', [{}], ['accept']],
    ['ipBlock with except', [{ peers: [{ ipBlock: { cidr: '10.0.0.0/8', except: ['10.1.0.0/16'] } }] }], ['ip saddr 10.0.0.0/8 ip saddr != { 10.1.0.0/16 } accept']],
    ['an IPv6 block matches no IPv4 traffic', [{ peers: [{ ipBlock: { cidr: 'fd00::/8' } }] }], []],
    ['peers × ports', [{ peers: [{ podSelector: {} }], ports: [{ port: 80 }, { protocol: 'UDP', port: 53 }] }],
      ['ip saddr @peer-S meta l4proto tcp th dport 80 accept', 'ip saddr @peer-S meta l4proto udp th dport 53 accept']],
    ['endPort is a range', [{ ports: [{ protocol: 'TCP', port: 8000, endPort: 8080 }] }], ['meta l4proto tcp th dport 8000-8080 accept']],
    ['a protocol without a port is every port of it', [{ ports: [{ protocol: 'SCTP' }] }], ['meta l4proto sctp accept']],
    ['a named port is resolved on the destination pod', [{ ports: [{ protocol: 'TCP', port: 'http' }] }],
      ['meta l4proto tcp ip daddr . meta l4proto . th dport @named-port-http accept']],
  ];
  for (const [what, rules, want] of cases) it(what, () => assert.deepEqual(policyRules('ingress', rules, ctx), want));
  it('egress peers are destinations', () => {
    assert.deepEqual(policyRules('egress', [{ peers: [{ ipBlock: { cidr: '10.0.0.0/8' } }] }], ctx), ['ip daddr 10.0.0.0/8 accept']);
  });
});

describe('the node table', () => {
  const build = (policies: NetworkPolicy[], nodeName = 'n1') => buildRuleset({ policies, pods, namespaces, nodeName });
  it('maps each isolated local pod to the chain of its policies; policies about no local pod are left out', () => {
    const rs = build([np({ podSelector: {} }, 'x', 'deny'), np({ podSelector: {} }, 'z', 'deny-z')]);
    assert.equal(rs.policies, 1);
    assert.equal(rs.isolatedPods, 2);
    assert.match(rs.script, /map ingress-pods \{ type ipv4_addr : verdict ; elements = \{ 10\.0\.0\.1 : jump ingress-pods-\w+, 10\.0\.0\.2 : jump ingress-pods-\w+ \} ; \}/);
    assert.match(rs.script, /chain ingress-\w+-x\/deny \{ \}/, 'a deny-all policy chain is empty');
    assert.doesNotMatch(rs.script, /deny-z/);
    assert.equal(build([np({ podSelector: {} }, 'z', 'deny-z')], 'n2').isolatedPods, 1);
  });
  it('named-port sets hold address . protocol . port of every pod naming the port', () => {
    const rs = build([np({ podSelector: {}, ingress: [{ ports: [{ protocol: 'UDP', port: 'dns' }] }] })]);
    assert.match(rs.script, /set named-port-dns \{ type ipv4_addr \. inet_proto \. inet_service ; elements = \{ 10\.0\.0\.1 \. udp \. 53, 10\.0\.0\.2 \. udp \. 53, 10\.0\.0\.3 \. udp \. 53, 10\.0\.0\.4 \. udp \. 53 \} ; \}/);
  });
  it('replaces the table in one transaction, with the established-first base chains', () => {
    const rs = build([]);
    assert.ok(rs.script.startsWith('add table inet k8ts-netpol\ndelete table inet k8ts-netpol\ntable inet k8ts-netpol {'));
    for (const c of ['egress-forward', 'egress-input', 'ingress-forward']) assert.match(rs.script, new RegExp(`chain ${c} \\{ type filter hook \\w+ priority [\\w ]+ ; policy accept ; ct state established,related accept ;`));
  });
  it('an invalid selector skips that policy and says why', () => {
    const rs = build([np({ podSelector: { matchExpressions: [{ key: 'a', operator: 'Near' }] } }, 'x', 'bad')]);
    assert.equal(rs.policies, 0);
    assert.match(rs.invalid[0]!, /^x\/bad: "Near" is not a valid label selector operator/);
  });
});
