/**
 * Resource arithmetic the scheduler (and anything else that sizes pods
 * against nodes) needs, as upstream's component-helpers `resource.PodRequests`
 * and the scheduler's `framework.Resource` compute it. Pure functions over
 * plain API objects; quantities become plain numbers:
 *  - cpu in millicores (MilliValue, rounded up);
 *  - memory, ephemeral-storage, pods and scalar resources as integers
 *    (Value, rounded up).
 *
 * A pod's requests (PodRequests), in this order:
 *  1. the sum of its containers' requests;
 *  2. init containers: a restartable one (restartPolicy Always, a sidecar)
 *     adds to the sum and to a running sidecar total; a regular one needs its
 *     own requests plus the sidecars started before it; the pod needs the
 *     larger of (1 + sidecars) and the largest init container need;
 *  3. plus spec.overhead.
 * With `nonMissing`, a container that does not mention cpu or memory counts
 * the given default instead (the scheduler's non-zero requests: 100m and
 * 200Mi); an explicit 0 stays 0.
 */
import type { PodSpec } from 'kubernetes-types/core/v1.js';
import { parseQuantity, milliValue } from './quantity.js';
import { isQualifiedName } from './names.js';

/** Resources as numbers; scalar holds extended resources, hugepages-*, attachable-volumes-*. */
export interface ResourceAmounts {
  milliCPU: number;
  memory: number;
  ephemeralStorage: number;
  /** Only meaningful for allocatable: the pods count. */
  pods: number;
  scalar: Map<string, number>;
}

export const emptyResources = (): ResourceAmounts => ({ milliCPU: 0, memory: 0, ephemeralStorage: 0, pods: 0, scalar: new Map() });

/** schedutil.DefaultMilliCPURequest and DefaultMemoryRequest. */
export const defaultMilliCPURequest = 100;
export const defaultMemoryRequest = 200 * 1024 * 1024;

/** v1helper.IsPrefixedNativeResource: a name in the kubernetes.io domain. */
export const isPrefixedNativeResource = (name: string) => name.includes('kubernetes.io/');
/** v1helper.IsNativeResource: no domain, or the kubernetes.io domain. */
export const isNativeResource = (name: string) => !name.includes('/') || isPrefixedNativeResource(name);
export const isHugePageResourceName = (name: string) => name.startsWith('hugepages-');
export const isAttachableVolumeResourceName = (name: string) => name.startsWith('attachable-volumes-');

/** v1helper.IsExtendedResourceName: a domain-qualified, non-native name (`example.com/gpu`). */
export function isExtendedResourceName(name: string): boolean {
  if (isNativeResource(name) || name.startsWith('requests.')) return false;
  return isQualifiedName(`requests.${name}`).length === 0;
}

/** schedutil.IsScalarResourceName. */
export function isScalarResourceName(name: string): boolean {
  return isExtendedResourceName(name) || isHugePageResourceName(name) || isPrefixedNativeResource(name) || isAttachableVolumeResourceName(name);
}

/** Quantities in milli units, to sum exactly before rounding like upstream's Quantity sums. */
type MilliList = Map<string, number>;

const simpleQuantity = /^(\d{1,12})(m|k|M|G|T|Ki|Mi|Gi|Ti)?$/;
const simpleScale: Record<string, number> = {
  '': 1000, m: 1, k: 1e6, M: 1e9, G: 1e12, T: 1e15, Ki: 1024 * 1000, Mi: 1024 ** 2 * 1000, Gi: 1024 ** 3 * 1000, Ti: 1024 ** 4 * 1000,
};

/**
 * Quantity strings already parsed, and their MilliValue (undefined: not a quantity). A cluster's pods
 * repeat a handful of request strings ("100m", "500Mi"), and an informer's string pool makes them
 * one string each, so a lookup replaces a regular expression match (and its match array) per
 * quantity. Bounded: cleared when full, so odd values cannot make it grow.
 */
const parsedQuantities = new Map<string, number | undefined>();
const parsedQuantitiesMax = 4096;

/** MilliValue of a quantity; plain integers with a common suffix skip the exact (bigint) parser. */
function milliOf(raw: unknown): number | undefined {
  if (typeof raw !== 'string') return parseMilli(raw);
  let v = parsedQuantities.get(raw);
  if (v !== undefined || parsedQuantities.has(raw)) return v;
  v = parseMilli(raw);
  if (parsedQuantities.size >= parsedQuantitiesMax) parsedQuantities.clear();
  parsedQuantities.set(raw, v);
  return v;
}

function parseMilli(raw: unknown): number | undefined {
  if (typeof raw === 'string') {
    const m = simpleQuantity.exec(raw);
    if (m) {
      const v = Number(m[1]) * simpleScale[m[2] ?? ''];
      if (Number.isSafeInteger(v)) return v;
    }
  }
  const q = parseQuantity(raw);
  return q ? Number(milliValue(q)) : undefined;
}

function toMilliList(list: Record<string, unknown> | undefined | null): MilliList {
  const out: MilliList = new Map();
  if (!list) return out;
  for (const name in list) {
    const v = milliOf(list[name]);
    if (v !== undefined) out.set(name, v);
  }
  return out;
}

function addInto(dst: MilliList, src: MilliList): void {
  for (const [k, v] of src) dst.set(k, (dst.get(k) ?? 0) + v);
}

