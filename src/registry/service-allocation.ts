/**
 * Service cluster IPs and node ports, allocated on create as the service
 * registry does upstream: cluster IPs from the service CIDR (10.96.0.0/12;
 * 10.96.0.1 belongs to the `kubernetes` service), node ports from
 * 30000-32767. Allocations are serialized in-process and checked against
 * every existing Service, so two creates never get the same address.
 */
import type { ResourceInfo } from '../api/resources.js';
import { invalidObject } from '../api/status.js';
import type { Registry } from './registry.js';

const serviceCIDRBase = (10 << 24) | (96 << 16);
const serviceCIDRSize = 1 << 20;
export const kubernetesServiceIP = '10.96.0.1';
const nodePortMin = 30000;
const nodePortMax = 32767;

const ipToString = (n: number) => [n >>> 24, (n >>> 16) & 255, (n >>> 8) & 255, n & 255].join('.');

export class ServiceAllocator {
  private chain: Promise<unknown> = Promise.resolve();

  constructor(private readonly registry: () => Registry) {}

  /** Admission hook: fills spec.clusterIP(s), ipFamilies and node ports on Service creates. */
  admit = (op: 'create' | 'update', info: ResourceInfo, obj: any): Promise<void> | void => {
    if (op !== 'create' || info.group !== '' || info.plural !== 'services') return;
    const run = this.chain.then(() => this.allocate(obj));
    this.chain = run.catch(() => undefined);
    return run;
  };

  private async allocate(svc: any): Promise<void> {
    const spec = svc.spec ?? (svc.spec = {});
    if (spec.type === 'ExternalName') return;
    const store = this.registry().store('', 'v1', 'services')!;
    const { items } = await store.list(undefined);
    if (!spec.clusterIP) {
      const used = new Set(items.flatMap((s: any) => s.spec?.clusterIPs ?? [s.spec?.clusterIP]).filter(Boolean));
      const ip = svc.metadata.namespace === 'default' && svc.metadata.name === 'kubernetes' ? kubernetesServiceIP : this.freeIP(used);
      spec.clusterIP = ip;
      spec.clusterIPs = [ip];
    }
    spec.ipFamilies ??= ['IPv4'];
    if (spec.type === 'NodePort' || spec.type === 'LoadBalancer') this.allocateNodePorts(svc, items);
  }

  private freeIP(used: Set<string>): string {
    // Start at a random offset as upstream's allocator does, skipping the network address and .1.
    const start = 2 + Math.floor(Math.random() * (serviceCIDRSize - 3));
    for (let i = 0; i < serviceCIDRSize - 3; i++) {
      const ip = ipToString(serviceCIDRBase + 2 + ((start - 2 + i) % (serviceCIDRSize - 3)));
      if (!used.has(ip)) return ip;
    }
    throw invalidObject('Service', '', '', [{ type: 'InternalError', field: 'spec.clusterIPs', detail: 'failed to allocate a serviceIP: range is full' }]);
  }

  private allocateNodePorts(svc: any, items: any[]): void {
    const used = new Set<number>(items.flatMap((s: any) => (s.spec?.ports ?? []).map((p: any) => p.nodePort)).filter(Boolean));
    for (const p of svc.spec.ports ?? []) {
      if (p.nodePort) { used.add(p.nodePort); continue; }
      let port = nodePortMin + Math.floor(Math.random() * (nodePortMax - nodePortMin + 1));
      for (let i = 0; used.has(port) && i <= nodePortMax - nodePortMin; i++) port = port === nodePortMax ? nodePortMin : port + 1;
      p.nodePort = port;
      used.add(port);
    }
  }
}
