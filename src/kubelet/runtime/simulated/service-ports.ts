/**
 * What kube-proxy answers on a node's own address, for `k8ts up`'s
 * simulated nodes. Their InternalIP is 127.0.0.1 (the address their kubelet
 * API serves on), and servicelb gives a LoadBalancer Service that address as
 * its EXTERNAL-IP, so the tutorials' `curl http://NODE_IP:NODE_PORT`
 * ("Kubernetes Basics", module 4) and `curl http://EXTERNAL_IP:PORT`
 * ("Exposing an External IP Address") go to 127.0.0.1 on the host. Upstream's
 * kube-proxy answers there with a Service's endpoints; no packet reaches a
 * simulated pod, so this listens on the host instead and hands each
 * connection to a ready endpoint's in-process responder (the runtime's
 * dialPort: the same answers as port-forward):
 *
 *  1. Every TCP port of a NodePort or LoadBalancer Service listens on
 *     ADDRESS:nodePort; a LoadBalancer Service whose ingress IP is ADDRESS
 *     also on ADDRESS:port.
 *  2. A connection goes to a ready endpoint of the Service's EndpointSlices
 *     (cluster-network.ts sliceBackends: the slice port of the same name, the
 *     serving terminating ones when none is ready), chosen at random as the nftables
 *     proxier's `numgen random` does; the endpoint's pod is reached through
 *     its node's runtime. Without a ready endpoint the connection is reset
 *     (upstream rejects it; a reset is the nearest an accepted socket gets).
 *  3. A port another process holds (or one below 1024 without root) is not
 *     served: it is logged once, as kube-proxy logs a port it cannot open.
 *  4. A LoadBalancer Service with externalTrafficPolicy Local has its
 *     healthCheckNodePort answered as kube-proxy's service health server
 *     does (pkg/proxy/healthcheck), on every path: JSON naming the Service, its
 *     local endpoints and serviceProxyHealthy; 200 with an endpoint, else
 *     503 (the Using Source IP tutorial's `curl localhost:PORT/healthz`).
 *     The address stands for every simulated node at once, so the local
 *     endpoints are all the ready ones, not those of one node.
 */
import http from 'node:http';
import net from 'node:net';
import type { Duplex } from 'node:stream';
import type { Service } from 'kubernetes-types/core/v1.js';
import type { EndpointSlice } from 'kubernetes-types/discovery/v1.js';
import { Informer, type Clientset } from '../../../client/index.js';
import type { Logger } from '../../../util/log.js';
import { sliceBackends } from './cluster-network.js';

export interface SimulatedServicePortsOptions {
  clients: Clientset;
  /** The nodes' address (127.0.0.1 for `k8ts up`). */
  address: string;
  logger: Logger;
  /** A connection to `port` of the pod `uid` on `nodeName` (its runtime's dialPort), or undefined when no such node runs here. */
  dial(nodeName: string, uid: string, port: number): Duplex | undefined;
}

/** A host port and what it serves: the Service (namespace/name) and its port's name. */
interface Target { service: string; namespace: string; name: string; portName: string; health?: boolean }

const targetKey = (t: Target) => `${t.service}:${t.portName}`;

/** The host ports a Service asks for, by rule 1. */
export function hostPorts(svc: Service, address: string): { port: number; target: Target }[] {
  const type = svc.spec?.type;
  if (type !== 'NodePort' && type !== 'LoadBalancer') return [];
  const namespace = svc.metadata?.namespace ?? 'default';
  const name = svc.metadata?.name ?? '';
  const onAddress = type === 'LoadBalancer' && (svc.status?.loadBalancer?.ingress ?? []).some((i) => i.ip === address);
  const out: { port: number; target: Target }[] = [];
  for (const p of svc.spec?.ports ?? []) {
    if ((p.protocol ?? 'TCP') !== 'TCP') continue;
    const target = { service: `${namespace}/${name}`, namespace, name, portName: p.name ?? '' };
    if (p.nodePort) out.push({ port: p.nodePort, target });
    if (onAddress) out.push({ port: p.port, target });
  }
  const hc = svc.spec?.healthCheckNodePort;
  if (type === 'LoadBalancer' && svc.spec?.externalTrafficPolicy === 'Local' && hc) {
    out.push({ port: hc, target: { service: `${namespace}/${name}`, namespace, name, portName: '', health: true } });
  }
  return out;
}

/** The endpoints of the slices for the Service port named `portName` that are pods of a node: pod, node and the port to dial (rule 2). */
export function readyBackends(slices: EndpointSlice[], portName: string): { nodeName: string; uid: string; port: number }[] {
  return sliceBackends(slices, portName).flatMap((b) => (b.nodeName && b.podUID ? [{ nodeName: b.nodeName, uid: b.podUID, port: b.port }] : []));
}

