/** The EndpointSlice controllers' desired endpoints and slice planning (upstream pkg/controller/endpointslice, endpointslicemirroring). */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { desiredServiceGroups, mirroredGroups, planSlices, shouldMirror, type SliceTemplate } from '../../src/controllers/endpointslice/index.js';

const svc = (o: any = {}) => ({ metadata: { name: 'web', namespace: 'default', uid: 'svc-uid' }, spec: { selector: { app: 'web' }, ports: [{ name: 'http', port: 80, targetPort: 'http', protocol: 'TCP' }], ...o } });
function pod(name: string, ip: string, o: { ready?: boolean; deleting?: boolean; port?: number; node?: string; hostname?: string } = {}): any {
  return {
    metadata: { name, namespace: 'default', uid: `uid-${name}`, labels: { app: 'web' }, ...(o.deleting ? { deletionTimestamp: '2026-01-01T00:00:00Z' } : {}) },
    spec: { nodeName: o.node ?? 'n1', ...(o.hostname ? { hostname: o.hostname, subdomain: 'web' } : {}), containers: [{ name: 'c', ports: [{ name: 'http', containerPort: o.port ?? 8080 }] }] },
    status: { phase: 'Running', podIP: ip, conditions: [{ type: 'Ready', status: o.ready === false ? 'False' : 'True' }] },
  };
}
const nodes: Record<string, any> = { n1: { metadata: { labels: { 'topology.kubernetes.io/zone': 'zone-a' } } } };
const template = (max = 100): SliceTemplate => ({
  namespace: 'default', generateName: 'web-', labels: { 'kubernetes.io/service-name': 'web' }, ownerReference: { apiVersion: 'v1', kind: 'Service', name: 'web', uid: 'svc-uid' },
  maxEndpointsPerSlice: max, placeholder: 'IPv4',
});

describe('desiredServiceGroups', () => {
  it('one endpoint per pod with conditions, node, zone, hostname and targetRef; ports resolved per pod', () => {
    const groups = desiredServiceGroups(svc(), [pod('a', '10.0.0.1', { hostname: 'a' }), pod('b', '10.0.0.2', { ready: false }), pod('c', '10.0.0.3', { deleting: true }), pod('d', '10.0.0.4', { port: 9090 })], (n) => nodes[n!]);
    assert.equal(groups.length, 2, 'pods with another container port form their own group');
    const [g] = groups;
    assert.deepEqual(g.ports, [{ name: 'http', port: 8080, protocol: 'TCP' }]);
    assert.deepEqual(g.endpoints.map((e) => [e.addresses[0], e.conditions]), [
      ['10.0.0.1', { ready: true, serving: true, terminating: false }],
      ['10.0.0.2', { ready: false, serving: false, terminating: false }],
      ['10.0.0.3', { ready: false, serving: true, terminating: true }],
    ]);
    assert.deepEqual([g.endpoints[0].hostname, g.endpoints[0].nodeName, g.endpoints[0].zone, g.endpoints[0].targetRef?.name], ['a', 'n1', 'zone-a', 'a']);
  });

  it('publishNotReadyAddresses makes every endpoint ready', () => {
    const [g] = desiredServiceGroups(svc({ publishNotReadyAddresses: true }), [pod('b', '10.0.0.2', { ready: false })], () => undefined);
    assert.deepEqual(g.endpoints[0].conditions, { ready: true, serving: true, terminating: false });
  });
});

describe('planSlices', () => {
  const groups = (n: number) => desiredServiceGroups(svc(), Array.from({ length: n }, (_, i) => pod(`p${String(i).padStart(3, '0')}`, `10.0.${Math.floor(i / 250)}.${i % 250 + 1}`)), () => undefined);

  it('at most maxEndpointsPerSlice endpoints a slice', () => {
    const plan = planSlices([], groups(250), template());
    assert.deepEqual(plan.create.map((s) => s.endpoints.length), [100, 100, 50]);
    assert.equal(plan.create[0].metadata?.generateName, 'web-');
  });

  it('endpoints stay in their slice; removed ones leave; new ones fill free room; nothing else is written', () => {
    const first = planSlices([], groups(3), template(2)).create.map((s, i) => ({ ...s, metadata: { ...s.metadata, name: `web-${i}` } }));
    assert.deepEqual(planSlices(first, groups(3), template(2)), { create: [], update: [], delete: [] });
    const shrunk = planSlices(first, groups(2), template(2));
    assert.deepEqual([shrunk.update.length, shrunk.delete.map((s) => s.metadata?.name)], [0, ['web-1']]);
  });

  it('a service without endpoints keeps one placeholder slice', () => {
    const plan = planSlices([], [], template());
    assert.deepEqual(plan.create.map((s) => [s.addressType, s.endpoints.length, s.ports]), [['IPv4', 0, undefined]]);
  });
});

describe('mirroring', () => {
  const ep = { metadata: { name: 'ext', namespace: 'default', labels: {} }, subsets: [{ addresses: [{ ip: '192.0.2.1' }], notReadyAddresses: [{ ip: '192.0.2.2' }], ports: [{ port: 443 }] }] };

  it('mirrors ready and not-ready addresses with the subset ports', () => {
    const [g] = mirroredGroups(ep);
    assert.deepEqual(g.ports, [{ name: '', port: 443, protocol: 'TCP' }]);
    assert.deepEqual(g.endpoints.map((e) => [e.addresses[0], e.conditions?.ready]), [['192.0.2.1', true], ['192.0.2.2', false]]);
  });

  it('only Endpoints of a selector-less service, not skip-mirror, not leader records', () => {
    const noSel = { spec: {} };
    assert.ok(shouldMirror(ep, noSel));
    assert.ok(!shouldMirror(ep, { spec: { selector: { app: 'x' } } }));
    assert.ok(!shouldMirror(ep, undefined));
    assert.ok(!shouldMirror({ ...ep, metadata: { ...ep.metadata, labels: { 'endpointslice.kubernetes.io/skip-mirror': 'true' } } }, noSel));
  });
});
