/**
 * Service cluster IPs and node ports, allocated as the service registry does
 * upstream (pkg/registry/core/service/storage/alloc.go): cluster IPs from the
 * service CIDR (--service-cluster-ip-range, default 10.96.0.0/12; its first
 * address belongs to the `kubernetes` service) on create, a requested one
 * refused outside the range with the allocator's words, node ports from --service-node-port-range (30000-32767 by
 * default) on create and on updates that add or change them. A requested
 * node port must lie in the range and be free, else the write is refused
 * with the port allocator's words. Allocations are serialized in-process and
 * checked against every existing Service, so two writes never get the same
 * address.
 *
 * The existing Services are read from a watch-fed cache, so a create reads
 * nothing from storage. A Service just allocated may not be in the cache yet
 * when the next allocation runs: what this server handed out stays reserved
 * (Reservations) until the cache shows the Service or the reservation
 * expires, which a write that failed after its allocation leaves to happen.
 */
import type { Service, ServicePort } from 'kubernetes-types/core/v1.js';
import type { ResourceInfo } from '../api/resources.js';
import { invalidObject, internalError } from '../api/status.js';
import { invalid, GoValue } from '../api/field-errors.js';
import { defaultServiceNodePortRange, portRangeContains, portRangeString, type PortRange } from '../util/port-range.js';
import type { Lister } from './lister.js';
import { Reservations } from './reservations.js';
import { initIPFamilyFields } from './service-ip-families.js';

/** An IPv4 service CIDR: network address, size, and its text for messages. */
export interface ServiceIPRange { base: number; size: number; cidr: string }

const ipToString = (n: number) => [n >>> 24, (n >>> 16) & 255, (n >>> 8) & 255, n & 255].join('.');
const ipToInt = (ip: string) => ip.split('.').reduce((n, o) => n * 256 + Number(o), 0);

/** --service-cluster-ip-range: an IPv4 CIDR of at least 8 addresses (upstream refuses /30 and smaller for IPv4: /29 is the least). */
export function parseServiceIPRange(cidr: string): ServiceIPRange {
  const m = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})\/(\d{1,2})$/.exec(cidr);
  const octets = m ? m.slice(1, 5).map(Number) : [];
  const bits = m ? Number(m[5]) : -1;
  if (!m || octets.some((o) => o > 255) || bits < 1 || bits > 29) throw new Error(`invalid service CIDR "${cidr}"`);
  const size = 2 ** (32 - bits);
  const base = Math.floor(ipToInt(octets.join('.')) / size) * size;
  return { base, size, cidr: `${ipToString(base)}/${bits}` };
}

export const defaultServiceIPRange = parseServiceIPRange('10.96.0.0/12');

/** The `kubernetes` Service's ClusterIP: the range's first address (kube-apiserver's GetIndexedIP(range, 1)). */
export const kubernetesServiceIPOf = (r: ServiceIPRange) => ipToString(r.base + 1);
export const kubernetesServiceIP = kubernetesServiceIPOf(defaultServiceIPRange);

const inRange = (r: ServiceIPRange, ip: string) => /^\d{1,3}(\.\d{1,3}){3}$/.test(ip) && ipToInt(ip) >= r.base && ipToInt(ip) < r.base + r.size;

/** needsNodePort: NodePort and LoadBalancer services carry node ports. */
const needsNodePorts = (svc: Service) => svc.spec?.type === 'NodePort' || svc.spec?.type === 'LoadBalancer';

/** NeedsHealthCheck: a LoadBalancer that keeps traffic on the node gets a health check node port. */
const needsHealthCheck = (svc: Service) => svc.spec?.type === 'LoadBalancer' && svc.spec.externalTrafficPolicy === 'Local';

/** shouldAllocateNodePorts: a LoadBalancer may opt out; requested ports are still honoured. */
const shouldAllocateNodePorts = (svc: Service) =>
  svc.spec?.type === 'NodePort' || (svc.spec?.type === 'LoadBalancer' && svc.spec.allocateLoadBalancerNodePorts !== false);

/**
 * One allocation's view of the node port range (portallocator's
 * PortAllocationOperation): the ports other Services hold plus those taken so far.
 */
class NodePortOperation {
  /** The ports this operation took, which the allocator reserves until the cache shows them. */
  readonly taken: number[] = [];

  constructor(private readonly range: PortRange, private readonly used: Set<number>) {}

  /** Allocate(port): the port allocator's error text, or undefined once the port is taken. */
  allocate(port: number): string | undefined {
    if (!portRangeContains(this.range, port)) {
      return `provided port is not in the valid range. The range of valid ports is ${portRangeString(this.range)}`;
    }
    if (this.used.has(port)) return 'provided port is already allocated';
    this.used.add(port);
    this.taken.push(port);
    return undefined;
  }

