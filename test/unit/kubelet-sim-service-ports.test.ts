/** service-ports.ts: which host ports a Service opens on the simulated nodes' address, and which endpoints a connection may reach. */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Service } from 'kubernetes-types/core/v1.js';
import type { EndpointSlice } from 'kubernetes-types/discovery/v1.js';
import { hostPorts, readyBackends } from '../../src/kubelet/runtime/simulated/service-ports.js';

const svc = (type: string, ports: NonNullable<Service['spec']>['ports'], ingress?: string[]): Service => ({
  metadata: { name: 's', namespace: 'ns' }, spec: { type, ports }, status: ingress ? { loadBalancer: { ingress: ingress.map((ip) => ({ ip })) } } : {},
});

describe('simulated service ports: hostPorts', () => {
  const target = (portName = '') => ({ service: 'ns/s', namespace: 'ns', name: 's', portName });
  const cases: { name: string; svc: Service; want: { port: number; target: ReturnType<typeof target> }[] }[] = [
    { name: 'ClusterIP: none', svc: svc('ClusterIP', [{ port: 80 }]), want: [] },
    { name: 'NodePort: its node port', svc: svc('NodePort', [{ port: 8080, nodePort: 31000 }]), want: [{ port: 31000, target: target() }] },
    { name: 'NodePort: UDP ports are not served', svc: svc('NodePort', [{ port: 53, nodePort: 31001, protocol: 'UDP' }]), want: [] },
    { name: 'LoadBalancer with the address as ingress: node port and port', svc: svc('LoadBalancer', [{ name: 'http', port: 8080, nodePort: 30003 }], ['127.0.0.1']),
      want: [{ port: 30003, target: target('http') }, { port: 8080, target: target('http') }] },
    { name: 'LoadBalancer without ingress yet: the node port only', svc: svc('LoadBalancer', [{ port: 8080, nodePort: 30004 }]), want: [{ port: 30004, target: target() }] },
    { name: 'LoadBalancer with another ingress IP: the node port only', svc: svc('LoadBalancer', [{ port: 8080, nodePort: 30005 }], ['192.0.2.7']), want: [{ port: 30005, target: target() }] },
  ];
  for (const c of cases) it(c.name, () => assert.deepEqual(hostPorts(c.svc, '127.0.0.1'), c.want));

  it('LoadBalancer with externalTrafficPolicy Local: its healthCheckNodePort as a health port too; Cluster has none', () => {
    const local = svc('LoadBalancer', [{ port: 80, nodePort: 30006 }]);
    local.spec = { ...local.spec, externalTrafficPolicy: 'Local', healthCheckNodePort: 32122 };
    assert.deepEqual(hostPorts(local, '127.0.0.1'), [{ port: 30006, target: target() }, { port: 32122, target: { ...target(), health: true } }]);
    local.spec.externalTrafficPolicy = 'Cluster';
    assert.deepEqual(hostPorts(local, '127.0.0.1'), [{ port: 30006, target: target() }]);
  });
});

describe('simulated service ports: readyBackends', () => {
  const slice: EndpointSlice = {
    addressType: 'IPv4', metadata: { name: 's-abc' },
    ports: [{ name: 'http', port: 8080, protocol: 'TCP' }, { name: 'metrics', port: 9090 }],
    endpoints: [
      { addresses: ['10.244.1.2'], nodeName: 'worker1', targetRef: { kind: 'Pod', name: 'a', uid: 'ua' }, conditions: { ready: true } },
      { addresses: ['10.244.2.2'], nodeName: 'worker2', targetRef: { kind: 'Pod', name: 'b', uid: 'ub' }, conditions: {} },
      { addresses: ['10.244.2.3'], nodeName: 'worker2', targetRef: { kind: 'Pod', name: 'c', uid: 'uc' }, conditions: { ready: false } },
      { addresses: ['192.0.2.1'], conditions: { ready: true } },
    ],
  };
  it('ready (or unset) pod endpoints, at the slice port of the Service port\'s name', () => {
    assert.deepEqual(readyBackends([slice], 'http'), [{ nodeName: 'worker1', uid: 'ua', port: 8080 }, { nodeName: 'worker2', uid: 'ub', port: 8080 }]);
    assert.deepEqual(readyBackends([slice], 'metrics').map((b) => b.port), [9090, 9090]);
  });
  it('no slice port of that name: none', () => assert.deepEqual(readyBackends([slice], ''), []));
});
