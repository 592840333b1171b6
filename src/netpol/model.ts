/**
 * The table one node's policies ask for (see ruleset.ts for its layout),
 * kept up to date one informer event at a time, so that what an event
 * costs follows what it changes, not the number of policies and pods:
 *  - a policy change compiles that policy (compile.ts) and checks the local
 *    pods of its namespace;
 *  - a pod change checks that pod against every set and against the
 *    policies of its namespace;
 *  - a namespace relabel checks that namespace's pods against the sets
 *    with a namespaceSelector.
 * Each change records what it touched (`dirty`): the set elements whose
 * count crossed zero, the policy chains, the addresses of the local pods
 * whose isolation may have changed. table.ts turns those into one nft
 * transaction. A policy about no local pod is left out, as before: only a
 * policy selecting a local pod brings its chains and sets to this node.
 */
import type { Pod, Namespace, ContainerPort } from 'kubernetes-types/core/v1.js';
import type { NetworkPolicy } from 'kubernetes-types/networking/v1.js';
import { matchesSelector } from '../api/labels.js';
import { policyAddress } from './selection.js';
import { compilePolicy, directions, type CompiledPolicy, type PodView, type PolicyChain, type SetDef } from './compile.js';
import { isolationChain, type Direction } from './names.js';

interface PodEntry extends PodView { local: boolean }

export interface DesiredSet { def: SetDef; refs: number; /** pod key → its elements */ members: Map<string, string[]>; /** element → how many members hold it */ elements: Map<string, number> }

/** What changed since the last transaction. `all`: a set that came or went, to diff whole. */
export interface Dirty { sets: Map<string, Set<string> | 'all'>; chains: Set<string>; groups: Set<string>; addresses: Set<string> }

/** The order policies are jumped to (String.prototype.localeCompare's, as whole-table builds had it; a collator is much cheaper per call). */
const byKey = new Intl.Collator().compare;
const none: string[] = [];

const newDirty = (): Dirty => ({ sets: new Map(), chains: new Set(), groups: new Set(), addresses: new Set() });

export class PolicyModel {
  private readonly pods = new Map<string, PodEntry>();
  private readonly podsByNamespace = new Map<string, Set<string>>();
  /** This node's pods by namespace: the only ones a policy's spec.podSelector can isolate here. */
  private readonly localByNamespace = new Map<string, Set<string>>();
  private readonly localByAddress = new Map<string, Set<string>>();
  private readonly namespaceLabels = new Map<string, Record<string, string>>();
  private readonly policies = new Map<string, CompiledPolicy>();
  private readonly policiesByNamespace = new Map<string, Set<string>>();
  /** The peer and named-port sets of the policies that select a local pod. */
  readonly sets = new Map<string, DesiredSet>();
  /** The names of the sets only pods of one namespace can be in (a peer without namespaceSelector), by namespace, and of the others. */
  private readonly setsByNamespace = new Map<string, Set<string>>();
  private readonly clusterSets = new Set<string>();
  /** The chains of the policies that select a local pod. */
  readonly chains = new Map<string, PolicyChain>();
  /** Per direction, local pod address → its isolation chain (resolve() brings it up to date). */
  readonly maps: Record<Direction, Map<string, string>> = { ingress: new Map(), egress: new Map() };
  /** Isolation chains: name → body, and how many map elements use each. */
  readonly groups = new Map<string, { body: string; users: number }>();
  /** Policies skipped because a selector cannot be parsed: key → why. */
  readonly invalid = new Map<string, string>();
  dirty = newDirty();
  private groupNames = new Map<string, { name: string; body: string }>();

  constructor(private readonly nodeName: string) {}

  get activePolicies(): number { let n = 0; for (const c of this.policies.values()) if (c.selected.size) n++; return n; }
  get isolatedPods(): number { return new Set([...this.maps.ingress.keys(), ...this.maps.egress.keys()]).size; }
  get changed(): boolean { const d = this.dirty; return d.sets.size + d.chains.size + d.groups.size + d.addresses.size > 0; }

  takeDirty(): Dirty {
    const d = this.dirty;
    this.dirty = newDirty();
    if (this.groupNames.size > 4 * this.groups.size + 1000) this.groupNames = new Map(); // forget lists no pod uses any more
    return d;
  }

  setNamespace(name: string, ns: Namespace | undefined): void {
    const labels = ns?.metadata?.labels ?? {};
    const before = this.namespaceLabels.get(name);
    if (ns && before && sameLabels(before, labels)) return;
    if (ns) this.namespaceLabels.set(name, labels); else this.namespaceLabels.delete(name);
    for (const [setName, set] of this.sets) {
      if (!set.def.namespaceDependent) continue;
      for (const key of this.podsByNamespace.get(name) ?? []) this.refreshMember(setName, set, key);
    }
  }