  /** AllocateNext: a free port from a random offset, as upstream's bitmap allocator picks. */
  allocateNext(): number {
    const { base, size } = this.range;
    const start = Math.floor(Math.random() * size);
    for (let i = 0; i < size; i++) {
      const port = base + ((start + i) % size);
      if (!this.used.has(port)) {
        this.used.add(port);
        this.taken.push(port);
        return port;
      }
    }
    throw internalError('failed to allocate a nodePort: range is full');
  }
}

export class ServiceAllocator {
  private readonly clusterIPs = new Reservations<string>();
  private readonly nodePorts = new Reservations<number>();

  constructor(private readonly services: Lister<Service>, private readonly nodePortRange: PortRange = defaultServiceNodePortRange,
    private readonly ipRange: ServiceIPRange = defaultServiceIPRange) {}

  /** Admission hook: fills spec.clusterIP(s), ipFamilies and node ports on Service creates, node ports on updates. */
  admit = (op: 'create' | 'update', info: ResourceInfo, obj: Service, old?: Service): void => {
    if (info.group !== '' || info.plural !== 'services') return;
    if (op === 'update' && (!old || !needsNodePorts(obj) || sameNodePortRequest(obj, old))) return;
    // Synchronous on the one event loop: two allocations never interleave.
    if (old) this.allocateUpdate(obj, old);
    else this.allocate(obj);
  };

  private allocate(svc: Service): void {
    const spec = svc.spec ?? (svc.spec = {});
    if (spec.type === 'ExternalName') return;
    const familyErrors = initIPFamilyFields(svc);
    if (familyErrors.length) throw invalidObject('Service', '', svc.metadata?.name ?? '', familyErrors);
    // Every cached Service; on update that includes the old object, whose ports stay held as upstream's do until the write.
    const items = this.services.list();
    const owner = ownerOf(svc);
    if (!spec.clusterIP) {
      const used = this.clusterIPs.with(items.flatMap((s) => s.spec?.clusterIPs ?? [s.spec?.clusterIP]).filter((ip): ip is string => !!ip), owner);
      const ip = svc.metadata?.namespace === 'default' && svc.metadata?.name === 'kubernetes' ? kubernetesServiceIPOf(this.ipRange) : this.freeIP(used);
      spec.clusterIP = ip;
      spec.clusterIPs = [ip];
      this.clusterIPs.reserve(ip, owner);
    } else if (spec.clusterIP !== 'None' && !inRange(this.ipRange, spec.clusterIP)) {
      // allocClusterIPs: a requested address outside the range is ErrNotInRange.
      const ips = spec.clusterIPs?.length ? spec.clusterIPs : [spec.clusterIP];
      throw invalidObject('Service', '', svc.metadata?.name ?? '', [invalid('spec.clusterIPs', new GoValue(`[]string{${ips.map((i) => JSON.stringify(i)).join(', ')}}`),
        `failed to allocate IP ${spec.clusterIP}: the provided IP (${spec.clusterIP}) is not in the valid range. The range of valid IPs is ${this.ipRange.cidr}`)]);
    }
    if (!needsNodePorts(svc)) return;
    const op = this.nodePortOperation(items, owner);
    initNodePorts(svc, op);
    if (needsHealthCheck(svc)) allocateHealthCheckNodePort(svc, op);
    for (const port of op.taken) this.nodePorts.reserve(port, owner);
  }

  private allocateUpdate(svc: Service, old: Service): void {
    const owner = ownerOf(svc);
    const op = this.nodePortOperation(this.services.list(), owner);
    updateNodePorts(old, svc, op);
    updateHealthCheckNodePort(old, svc, op);
    for (const port of op.taken) this.nodePorts.reserve(port, owner);
  }

  private nodePortOperation(services: Service[], owner: string): NodePortOperation {
    return new NodePortOperation(this.nodePortRange, this.nodePorts.with(services.flatMap(nodePortsOf), owner));
  }

  private freeIP(used: Set<string>): string {
    // Start at a random offset as upstream's allocator does, skipping the network address and .1.
    const { base, size } = this.ipRange;
    const start = 2 + Math.floor(Math.random() * (size - 3));
    for (let i = 0; i < size - 3; i++) {
      const ip = ipToString(base + 2 + ((start - 2 + i) % (size - 3)));
      if (!used.has(ip)) return ip;
    }
    throw invalidObject('Service', '', '', [{ type: 'InternalError', field: 'spec.clusterIPs', detail: 'failed to allocate a serviceIP: range is full' }]);
  }
}

const ownerOf = (svc: Service) => `${svc.metadata?.namespace}/${svc.metadata?.name}`;

