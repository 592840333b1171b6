/**
 * Which UDP conntrack entries kube-proxy deletes when a Service changes
 * (conntrack.ts rules 1-3; upstream pkg/proxy/conntrack/cleanup.go), from the
 * Service and EndpointSlice objects through servicePorts, as the proxier does.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Service } from 'kubernetes-types/core/v1.js';
import type { EndpointSlice, Endpoint } from 'kubernetes-types/discovery/v1.js';
import { servicePorts } from '../../src/proxy/service-port.js';
import { conntrackFlushes, udpPorts } from '../../src/proxy/conntrack.js';

const svc = (spec: Partial<NonNullable<Service['spec']>> = {}): Service => ({
  metadata: { name: 'dns', namespace: 'ns' },
  spec: { clusterIP: '10.96.0.10', ports: [{ name: 'dns', port: 53, protocol: 'UDP' }], ...spec },
});
const ep = (ip: string, conditions: Endpoint['conditions'] = {}): Endpoint => ({ addresses: [ip], conditions, nodeName: 'n2' });
const slice = (...endpoints: Endpoint[]): EndpointSlice => ({
  addressType: 'IPv4', endpoints, ports: [{ name: 'dns', port: 5353, protocol: 'UDP' }], metadata: { name: 's' },
});
const ports = (s: Service | undefined, ...eps: Endpoint[]) => udpPorts(s ? servicePorts(s, [slice(...eps)], 'n1') : []);
const lines = (a: string[][]) => a.map((x) => x.join(' '));

describe('conntrackFlushes: the stale UDP entries of a Service change', () => {
  const np = svc({ type: 'NodePort', externalIPs: ['192.0.2.7'], ports: [{ name: 'dns', port: 53, protocol: 'UDP', nodePort: 30053 }] });
  const cases: [string, Service | undefined, Endpoint[], Service | undefined, Endpoint[], string[]][] = [
    ['a removed endpoint: entries DNATed to it, on every address of the port and its node port', np, [ep('10.244.1.5'), ep('10.244.1.6')], np, [ep('10.244.1.6')], [
      '-D -p udp --orig-dst 10.96.0.10 --dport 53 --dst-nat 10.244.1.5',
      '-D -p udp --orig-dst 192.0.2.7 --dport 53 --dst-nat 10.244.1.5',
      '-D -p udp --dport 30053 --dst-nat 10.244.1.5',
    ]],
    ['an endpoint that stops serving counts as removed', svc(), [ep('10.244.1.5')], svc(), [ep('10.244.1.5', { ready: false, serving: false })],
      ['-D -p udp --orig-dst 10.96.0.10 --dport 53 --dst-nat 10.244.1.5']],
    ['terminating but serving: nothing (a ready one took over; the flow is not ended)', svc(), [ep('10.244.1.5'), ep('10.244.1.6')], svc(),
      [ep('10.244.1.5', { ready: false, serving: true, terminating: true }), ep('10.244.1.6')], []],
    ['the first serving endpoint: un-NATed entries to the addresses, every entry to the node port', np, [], np, [ep('10.244.1.5')], [
      '-D -p udp --orig-dst 10.96.0.10 --dport 53 --reply-src 10.96.0.10',
      '-D -p udp --orig-dst 192.0.2.7 --dport 53 --reply-src 192.0.2.7',
      '-D -p udp --dport 30053',
    ]],
    ['a Service first seen with endpoints (created, or this proxy\'s first sync) is a first endpoint', undefined, [], svc(), [ep('10.244.1.5')],
      ['-D -p udp --orig-dst 10.96.0.10 --dport 53 --reply-src 10.96.0.10']],
    ['a deleted Service: every entry to its addresses on the port', svc(), [ep('10.244.1.5')], undefined, [],
      ['-D -p udp --orig-dst 10.96.0.10 --dport 53']],
    ['the last endpoint removed: its entries (the rules now reject new flows)', svc(), [ep('10.244.1.5')], svc(), [],
      ['-D -p udp --orig-dst 10.96.0.10 --dport 53 --dst-nat 10.244.1.5']],
    ['an endpoint added beside one: nothing', svc(), [ep('10.244.1.5')], svc(), [ep('10.244.1.5'), ep('10.244.1.6')], []],
    ['TCP ports: nothing', svc({ ports: [{ name: 'dns', port: 53, protocol: 'TCP' }] }), [ep('10.244.1.5')], undefined, [], []],
    ['no endpoint before or after: nothing', svc(), [], svc(), [], []],
  ];
  for (const [name, before, beforeEps, after, afterEps, want] of cases) {
    it(name, () => {
      const old = ports(before, ...beforeEps);
      assert.deepEqual(lines(conntrackFlushes(before ? old : undefined, ports(after, ...afterEps))), want);
    });
  }
});
