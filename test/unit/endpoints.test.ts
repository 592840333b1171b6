/**
 * The Endpoints controller's rules (subsets.ts, triggertime.ts), table-driven:
 * which pods count, addresses and hostnames, port resolution, repacking,
 * truncation, the written object and the trigger time.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import {
  computeEndpointSubsets, desiredEndpoints, findPort, podToEndpointAddress, serviceManagesEndpoints, shouldPodBeInEndpoints,
  truncateSubsets, TriggerTimeTracker, serviceSelectsPod,
} from '../../src/controllers/endpoints/index.js';

// ---- fixtures ----

const nginx = {
  metadata: { name: 'nginx', namespace: 'default', labels: { app: 'nginx' }, creationTimestamp: '2024-01-01T00:00:00Z' },
  spec: { clusterIP: 'None', clusterIPs: ['None'], ipFamilies: ['IPv4'], selector: { app: 'nginx' }, ports: [{ name: 'web', port: 80, protocol: 'TCP', targetPort: 80 }] },
};

interface PodOpts { ip?: string; ready?: boolean; phase?: string; hostname?: string; subdomain?: string; node?: string; deleting?: boolean; ports?: any[]; ns?: string; readySince?: string; ips?: string[] }
function pod(name: string, o: PodOpts = {}): any {
  const ip = o.ip ?? `10.244.0.${name.replace(/\D/g, '') || 1}`;
  return {
    metadata: { name, namespace: o.ns ?? 'default', uid: `uid-${name}`, labels: { app: 'nginx' }, ...(o.deleting ? { deletionTimestamp: '2024-01-01T00:00:00Z' } : {}) },
    spec: {
      nodeName: o.node ?? 'worker-1', hostname: o.hostname, subdomain: o.subdomain,
      containers: [{ name: 'nginx', image: 'nginx', ports: o.ports ?? [{ name: 'web', containerPort: 80, protocol: 'TCP' }] }],
    },
    status: {
      phase: o.phase ?? 'Running', podIP: ip === '' ? undefined : ip, podIPs: ip === '' ? [] : (o.ips ?? [ip]).map((i) => ({ ip: i })),
      conditions: [{ type: 'Ready', status: o.ready === false ? 'False' : 'True', lastTransitionTime: o.readySince ?? '2024-01-01T00:01:00Z' }],
    },
  };
}

describe('which services and pods count', () => {
  it('ExternalName and selector-less services are left alone', () => {
    assert.equal(serviceManagesEndpoints(nginx), true);
    assert.equal(serviceManagesEndpoints({ spec: { type: 'ExternalName', selector: { a: 'b' } } }), false);
    assert.equal(serviceManagesEndpoints({ spec: { ports: [] } }), false);
  });
  const table: [string, any, boolean, boolean][] = [
    ['running with an IP', pod('p1'), false, true],
    ['no IP yet', pod('p1', { ip: '' }), false, false],
    ['succeeded', pod('p1', { phase: 'Succeeded' }), false, false],
    ['failed', pod('p1', { phase: 'Failed' }), true, false],
    ['terminating', pod('p1', { deleting: true }), false, false],
    ['terminating, publishNotReadyAddresses', pod('p1', { deleting: true }), true, true],
    ['not ready still counts (as not ready)', pod('p1', { ready: false }), false, true],
  ];
  for (const [what, p, includeTerminating, want] of table) it(what, () => assert.equal(shouldPodBeInEndpoints(p, includeTerminating), want));
  it('selector matching is a map match', () => {
    assert.equal(serviceSelectsPod(nginx, pod('p1')), true);
    assert.equal(serviceSelectsPod(nginx, { metadata: { labels: { app: 'other' } } }), false);
    assert.equal(serviceSelectsPod({ spec: {} }, pod('p1')), false);
  });
});

describe('addresses and ports', () => {
  it('hostname only when the subdomain names the service', () => {
    assert.deepEqual(podToEndpointAddress(nginx, pod('web-0', { ip: '10.0.0.5', hostname: 'web-0', subdomain: 'nginx' })), {
      ip: '10.0.0.5', hostname: 'web-0', nodeName: 'worker-1', targetRef: { kind: 'Pod', namespace: 'default', name: 'web-0', uid: 'uid-web-0' },
    });
    assert.equal(podToEndpointAddress(nginx, pod('web-0', { hostname: 'web-0', subdomain: 'other' }))?.hostname, undefined);
    assert.equal(podToEndpointAddress(nginx, pod('web-0', { subdomain: 'nginx' }))?.hostname, undefined);
  });
  it('the IP of the service family', () => {
    const dual = pod('p1', { ip: '10.0.0.1', ips: ['10.0.0.1', 'fd00::1'] });
    assert.equal(podToEndpointAddress({ ...nginx, spec: { ...nginx.spec, ipFamilies: ['IPv6'] } }, dual)?.ip, 'fd00::1');
    assert.equal(podToEndpointAddress(nginx, dual)?.ip, '10.0.0.1');
    assert.equal(podToEndpointAddress({ ...nginx, spec: { ...nginx.spec, ipFamilies: ['IPv6'] } }, pod('p1'))?.ip, undefined);
  });
  it('a pod IP the Endpoints API refuses (a simulated host-network pod on 127.0.0.1) is left out, not written and refused', () => {
    for (const ip of ['127.0.0.1', '169.254.1.1', '0.0.0.0']) assert.equal(podToEndpointAddress(nginx, pod('p1', { ip })), undefined, ip);
    assert.deepEqual(computeEndpointSubsets(nginx, [pod('p1', { ip: '127.0.0.1' }), pod('p2')]).map((s) => s.addresses?.map((a) => a.ip)), [['10.244.0.2']]);
    assert.deepEqual(computeEndpointSubsets(nginx, [pod('p1', { ip: '127.0.0.1', ready: false })]), []);
  });
  const ports: [string, any, any, number | undefined][] = [
    ['numeric target', pod('p1'), { port: 80, targetPort: 8080 }, 8080],
    ['named target', pod('p1'), { port: 80, targetPort: 'web', protocol: 'TCP' }, 80],
    ['named target, protocol must match', pod('p1'), { port: 80, targetPort: 'web', protocol: 'UDP' }, undefined],
    ['unknown name', pod('p1'), { port: 80, targetPort: 'http' }, undefined],
    ['sidecar init container ports count', { spec: { containers: [], initContainers: [{ restartPolicy: 'Always', ports: [{ name: 'm', containerPort: 9090 }] }] } }, { port: 1, targetPort: 'm' }, 9090],
    ['plain init container ports do not', { spec: { containers: [], initContainers: [{ ports: [{ name: 'm', containerPort: 9090 }] }] } }, { port: 1, targetPort: 'm' }, undefined],
  ];
  for (const [what, p, sp, want] of ports) it(`findPort: ${what}`, () => assert.equal(findPort(p, sp), want));
});

describe('computeEndpointSubsets', () => {
  it('the nginx headless service: ready pods with hostnames, one subset, sorted by IP', () => {
    const pods = [
      pod('web-1', { ip: '10.244.1.6', hostname: 'web-1', subdomain: 'nginx' }),
      pod('web-0', { ip: '10.244.1.5', hostname: 'web-0', subdomain: 'nginx' }),
    ];
    assert.deepEqual(computeEndpointSubsets(nginx, pods), [{
      addresses: [
        { ip: '10.244.1.5', hostname: 'web-0', nodeName: 'worker-1', targetRef: { kind: 'Pod', namespace: 'default', name: 'web-0', uid: 'uid-web-0' } },
        { ip: '10.244.1.6', hostname: 'web-1', nodeName: 'worker-1', targetRef: { kind: 'Pod', namespace: 'default', name: 'web-1', uid: 'uid-web-1' } },
      ],
      ports: [{ name: 'web', port: 80, protocol: 'TCP' }],
    }]);
  });
  it('ready and not-ready pods share a subset', () => {
    const s = computeEndpointSubsets(nginx, [pod('p1', { ip: '10.0.0.1' }), pod('p2', { ip: '10.0.0.2', ready: false })]);
    assert.equal(s.length, 1);
    assert.deepEqual(s[0].addresses!.map((a) => a.ip), ['10.0.0.1']);
    assert.deepEqual(s[0].notReadyAddresses!.map((a) => a.ip), ['10.0.0.2']);
  });
  it('publishNotReadyAddresses lists everyone as ready', () => {
    const svc = { ...nginx, spec: { ...nginx.spec, publishNotReadyAddresses: true } };
    const s = computeEndpointSubsets(svc, [pod('p2', { ip: '10.0.0.2', ready: false })]);
    assert.deepEqual(s[0].addresses!.map((a) => a.ip), ['10.0.0.2']);
    assert.equal(s[0].notReadyAddresses, undefined);
  });
  it('pods offering different ports land in different subsets; ports of the same pods merge', () => {
    const svc = { ...nginx, spec: { ...nginx.spec, ports: [{ name: 'web', port: 80, targetPort: 'web', protocol: 'TCP' }, { name: 'metrics', port: 9000, targetPort: 9000, protocol: 'TCP' }] } };
    const withWeb = pod('p1', { ip: '10.0.0.1' });
    const withoutWeb = pod('p2', { ip: '10.0.0.2', ports: [] });
    const s = computeEndpointSubsets(svc, [withWeb, withoutWeb]);
    assert.deepEqual(s.map((x) => [x.addresses!.map((a) => a.ip), x.ports!.map((p) => p.port)]), [
      [['10.0.0.1', '10.0.0.2'], [9000]],
      [['10.0.0.1'], [80]],
    ]);
    const merged = computeEndpointSubsets(svc, [withWeb]);
    assert.deepEqual(merged.map((x) => x.ports!.map((p) => p.name)), [['metrics', 'web']]);
  });
  it('a headless service without ports lists bare addresses; a ClusterIP one without ports nothing', () => {
    const bare = computeEndpointSubsets({ ...nginx, spec: { ...nginx.spec, ports: [] } }, [pod('p1', { ip: '10.0.0.1' })]);
    assert.deepEqual(bare.map((x) => [x.addresses!.map((a) => a.ip), x.ports]), [[['10.0.0.1'], undefined]]);
    assert.deepEqual(computeEndpointSubsets({ ...nginx, spec: { ...nginx.spec, clusterIP: '10.96.0.10', ports: [] } }, [pod('p1')]), []);
  });
  it('no pods: no subsets', () => assert.deepEqual(computeEndpointSubsets(nginx, []), []));
});

describe('truncation at 1000 addresses', () => {
  const addrs = (n: number, prefix: string) => Array.from({ length: n }, (_, i) => ({ ip: `${prefix}.${i}` }));
  it('under capacity: untouched', () => {
    const s = [{ addresses: addrs(10, 'a') }];
    assert.deepEqual(truncateSubsets(s), { subsets: s, truncated: false });
  });
  it('ready over capacity: ready truncated proportionally, not-ready dropped', () => {
    const r = truncateSubsets([{ addresses: addrs(900, 'a'), notReadyAddresses: addrs(5, 'n') }, { addresses: addrs(300, 'b') }]);
    assert.equal(r.truncated, true);
    assert.deepEqual(r.subsets.map((s) => [s.addresses?.length, s.notReadyAddresses?.length]), [[750, undefined], [250, undefined]]);
  });
  it('only not-ready truncated when ready fit', () => {
    const r = truncateSubsets([{ addresses: addrs(990, 'a'), notReadyAddresses: addrs(20, 'n') }]);
    assert.deepEqual(r.subsets.map((s) => [s.addresses?.length, s.notReadyAddresses?.length]), [[990, 10]]);
  });
});

describe('desiredEndpoints', () => {
  const subsets = computeEndpointSubsets(nginx, [pod('web-0', { ip: '10.244.1.5', hostname: 'web-0', subdomain: 'nginx' })]);
  it('create: named like the service, its labels plus the headless label, trigger time', () => {
    const ep = desiredEndpoints(nginx, undefined, subsets, new Date('2024-01-01T00:01:00Z'))!;
    assert.deepEqual(ep.metadata, {
      name: 'nginx', namespace: 'default', labels: { app: 'nginx', 'service.kubernetes.io/headless': '' },
      annotations: { 'endpoints.kubernetes.io/last-change-trigger-time': '2024-01-01T00:01:00Z' },
    });
    assert.deepEqual(ep.subsets, subsets);
  });
  it('unchanged: nothing to write, even with keys in another order', () => {
    const current = { metadata: { name: 'nginx', labels: { 'service.kubernetes.io/headless': '', app: 'nginx' }, annotations: {} }, subsets: JSON.parse(JSON.stringify(subsets)) };
    current.subsets[0].ports = [{ protocol: 'TCP', port: 80, name: 'web' }];
    assert.equal(desiredEndpoints(nginx, current, subsets, undefined), undefined);
  });
  it('a ClusterIP service drops the headless label and the stale trigger time', () => {
    const svc = { ...nginx, spec: { ...nginx.spec, clusterIP: '10.96.0.20' } };
    const current = { metadata: { name: 'nginx', labels: { app: 'nginx', 'service.kubernetes.io/headless': '' }, annotations: { 'endpoints.kubernetes.io/last-change-trigger-time': 'x' } }, subsets: [] };
    const ep = desiredEndpoints(svc, current, subsets, undefined)!;
    assert.deepEqual(ep.metadata!.labels, { app: 'nginx' });
    assert.deepEqual(ep.metadata!.annotations, {});
  });
});

describe('TriggerTimeTracker', () => {
  it('first sync: the earliest of the service creation and pod Ready transitions; then only changes', () => {
    const t = new TriggerTimeTracker();
    const p0 = pod('web-0', { readySince: '2024-01-01T00:05:00Z' });
    assert.equal(t.compute(nginx, [p0])?.toISOString(), '2024-01-01T00:00:00.000Z');
    assert.equal(t.compute(nginx, [p0]), undefined);
    const p1 = pod('web-1', { readySince: '2024-01-01T00:07:00Z' });
    assert.equal(t.compute(nginx, [p0, p1])?.toISOString(), '2024-01-01T00:07:00.000Z');
    t.delete('default/nginx');
    assert.equal(t.compute(nginx, [p0, p1])?.toISOString(), '2024-01-01T00:00:00.000Z');
  });
});