function nodePortsOf(svc: Service): number[] {
  const ports = (svc.spec?.ports ?? []).map((p) => p.nodePort ?? 0);
  if (svc.spec?.healthCheckNodePort) ports.push(svc.spec.healthCheckNodePort);
  return ports.filter((p) => p > 0);
}

/** A status write or an update that leaves type and ports alone allocates nothing. */
function sameNodePortRequest(svc: Service, old: Service): boolean {
  const shape = (s: Service) => JSON.stringify([
    s.spec?.type, s.spec?.allocateLoadBalancerNodePorts, s.spec?.ports, s.spec?.externalTrafficPolicy, s.spec?.healthCheckNodePort,
  ]);
  return shape(svc) === shape(old);
}

function refuse(svc: Service, index: number, port: number, why: string): never {
  throw invalidObject('Service', '', svc.metadata?.name ?? '', [invalid(`spec.ports[${index}].nodePort`, port, why)]);
}

/**
 * initNodePorts: ports that share a port number (TCP and UDP 53) share a
 * node port; a requested one is allocated or refused, the rest are picked.
 */
function initNodePorts(svc: Service, op: NodePortOperation): void {
  const ports: ServicePort[] = svc.spec?.ports ?? [];
  const byPort = new Map<number, number>();
  const allocate = shouldAllocateNodePorts(svc);
  ports.forEach((p, i) => {
    if (!p.nodePort && !allocate) return;
    const allocated = byPort.get(p.port);
    if (allocated === undefined) {
      const requested = ports.find((q) => q.port === p.port && q.nodePort)?.nodePort;
      if (requested) {
        const err = op.allocate(requested);
        if (err) refuse(svc, i, requested, err);
        p.nodePort = requested;
      } else {
        p.nodePort = op.allocateNext();
      }
      byPort.set(p.port, p.nodePort);
    } else if (p.nodePort !== allocated) {
      if (!p.nodePort) {
        p.nodePort = allocated;
      } else {
        const err = op.allocate(p.nodePort);
        if (err) refuse(svc, i, p.nodePort, err);
      }
    }
  });
}

/**
 * updateNodePorts: ports the old object held are kept without a check, new
 * requests are allocated or refused, and missing ones are taken back from the
 * old port of the same name (patchAllocatedValues) or picked.
 */
function updateNodePorts(old: Service, svc: Service, op: NodePortOperation): void {
  const oldPorts = new Set(needsNodePorts(old) ? (old.spec?.ports ?? []).map((p) => p.nodePort ?? 0).filter((p) => p > 0) : []);
  const oldByName = new Map((old.spec?.ports ?? []).map((p) => [p.name ?? '', p.nodePort ?? 0]));
  const ports: ServicePort[] = svc.spec?.ports ?? [];
  const taken = new Set<number>(ports.map((p) => p.nodePort ?? 0).filter((p) => p > 0));
  const allocated = new Set<number>();
  const allocate = shouldAllocateNodePorts(svc);
  ports.forEach((p, i) => {
    if (!p.nodePort && needsNodePorts(old)) {
      const before = oldByName.get(p.name ?? '') ?? 0;
      if (before && !taken.has(before)) {
        p.nodePort = before;
        taken.add(before);
      }
    }
    if (!p.nodePort && !allocate) return;
    if (!p.nodePort) {
      p.nodePort = op.allocateNext();
      return;
    }
    if (oldPorts.has(p.nodePort) || allocated.has(p.nodePort)) return;
    const err = op.allocate(p.nodePort);
    if (err) refuse(svc, i, p.nodePort, err);
    allocated.add(p.nodePort);
  });
}

/** allocHealthCheckNodePort: a requested port is allocated or refused (as an internal error, upstream's choice), else one is picked. */
function allocateHealthCheckNodePort(svc: Service, op: NodePortOperation): void {
  const spec = svc.spec!;
  const requested = spec.healthCheckNodePort ?? 0;
  if (!requested) {
    try {
      spec.healthCheckNodePort = op.allocateNext();
    } catch {
      throw internalError('failed to allocate a HealthCheck NodePort 0: range is full');
    }
    return;
  }
  const err = op.allocate(requested);
  if (err) throw internalError(`failed to allocate requested HealthCheck NodePort ${requested}: ${err}`);
}

/**
 * updateHealthCheckNodePort: a Service that starts needing one gets one; one
 * that keeps needing it keeps the old port when the update leaves it out
 * (patchAllocatedValues), and validation refuses any other change.
 */
function updateHealthCheckNodePort(old: Service, svc: Service, op: NodePortOperation): void {
  if (!needsHealthCheck(svc)) return;
  if (!needsHealthCheck(old)) return allocateHealthCheckNodePort(svc, op);
  if (!svc.spec!.healthCheckNodePort && old.spec?.healthCheckNodePort) svc.spec!.healthCheckNodePort = old.spec.healthCheckNodePort;
}