function maxInto(dst: MilliList, src: MilliList): void {
  for (const [k, v] of src) if (!dst.has(k) || v > dst.get(k)!) dst.set(k, v);
}

function withDefaults(reqs: MilliList, nonMissing: MilliList | undefined): MilliList {
  if (!nonMissing) return reqs;
  let out = reqs;
  for (const [k, v] of nonMissing) {
    if (out.has(k)) continue;
    if (out === reqs) out = new Map(reqs);
    out.set(k, v);
  }
  return out;
}

const nonZeroDefaults: MilliList = new Map([['cpu', defaultMilliCPURequest], ['memory', defaultMemoryRequest * 1000]]);

/** PodRequests in milli units, following the rules of the file comment. */
function podRequestsMilli(spec: PodSpec | undefined, nonMissing?: MilliList): MilliList {
  const reqs: MilliList = new Map();
  for (const c of spec?.containers ?? []) addInto(reqs, withDefaults(toMilliList(c?.resources?.requests), nonMissing)); // 1
  const sidecars: MilliList = new Map();
  const initNeed: MilliList = new Map();
  for (const c of spec?.initContainers ?? []) { // 2
    const own = withDefaults(toMilliList(c?.resources?.requests), nonMissing);
    if (c?.restartPolicy === 'Always') {
      addInto(reqs, own);
      addInto(sidecars, own);
      maxInto(initNeed, sidecars);
    } else {
      const need = new Map(own);
      addInto(need, sidecars);
      maxInto(initNeed, need);
    }
  }
  maxInto(reqs, initNeed);
  addInto(reqs, toMilliList(spec?.overhead)); // 3
  return reqs;
}

const ceilDiv1000 = (milli: number) => Math.ceil(milli / 1000);

function fromMilliList(list: MilliList): ResourceAmounts {
  const r = emptyResources();
  for (const [name, milli] of list) {
    switch (name) {
      case 'cpu': r.milliCPU += milli; break;
      case 'memory': r.memory += ceilDiv1000(milli); break;
      case 'ephemeral-storage': r.ephemeralStorage += ceilDiv1000(milli); break;
      case 'pods': r.pods += ceilDiv1000(milli); break;
      default: if (isScalarResourceName(name)) r.scalar.set(name, (r.scalar.get(name) ?? 0) + ceilDiv1000(milli));
    }
  }
  return r;
}

/** The pod's requests (framework.Resource of PodRequests). */
export function podRequests(spec: PodSpec | undefined): ResourceAmounts {
  return fromMilliList(podRequestsMilli(spec));
}

/** The pod's cpu and memory requests with the non-zero defaults (NonZeroRequested). */
export function podNonZeroRequests(spec: PodSpec | undefined): { milliCPU: number; memory: number } {
  const r = fromMilliList(podRequestsMilli(spec, nonZeroDefaults));
  return { milliCPU: r.milliCPU, memory: r.memory };
}

/** A pod's requests (podRequests) and its non-zero requests (podNonZeroRequests), together. */
export interface PodRequestAmounts {
  requests: ResourceAmounts;
  nonZero: { milliCPU: number; memory: number };
}

/** podRequests and podNonZeroRequests of one pod, in one pass for the pods most are (containersOnlyRequests). */
export function podRequestAmounts(spec: PodSpec | undefined): PodRequestAmounts {
  return containersOnlyRequests(spec) ?? { requests: podRequests(spec), nonZero: podNonZeroRequests(spec) };
}

/**
 * Rule 1 alone, for a pod without init containers or overhead whose containers request only cpu,
 * memory and ephemeral-storage: the same sums in milli units, rounded once at the end, without the
 * Maps of the general rules (about 3 KB of garbage a pod in the scheduler, which computes this for
 * every pod it places). Undefined for any other pod: the general rules apply.
 */
function containersOnlyRequests(spec: PodSpec | undefined): PodRequestAmounts | undefined {
  if (!spec || spec.initContainers?.length || spec.overhead) return undefined;
  let cpu = 0, memory = 0, ephemeral = 0, nonZeroCPU = 0, nonZeroMemory = 0;
  for (const c of spec.containers ?? []) {
    const requests = c?.resources?.requests as Record<string, unknown> | undefined;
    let ownCPU: number | undefined;
    let ownMemory: number | undefined;
    for (const name in requests) {
      const v = milliOf(requests[name]);
      if (v === undefined) continue; // not a quantity: absent, as toMilliList leaves it
      if (name === 'cpu') ownCPU = v;
      else if (name === 'memory') ownMemory = v;
      else if (name === 'ephemeral-storage') ephemeral += v;
      else return undefined;
    }
    cpu += ownCPU ?? 0;
    memory += ownMemory ?? 0;
    nonZeroCPU += ownCPU ?? defaultMilliCPURequest;
    nonZeroMemory += ownMemory ?? defaultMemoryRequest * 1000;
  }
  const requests = emptyResources();
  requests.milliCPU = cpu;
  requests.memory = ceilDiv1000(memory);
  requests.ephemeralStorage = ceilDiv1000(ephemeral);
  return { requests, nonZero: { milliCPU: nonZeroCPU, memory: ceilDiv1000(nonZeroMemory) } };
}

/** A ResourceList (node allocatable or capacity) as numbers (framework.NewResource). */
export function resourceListAmounts(list: Record<string, unknown> | undefined | null): ResourceAmounts {
  return fromMilliList(toMilliList(list));
}
