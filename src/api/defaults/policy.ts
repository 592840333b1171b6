/**
 * Defaults of PriorityClass (scheduling.k8s.io/v1: preemptionPolicy
 * PreemptLowerPriority) and EndpointSlice (discovery.k8s.io/v1: each port's
 * name "" and protocol TCP), as upstream's SetDefaults_*.
 */
import { Obj, isObj } from './util.js';

export function defaultPriorityClass(pc: Obj): void {
  pc.preemptionPolicy ??= 'PreemptLowerPriority';
}

export function defaultEndpointSlice(slice: Obj): void {
  if (!Array.isArray(slice.ports)) return;
  for (const p of slice.ports) {
    if (!isObj(p)) continue;
    p.name ??= '';
    p.protocol ??= 'TCP';
  }
}