export class SimulatedServicePorts {
  private readonly services: Informer;
  /** Host port → its server and what it serves now. */
  private readonly listeners = new Map<number, { server: net.Server; target: Target }>();
  /** Ports that could not be opened, with the owner they were for (logged once). */
  private readonly failed = new Map<number, string>();
  private readonly sockets = new Set<net.Socket>();
  private closed = false;

  constructor(private readonly o: SimulatedServicePortsOptions) {
    this.services = new Informer(o.clients.resource('services'), { logger: o.logger });
    const sync = () => this.sync();
    this.services.addEventHandler({ add: sync, update: sync, delete: sync });
  }

  start(): void { this.services.start(); }

  /** Opens the ports the Services ask for and closes those none asks for any more. */
  private sync(): void {
    if (this.closed) return;
    const wanted = new Map<number, Target>();
    for (const svc of this.services.list() as Service[]) {
      for (const { port, target } of hostPorts(svc, this.o.address)) if (!wanted.has(port)) wanted.set(port, target);
    }
    for (const [port, l] of this.listeners) {
      const t = wanted.get(port);
      if (t && !t.health === !l.target.health) l.target = t;
      else { l.server.close(); this.listeners.delete(port); }
    }
    for (const [port, owner] of this.failed) if (wanted.get(port)?.service !== owner) this.failed.delete(port);
    for (const [port, target] of wanted) if (!this.listeners.has(port) && !this.failed.has(port)) this.listen(port, target);
  }

  private listen(port: number, target: Target): void {
    const server = target.health
      ? http.createServer((req, res) => { this.track(req.socket); void this.health(port, res); })
      : net.createServer((sock) => this.accept(sock, port));
    const entry = { server, target };
    this.listeners.set(port, entry);
    server.on('error', (err: NodeJS.ErrnoException) => {
      if (this.listeners.get(port) !== entry) return;
      this.listeners.delete(port);
      server.close();
      this.failed.set(port, entry.target.service);
      this.o.logger.warn('cannot serve a Service port on the simulated nodes\' address', { service: targetKey(entry.target), address: this.o.address, port, err: err.code ?? err.message });
    });
    server.listen(port, this.o.address);
  }

  private track(sock: net.Socket): void {
    if (this.sockets.has(sock)) return;
    this.sockets.add(sock);
    sock.once('close', () => this.sockets.delete(sock));
    sock.on('error', () => sock.destroy());
  }

  private accept(sock: net.Socket, port: number): void {
    this.track(sock);
    const target = this.listeners.get(port)?.target;
    if (!target) { sock.resetAndDestroy(); return; }
    void this.backend(target).then((conn) => {
      if (!conn || sock.destroyed) { conn?.destroy(); if (!sock.destroyed) sock.resetAndDestroy(); return; }
      conn.on('error', () => { if (!sock.destroyed) sock.resetAndDestroy(); });
      sock.on('close', () => conn.destroy());
      sock.pipe(conn).pipe(sock);
    }, () => sock.resetAndDestroy());
  }

  /** Rule 4: kube-proxy's answer for the Service's health check port. */
  private async health(port: number, res: http.ServerResponse): Promise<void> {
    const target = this.listeners.get(port)?.target;
    if (!target) { res.destroy(); return; }
    const slices = await this.o.clients.resource('endpointslices').list(target.namespace, { labelSelector: `kubernetes.io/service-name=${target.name}` })
      .then((l) => l.items as EndpointSlice[], () => []);
    const local = new Set(slices.flatMap((sl) => (sl.endpoints ?? []).filter((e) => e.conditions?.ready !== false && e.nodeName && e.targetRef?.uid)
      .map((e) => e.targetRef!.uid!))).size;
    const body = `{\n\t"service": {\n\t\t"namespace": ${JSON.stringify(target.namespace)},\n\t\t"name": ${JSON.stringify(target.name)}\n\t},\n` +
      `\t"localEndpoints": ${local},\n\t"serviceProxyHealthy": true\n}`;
    // Go's server sets the length of a body written at once.
    res.writeHead(local ? 200 : 503, { 'Content-Type': 'application/json', 'X-Content-Type-Options': 'nosniff', 'Content-Length': Buffer.byteLength(body) });
    res.end(body);
  }

  /** A connection to one ready endpoint of the Service's port, chosen at random; undefined without one. */
  private async backend(t: Target): Promise<Duplex | undefined> {
    const slices = (await this.o.clients.resource('endpointslices').list(t.namespace, { labelSelector: `kubernetes.io/service-name=${t.name}` })).items as EndpointSlice[];
    const ready = readyBackends(slices, t.portName);
    if (!ready.length) return undefined;
    const b = ready[Math.floor(Math.random() * ready.length)]!;
    return this.o.dial(b.nodeName, b.uid, b.port);
  }

  /** Stops listening and ends the connections it carries. */
  async close(): Promise<void> {
    this.closed = true;
    this.services.stop();
    for (const s of this.sockets) s.destroy();
    await Promise.all([...this.listeners.values()].map((l) => new Promise<void>((r) => l.server.close(() => r()))));
    this.listeners.clear();
  }
}
