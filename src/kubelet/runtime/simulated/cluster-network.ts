/**
 * The pod network as far as one process's simulated nodes reach: every
 * simulated pod of this process by its IP, and Services' cluster IPs sent
 * to a ready endpoint as kube-proxy would. So `wget my-service:80` in a
 * simulated container (helm create's test pod, the Services tutorials)
 * reaches another simulated pod's responder, as on a real cluster.
 *
 * Nothing leaves the process: a pod simulated by another process (a second
 * `k8ts up`, a joined node), or an address no simulated pod holds, is not
 * reached (`connect`), which is honest about what the simulation is.
 */
import type { Duplex } from 'node:stream';
import type { Pod, Service } from 'kubernetes-types/core/v1.js';
import type { EndpointSlice } from 'kubernetes-types/discovery/v1.js';

/**
 * A connection to a port of one pod (the runtime's dialPort), from the
 * address `from` (another pod's IP; the pod's own loopback when absent): what
 * the pod's server sees as its client (echoserver's client_address, nginx's
 * access log), as on a pod network without NAT.
 */
export type PortDialer = (port: number, from?: string) => Duplex;

export class SimulatedPodNetwork {
  private readonly pods = new Map<string, PortDialer>();
  /** The pod object at each address (its current labels: NetworkPolicy selects by them). */
  private readonly objects = new Map<string, () => Pod>();

  /** The pod holding `ip` from now on; the returned function detaches it (and only it: the IP may be reused). */
  attach(ip: string, dial: PortDialer, pod?: () => Pod): () => void {
    this.pods.set(ip, dial);
    if (pod) this.objects.set(ip, pod); else this.objects.delete(ip);
    return () => { if (this.pods.get(ip) === dial) { this.pods.delete(ip); this.objects.delete(ip); } };
  }

  /** The pod at `ip`, when this process simulates it. */
  pod(ip: string): PortDialer | undefined {
    return this.pods.get(ip);
  }

  /** The pod object at `ip`, when this process simulates it and its runtime said which. */
  podObject(ip: string): Pod | undefined {
    return this.objects.get(ip)?.();
  }
}

/** One network for every simulated node of the process (`k8ts up`'s nodes share it). */
export const processPodNetwork = new SimulatedPodNetwork();

/** An endpoint a connection may go to: its address and target port, and its pod when the slice names one. */
export interface Backend { ip: string; port: number; nodeName?: string; podUID?: string }

/**
 * The endpoints a connection to the Service's `port` (TCP) may go to, with
 * their target ports, as kube-proxy programs them: the Service port's name
 * matched to the slices' ports (sliceBackends). Empty: no such port or no
 * endpoint, which kube-proxy rejects.
 */
export function serviceBackends(svc: Service, slices: readonly EndpointSlice[], port: number): Backend[] {
  const sp = svc.spec?.ports?.find((p) => p.port === port && (p.protocol ?? 'TCP') === 'TCP');
  return sp ? sliceBackends(slices, sp.name ?? '') : [];
}

/**
 * The endpoints of the slices' TCP port named `portName` (a Service port's
 * name, '' when unnamed): ready endpoints only, or the serving terminating
 * ones when none is ready (kube-proxy's fallback).
 */
export function sliceBackends(slices: readonly EndpointSlice[], portName: string): Backend[] {
  const ready: Backend[] = [];
  const terminating: Backend[] = [];
  for (const slice of slices) {
    if (slice.addressType !== 'IPv4') continue;
    const target = slice.ports?.find((p) => (p.name ?? '') === portName && (p.protocol ?? 'TCP') === 'TCP')?.port;
    if (target === undefined || target === null) continue;
    for (const ep of slice.endpoints ?? []) {
      const ip = ep.addresses?.[0];
      if (!ip) continue;
      const pod = ep.targetRef?.kind === 'Pod' && ep.targetRef.uid ? { podUID: ep.targetRef.uid } : {};
      const b: Backend = { ip, port: target, ...(ep.nodeName ? { nodeName: ep.nodeName } : {}), ...pod };
      const c = ep.conditions ?? {};
      if (c.ready !== false) ready.push(b);
      else if (c.serving && c.terminating) terminating.push(b);
    }
  }
  return ready.length ? ready : terminating;
}
