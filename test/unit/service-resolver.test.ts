/**
 * The one Service resolution (webhooks, conversion, aggregation): the throwing
 * form webhook callers use and the value form the aggregator's availability
 * check reads, from the same Services, EndpointSlices and Endpoints.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Endpoints, Service } from 'kubernetes-types/core/v1.js';
import type { EndpointSlice } from 'kubernetes-types/discovery/v1.js';
import { ServiceResolver } from '../../src/apiserver/service-resolver.js';

const svc = (name: string, spec: Service['spec']): Service => ({ metadata: { name, namespace: 'ns' }, spec });
const slice = (service: string, port: { name?: string; port: number }, endpoints: EndpointSlice['endpoints']): EndpointSlice => ({
  metadata: { name: `${service}-x`, namespace: 'ns', labels: { 'kubernetes.io/service-name': service } }, addressType: 'IPv4', ports: [port], endpoints,
});

const services = [
  svc('hooks', { ports: [{ name: 'https', port: 443 }] }),
  svc('legacy', { ports: [{ port: 8443 }] }),
  svc('empty', { ports: [{ port: 443 }] }),
  svc('external', { type: 'ExternalName', externalName: 'api.example.com' }),
];
const slices = [
  slice('hooks', { name: 'https', port: 9443 }, [{ addresses: ['10.0.0.1'], conditions: { ready: false } }, { addresses: ['10.0.0.2'] }]),
  slice('empty', { port: 9443 }, [{ addresses: ['10.0.0.9'], conditions: { ready: false } }]),
];
const endpoints: Endpoints[] = [{ metadata: { name: 'legacy', namespace: 'ns' }, subsets: [{ addresses: [{ ip: 'fd00::5' }], ports: [{ port: 6443 }] }] }];

const resolver = new ServiceResolver({
  service: (ns, name) => services.find((s) => s.metadata!.namespace === ns && s.metadata!.name === name),
  endpointSlices: (ns) => slices.filter((s) => s.metadata!.namespace === ns),
  endpoints: (ns, name) => endpoints.find((e) => e.metadata!.namespace === ns && e.metadata!.name === name),
}, () => 0);

describe('ServiceResolver.resolve (webhooks)', () => {
  const cases: { name: string; port: number; url?: string; error?: string }[] = [
    { name: 'hooks', port: 443, url: 'https://10.0.0.2:9443' },
    { name: 'legacy', port: 8443, url: 'https://[fd00::5]:6443' },
    { name: 'absent', port: 443, error: 'service "absent" not found' },
    { name: 'hooks', port: 80, error: 'no service port 80 found for service "hooks"' },
    { name: 'empty', port: 443, error: 'no endpoints available for service "empty"' },
    { name: 'external', port: 443, error: 'unsupported service type "ExternalName"' },
  ];
  for (const c of cases) {
    it(`${c.name}:${c.port} → ${c.url ?? c.error}`, () => {
      if (c.url) assert.deepEqual(resolver.resolve('ns', c.name, c.port), { url: c.url, serverName: `${c.name}.ns.svc` });
      else assert.throws(() => resolver.resolve('ns', c.name, c.port), (e: Error) => e.message === c.error);
    });
  }
});

describe('ServiceResolver.route (aggregation)', () => {
  const cases: { name: string; port: number; want: unknown }[] = [
    { name: 'hooks', port: 443, want: { ok: true, host: '10.0.0.2', port: 9443, serverName: 'hooks.ns.svc' } },
    { name: 'external', port: 443, want: { ok: true, host: 'api.example.com', port: 443, serverName: 'external.ns.svc' } },
    { name: 'absent', port: 443, want: { ok: false, reason: 'ServiceNotFound', message: 'service/absent in "ns" is not present' } },
    { name: 'hooks', port: 80, want: { ok: false, reason: 'ServiceNotFound', message: 'service/hooks in "ns" is not listening on port 80' } },
    { name: 'empty', port: 443, want: { ok: false, reason: 'MissingEndpoints', message: 'endpoints for service/empty in "ns" have no addresses with port name ""' } },
  ];
  for (const c of cases) {
    it(`${c.name}:${c.port}`, () => assert.deepEqual(resolver.route({ namespace: 'ns', name: c.name, port: c.port }), c.want));
  }
});