  setPod(key: string, pod: Pod | undefined): void {
    const old = this.pods.get(key);
    const now = pod ? this.podEntry(pod) : undefined;
    if (old && now && samePod(old, now)) return; // a status update NetworkPolicy does not see
    if (!old && !now) return;
    if (old) {
      this.podsByNamespace.get(old.ns)?.delete(key);
      if (old.local) { removeFrom(this.localByAddress, old.ip, key); removeFrom(this.localByNamespace, old.ns, key); this.dirty.addresses.add(old.ip); }
    }
    if (now) {
      this.pods.set(key, now);
      addTo(this.podsByNamespace, now.ns, key);
      if (now.local) { addTo(this.localByAddress, now.ip, key); addTo(this.localByNamespace, now.ns, key); this.dirty.addresses.add(now.ip); }
    } else this.pods.delete(key);
    const ns = (now?.ns ?? old?.ns)!;
    for (const name of this.clusterSets) this.refreshMember(name, this.sets.get(name)!, key);
    for (const name of this.setsByNamespace.get(ns) ?? []) this.refreshMember(name, this.sets.get(name)!, key);
    for (const policyKey of this.policiesByNamespace.get(ns) ?? []) this.refreshSelected(policyKey, key);
  }

  setPolicy(key: string, np: NetworkPolicy | undefined): void {
    const old = this.policies.get(key);
    let now: CompiledPolicy | undefined;
    if (np) {
      try {
        now = compilePolicy(np);
        this.invalid.delete(key);
      } catch (e) {
        this.invalid.set(key, `${key}: ${(e as Error).message}`);
      }
    } else this.invalid.delete(key);
    if (old && now && old.spec === now.spec) return; // metadata only
    if (now) {
      this.policies.set(key, now);
      addTo(this.policiesByNamespace, now.ns, key);
      for (const podKey of this.localByNamespace.get(now.ns) ?? []) {
        const p = this.pods.get(podKey)!;
        if (matchesSelector(now.podSelector, p.labels)) { now.selected.add(podKey); this.dirty.addresses.add(p.ip); }
      }
      // The new version takes its sets before the old one lets go, so a set both use is not refilled.
      if (now.selected.size) this.activate(now);
    } else {
      this.policies.delete(key);
      if (old) this.policiesByNamespace.get(old.ns)?.delete(key);
    }
    if (old?.selected.size) {
      for (const podKey of old.selected) { const p = this.pods.get(podKey); if (p) this.dirty.addresses.add(p.ip); }
      this.deactivate(old);
    }
  }

  /** Brings the verdict maps and isolation chains up to date for the addresses that changed. */
  resolve(): void {
    for (const ip of this.dirty.addresses) {
      for (const dir of directions) {
        const want = this.isolation(dir, ip);
        const have = this.maps[dir].get(ip);
        if (want?.name === have) continue;
        if (have) {
          const g = this.groups.get(have)!;
          if (--g.users === 0) { this.groups.delete(have); this.dirty.groups.add(have); }
        }
        if (!want) { this.maps[dir].delete(ip); continue; }
        this.maps[dir].set(ip, want.name);
        const g = this.groups.get(want.name);
        if (g) g.users++; else { this.groups.set(want.name, { body: want.body, users: 1 }); this.dirty.groups.add(want.name); }
      }
    }
  }

  /** The chain shared by every local pod the same policies isolate in `dir`: it jumps to each policy's chain and drops the rest. */
  private isolation(dir: Direction, ip: string): { name: string; body: string } | undefined {
    const keys = this.isolatingPolicies(dir, ip);
    if (!keys) return undefined;
    // Looked up by the keys as found (their order follows the indexes, so a list recurs as is): no sort, no hash on a hit.
    const id = `${dir}\n${keys.join('\n')}`;
    let g = this.groupNames.get(id);
    if (!g) {
      const chains = (keys.length > 1 ? [...new Set(keys)].sort(byKey) : keys).map((k) => this.policies.get(k)!.chains[dir]!.name);
      g = { name: isolationChain(dir, chains), body: `${chains.map((c) => ` jump ${c} ;`).join('')} drop ;` };
      this.groupNames.set(id, g);
    }
    return g;
  }

  /** The keys of the policies isolating the local pods at `ip` in `dir` (a key twice when two pods share the address). */
  private isolatingPolicies(dir: Direction, ip: string): string[] | undefined {
    const pods = this.localByAddress.get(ip);
    if (!pods) return undefined;
    let keys: string[] | undefined;
    for (const podKey of pods) {
      for (const policyKey of this.policiesByNamespace.get(this.pods.get(podKey)!.ns) ?? []) {
        const c = this.policies.get(policyKey)!;
        if (c.chains[dir] && c.selected.has(podKey)) (keys ??= []).push(policyKey);
      }
    }
    return keys;
  }

