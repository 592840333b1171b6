/**
 * The simulated pod network of one process (runtime/simulated/cluster-network.ts):
 * which endpoints a Service's port sends a connection to, as kube-proxy
 * programs them, and pods attached and detached by IP.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Service } from 'kubernetes-types/core/v1.js';
import type { EndpointSlice } from 'kubernetes-types/discovery/v1.js';
import { SimulatedPodNetwork, serviceBackends } from '../../src/kubelet/runtime/simulated/cluster-network.js';
import { refusedConnection } from '../../src/kubelet/runtime/simulated/listeners.js';

const service: Service = {
  metadata: { name: 'web', namespace: 'default' },
  spec: { clusterIP: '10.96.0.20', ports: [{ name: 'http', port: 80, targetPort: 'web' }, { name: 'dns', port: 53, protocol: 'UDP' }] },
};

const slice = (endpoints: EndpointSlice['endpoints'], ports: EndpointSlice['ports'] = [{ name: 'http', port: 8080, protocol: 'TCP' }]): EndpointSlice => ({
  addressType: 'IPv4', metadata: { name: 'web-x', labels: { 'kubernetes.io/service-name': 'web' } }, endpoints, ports,
});

describe('serviceBackends: where kube-proxy sends a connection to a Service port', () => {
  it('the Service port\'s name picks the slice port: ready endpoints with their target port', () => {
    const backends = serviceBackends(service, [slice([
      { addresses: ['10.244.1.2'], conditions: { ready: true } },
      { addresses: ['10.244.2.3'] },
      { addresses: ['10.244.3.4'], conditions: { ready: false, serving: false } },
    ])], 80);
    assert.deepEqual(backends, [{ ip: '10.244.1.2', port: 8080 }, { ip: '10.244.2.3', port: 8080 }]);
  });

  it('with no ready endpoint, the serving terminating ones (kube-proxy\'s fallback); none at all is empty', () => {
    const terminating = slice([{ addresses: ['10.244.1.2'], conditions: { ready: false, serving: true, terminating: true } }]);
    assert.deepEqual(serviceBackends(service, [terminating], 80), [{ ip: '10.244.1.2', port: 8080 }]);
    assert.deepEqual(serviceBackends(service, [slice([{ addresses: ['10.244.1.2'], conditions: { ready: false } }])], 80), []);
    assert.deepEqual(serviceBackends(service, [], 80), []);
  });

  it('a port the Service does not have over TCP, a slice port of another name and IPv6 slices reach nothing', () => {
    const ready = [{ addresses: ['10.244.1.2'], conditions: { ready: true } }];
    assert.deepEqual(serviceBackends(service, [slice(ready)], 81), []);
    assert.deepEqual(serviceBackends(service, [slice(ready, [{ name: 'dns', port: 53, protocol: 'UDP' }])], 53), []);
    assert.deepEqual(serviceBackends(service, [slice(ready, [{ name: 'metrics', port: 9090 }])], 80), []);
    assert.deepEqual(serviceBackends(service, [{ ...slice(ready), addressType: 'IPv6' }], 80), []);
  });

  it('an unnamed Service port matches the slice\'s unnamed port', () => {
    const svc: Service = { spec: { ports: [{ port: 80, targetPort: 9376 }] } };
    assert.deepEqual(serviceBackends(svc, [slice([{ addresses: ['10.244.1.2'] }], [{ port: 9376 }])], 80), [{ ip: '10.244.1.2', port: 9376 }]);
  });
});

describe('SimulatedPodNetwork: pods by IP', () => {
  it('a detached pod is gone; detaching an old holder leaves the IP\'s new pod in place', () => {
    const net = new SimulatedPodNetwork();
    const first = (port: number) => refusedConnection(port);
    const second = (port: number) => refusedConnection(port);
    const detachFirst = net.attach('10.244.1.2', first);
    assert.equal(net.pod('10.244.1.2'), first);
    const detachSecond = net.attach('10.244.1.2', second);
    detachFirst();
    assert.equal(net.pod('10.244.1.2'), second);
    detachSecond();
    assert.equal(net.pod('10.244.1.2'), undefined);
  });
});