  private podEntry(pod: Pod): PodEntry | undefined {
    const ip = policyAddress(pod);
    if (!ip) return undefined;
    const ports = new Map<string, string[]>();
    const cps: ContainerPort[] = [...(pod.spec?.containers ?? []), ...(pod.spec?.initContainers ?? [])].flatMap((c) => c.ports ?? []);
    for (const cp of cps) {
      if (!cp.name) continue;
      const l = ports.get(cp.name) ?? [];
      const e = `${ip} . ${(cp.protocol ?? 'TCP').toLowerCase()} . ${cp.containerPort}`;
      if (!l.includes(e)) l.push(e);
      ports.set(cp.name, l);
    }
    const labels = pod.metadata?.labels ?? {};
    const local = pod.spec?.nodeName === this.nodeName;
    return { ns: pod.metadata!.namespace!, labels, ip, ports, local };
  }

  /** Rule 1 of selection.ts for one (policy, pod) pair. */
  private refreshSelected(policyKey: string, podKey: string): void {
    const c = this.policies.get(policyKey)!;
    const p = this.pods.get(podKey);
    const is = !!p?.local && matchesSelector(c.podSelector, p.labels);
    if (is === c.selected.has(podKey)) return;
    if (is) {
      c.selected.add(podKey);
      if (c.selected.size === 1) this.activate(c);
    } else {
      c.selected.delete(podKey);
      if (!c.selected.size) this.deactivate(c);
    }
    if (p) this.dirty.addresses.add(p.ip);
  }

  private refreshMember(setName: string, set: DesiredSet, podKey: string): void {
    const p = this.pods.get(podKey);
    const now = p && (!set.def.namespace || set.def.namespace === p.ns) ? set.def.elements(p, this.namespaceLabels) : none;
    const was = set.members.get(podKey) ?? none;
    if (now.length === was.length && now.every((e, i) => e === was[i])) return;
    if (now.length) set.members.set(podKey, now); else set.members.delete(podKey);
    const dirty = this.dirty.sets.get(setName) ?? new Set<string>();
    for (const e of was) {
      const n = set.elements.get(e)! - 1;
      if (n) set.elements.set(e, n); else { set.elements.delete(e); if (dirty !== 'all') dirty.add(e); }
    }
    for (const e of now) {
      const n = (set.elements.get(e) ?? 0) + 1;
      set.elements.set(e, n);
      if (n === 1 && dirty !== 'all') dirty.add(e);
    }
    this.dirty.sets.set(setName, dirty);
  }

  /** A policy now selects a local pod: its chains and sets come to this node. */
  private activate(c: CompiledPolicy): void {
    for (const [name, def] of c.sets) {
      let set = this.sets.get(name);
      if (!set) {
        set = { def, refs: 0, members: new Map(), elements: new Map() };
        this.sets.set(name, set);
        if (def.namespace) addTo(this.setsByNamespace, def.namespace, name); else this.clusterSets.add(name);
        this.dirty.sets.set(name, 'all');
        // A new set has no members yet: only namespaces that can hold some are walked.
        for (const [ns, keys] of this.podsByNamespace) {
          if (def.namespace ? def.namespace !== ns : !def.inNamespace(ns, this.namespaceLabels)) continue;
          for (const key of keys) this.refreshMember(name, set, key);
        }
      }
      set.refs++;
    }
    for (const chain of Object.values(c.chains)) { this.chains.set(chain.name, chain); this.dirty.chains.add(chain.name); }
  }

  /** A policy selects no local pod any more (or was replaced or deleted). */
  private deactivate(c: CompiledPolicy): void {
    for (const chain of Object.values(c.chains)) {
      if (this.chains.get(chain.name) === chain) { this.chains.delete(chain.name); this.dirty.chains.add(chain.name); }
    }
    for (const name of c.sets.keys()) {
      const set = this.sets.get(name)!;
      if (--set.refs) continue;
      this.sets.delete(name);
      if (set.def.namespace) removeFrom(this.setsByNamespace, set.def.namespace, name); else this.clusterSets.delete(name);
      this.dirty.sets.set(name, 'all');
    }
  }
}

function samePod(a: PodEntry, b: PodEntry): boolean {
  if (a.ip !== b.ip || a.local !== b.local || !sameLabels(a.labels, b.labels) || a.ports.size !== b.ports.size) return false;
  for (const [name, els] of a.ports) {
    const other = b.ports.get(name);
    if (!other || other.length !== els.length || els.some((e, i) => e !== other[i])) return false;
  }
  return true;
}

function sameLabels(a: Record<string, string>, b: Record<string, string>): boolean {
  const ka = Object.keys(a);
  return ka.length === Object.keys(b).length && ka.every((k) => a[k] === b[k]);
}

function addTo(m: Map<string, Set<string>>, k: string, v: string): void {
  let s = m.get(k);
  if (!s) { s = new Set(); m.set(k, s); }
  s.add(v);
}

function removeFrom(m: Map<string, Set<string>>, k: string, v: string): void {
  const s = m.get(k);
  if (s) { s.delete(v); if (!s.size) m.delete(k); }
}
