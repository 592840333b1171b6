/**
 * What is in table `ip kube-proxy` now, and the nft transactions that bring
 * it to what the Services ask for. A partial sync (upstream's: only the
 * Services that changed since the last sync) rewrites only the chains whose
 * rules changed and adds only their new map elements, so what it writes
 * follows the change, not the number of Services. It adds and flushes only
 * (statements.ts: nft then reads no cache, so its cost does not grow with
 * the table). What has to go without a replacement waits for `cleanup`, as
 * upstream's proxier does with its stale chains: chains and sets no Service
 * uses any more are flushed at once, and elements are left pointing at those
 * flushed chains (a deleted Service's cluster IP is no longer DNATed, and
 * cluster-ips-check rejects it until the cleanup). The two small
 * no-endpoint maps are rewritten whole instead (`flush map` reads only the
 * list of sets), so a port's first endpoints are not rejected a moment
 * longer. Only an element whose value changes needs a delete in the sync,
 * in a second transaction. A full sync (at start, periodically and after a
 * failed transaction) rewrites every chain and map and deletes what no
 * Service owns any more.
 */
import { table } from './names.js';
import { baseChainRules, baseMaps, baseTableStatements, isSet } from './base-table.js';
import type { ElementRef, PortRules } from './rules.js';
import { addElement, addSet, chainBlock, deleteElement, elementText, elementsBlock } from './statements.js';

/** Per Service (ns/name), the rules of each of its ports (by service port name). */
export type ServiceRules = Map<string, PortRules>;

/** A partial sync's transactions: `script` first, then `followUp` (may be empty), then commit(). */
export interface PartialSync { script: string; followUp: string; commit(): void }

/** Maps that only hold ports without endpoints: few elements, so a removal rewrites them whole rather than read nft's cache. */
const rewrittenMaps = new Set(['no-endpoint-services', 'no-endpoint-nodeports']);
/** Above this many elements a rewritten map's removal waits for the cleanup like the others. */
export const rewriteLimit = 2000;

const elementKey = (e: ElementRef) => `${e.map}\t${e.key}`;
const splitKey = (k: string) => k.split('\t') as [string, string];

/** What one partial sync writes, gathered before it is turned into statements. */
interface Plan {
  sets: Map<string, number>;
  chainWrites: string[];
  added: Map<string, string[]>; // map → element texts
  /** Elements that went without a replacement: left for the cleanup (element key → value in the kernel). */
  removed: Map<string, string | undefined>;
  /** Elements whose value changes: deleted and added again after the fast transaction. */
  readds: [string, string | undefined][];
  /** Stale elements a change added back with the same value: already in the kernel. */
  revived: string[];
  written: Map<string, string>; // chain → body
  gone: { chains: string[]; sets: string[] };
  touched: Map<string, Map<string, string | undefined>>; // copy-on-write element owners
  objects: Map<string, Objects>;
  /** No-endpoint maps flushed and declared again with all their elements. */
  rewritten: string[];
}

interface Objects { chains: Map<string, string>; sets: Map<string, number> }

export class TableState {
  private services = new Map<string, ServiceRules>();
  /** Per Service, its chains (name → body) and sets as last written: the next change diffs against them without joining the old bodies again. */
  private objects = new Map<string, Objects>();
  /** map+key → owner spn → value; an element exists while it has an owner (two ports can share a cluster IP). */
  private elements = new Map<string, Map<string, string | undefined>>();
  private chains = new Map<string, string>();
  private sets = new Set<string>();
  /** Flushed chains and unused sets still in the kernel, deleted by the next follow-up, cleanup or full sync. */
  private staleChains = new Set<string>();
  private staleSets = new Set<string>();
  /** Elements no Service owns that are still in the kernel (map+key → value), deleted by the cleanup, a follow-up or a full sync. */
  private staleElements = new Map<string, string | undefined>();
  private nodePortIPs: string[] = [];

  /** Chains and sets found in the table at start that this state does not know (a previous run's). */
  adopt(chains: string[], sets: string[]): void {
    const base = new Set(baseChainRules.map(([name]) => name));
    for (const c of chains) if (!base.has(c) && !this.chains.has(c)) this.chains.set(c, '');
    for (const s of sets) if (!baseMaps.some(([m]) => m === s)) this.sets.add(s);
  }

  get serviceCount(): number { return this.services.size; }

  /** How many flushed chains and unused sets wait for `cleanup`. */
  get staleCount(): number { return this.staleChains.size + this.staleSets.size + this.staleElements.size; }

  /** The transaction for a full sync, and how to record it once it succeeded. */
  full(all: Map<string, ServiceRules>, nodePortIPs: string[]): { script: string; commit(): void } {
    const next = new TableState();
    const lines = baseTableStatements();
    for (const [m] of baseMaps) lines.push(`flush ${isSet(m) ? 'set' : 'map'} ${table} ${m}`);
    for (const [svc, rules] of all) next.record(svc, rules);
    // Every set is declared (idempotent): without a cache, nft resolves a rule's `@set` from the transaction.
    for (const s of next.sets) lines.push(addSet(s, findTimeout(all, s)));
    // add + flush + the rules as a block: idempotent whatever the table holds (a full sync also
    // repairs a table changed behind our back), and with no `add rule` nft reads no cache.
    for (const [name, body] of next.chains) lines.push(`add chain ${table} ${name}`, ...chainBlock(name, body, true));
    const elements = new Map<string, string[]>();
    for (const [k, owners] of next.elements) {
      const [map, key] = splitKey(k);
      const l = elements.get(map) ?? [];
      l.push(elementText(key, first(owners)));
      elements.set(map, l);
    }
    if (nodePortIPs.length) elements.set('nodeport-ips', [...nodePortIPs]);
    for (const [map, els] of elements) lines.push(elementsBlock(map, els));
    // Only deleting needs nft's read of the table (chains and sets of a previous run no Service owns).
    const staleChains = [...this.chains.keys(), ...this.staleChains].filter((c) => !next.chains.has(c));
    for (const c of staleChains) lines.push(`flush chain ${table} ${c}`);
    for (const c of staleChains) lines.push(`delete chain ${table} ${c}`);
    for (const s of [...this.sets, ...this.staleSets]) if (!next.sets.has(s)) lines.push(`delete set ${table} ${s}`);
    return {
      script: lines.join('\n') + '\n',
      commit: () => {
        Object.assign(this, { services: next.services, objects: new Map(), elements: next.elements, chains: next.chains, sets: next.sets, nodePortIPs });
        this.staleChains.clear();
        this.staleSets.clear();
        this.staleElements.clear(); // the maps were flushed
      },
    };
  }

  /** The transactions for the Services in `changed` (undefined: the Service is gone). */
  partial(changed: Map<string, ServiceRules | undefined>): PartialSync {
    const plan: Plan = { sets: new Map(), chainWrites: [], added: new Map(), removed: new Map(), readds: [], revived: [], written: new Map(), gone: { chains: [], sets: [] }, touched: new Map(), objects: new Map(), rewritten: [] };
    for (const [svc, rules] of changed) {
      const oldObjs = this.objects.get(svc) ?? collect(this.services.get(svc) ?? new Map());
      const newObjs = collect(rules ?? new Map());
      plan.objects.set(svc, newObjs);
      let wrote = false;
      for (const [name, body] of newObjs.chains) {
        if (this.chains.get(name) === body) continue;
        plan.written.set(name, body);
        plan.chainWrites.push(...chainBlock(name, body, this.chains.has(name) || this.staleChains.has(name)));
        wrote = true;
      }
      // nft resolves `@set` in a rule from its cache, which the fast transaction does not read: declare the Service's sets again (idempotent).
      for (const [s, timeout] of newObjs.sets) if (wrote || (!this.sets.has(s) && !this.staleSets.has(s))) plan.sets.set(s, timeout);
      for (const name of oldObjs.chains.keys()) if (!newObjs.chains.has(name)) plan.gone.chains.push(name);
      for (const s of oldObjs.sets.keys()) if (!newObjs.sets.has(s)) plan.gone.sets.push(s);
      this.diffElements(this.services.get(svc) ?? new Map(), rules ?? new Map(), plan);
    }
    this.decideElements(plan);
    const rewrites = this.rewriteMaps(plan);
    const fast = [...[...plan.sets].map(([s, t]) => addSet(s, t)), ...plan.chainWrites, ...rewrites,
      ...[...plan.added].filter(([m]) => !plan.rewritten.includes(m)).map(([m, els]) => elementsBlock(m, els)),
      ...plan.gone.chains.map((c) => `flush chain ${table} ${c}`)];
    // Deleting costs nft's whole cache read: only when a value changes (no later than the change), and then everything stale goes too.
    const staleElements = [...this.staleElements.keys(), ...plan.removed.keys()]
      .filter((k) => !plan.revived.includes(k) && !plan.rewritten.includes(splitKey(k)[0]) && !plan.readds.some(([r]) => r === k));
    const followUp = plan.readds.length
      ? [...plan.readds.map(([k]) => deleteElement(...splitKey(k))), ...plan.readds.map(([k, v]) => addElement(...splitKey(k), v)),
        ...staleElements.map((k) => deleteElement(...splitKey(k))),
        ...[...this.staleChains, ...plan.gone.chains].filter((c) => !plan.written.has(c)).map((c) => `delete chain ${table} ${c}`),
        ...[...this.staleSets, ...plan.gone.sets].filter((s) => !plan.sets.has(s)).map((s) => `delete set ${table} ${s}`)]
      : [];
    return {
      script: fast.length ? fast.join('\n') + '\n' : '',
      followUp: followUp.length ? followUp.join('\n') + '\n' : '',
      commit: () => this.apply(changed, plan, followUp.length > 0),
    };
  }

  /**
   * A no-endpoint map that loses an element is flushed and declared again
   * with what it keeps, in the fast transaction (atomic: no packet sees it
   * empty), while it is small; its stale elements go with it.
   */
  private rewriteMaps(plan: Plan): string[] {
    const out: string[] = [];
    for (const map of rewrittenMaps) {
      const prefix = `${map}\t`;
      const goes = [...plan.removed.keys(), ...plan.readds.map(([k]) => k)].some((k) => k.startsWith(prefix));
      if (!goes) continue;
      // One pass over every element (30,000 at 10,000 Services): a prefix test, no split.
      const keep: string[] = [];
      for (const [k, owners] of this.elements) {
        if (!k.startsWith(prefix) || plan.touched.has(k)) continue;
        keep.push(elementText(k.slice(prefix.length), first(owners)));
      }
      for (const [k, owners] of plan.touched) if (owners.size && k.startsWith(prefix)) keep.push(elementText(k.slice(prefix.length), first(owners)));
      if (keep.length > rewriteLimit) continue;
      plan.rewritten.push(map);
      out.push(`flush map ${table} ${map}`, ...(keep.length ? [elementsBlock(map, keep)] : []));
    }
    // Their value changes are done by the rewrite.
    plan.readds = plan.readds.filter(([k]) => !plan.rewritten.includes(splitKey(k)[0]));
    return out;
  }

  /** The transaction that deletes the stale elements, chains and sets (elements first: they point at the chains), and how to record it. */
  cleanup(): { script: string; commit(): void } {
    const elements = [...this.staleElements.keys()];
    const chains = [...this.staleChains];
    const sets = [...this.staleSets];
    const lines = [...elements.map((k) => deleteElement(...splitKey(k))), ...chains.map((c) => `delete chain ${table} ${c}`), ...sets.map((s) => `delete set ${table} ${s}`)];
    return {
      script: lines.length ? lines.join('\n') + '\n' : '',
      commit: () => {
        for (const k of elements) this.staleElements.delete(k);
        for (const c of chains) this.staleChains.delete(c);
        for (const s of sets) this.staleSets.delete(s);
      },
    };
  }

  /** Records in plan.touched the owners each element of one changed Service has after the change. */
  private diffElements(old: ServiceRules, now: ServiceRules, plan: Plan): void {
    const before = ownersByElement(old);
    const after = ownersByElement(now);
    for (const k of new Set([...before.keys(), ...after.keys()])) {
      let owners = plan.touched.get(k);
      if (!owners) { owners = new Map(this.elements.get(k) ?? []); plan.touched.set(k, owners); }
      for (const spn of before.get(k)?.keys() ?? []) owners.delete(spn);
      for (const [spn, value] of after.get(k) ?? []) owners.set(spn, value);
    }
  }

  /**
   * What each touched element needs, against what the kernel holds (a live
   * element, a stale one left for the cleanup, or none) once every changed
   * Service is counted (two ports can share a key).
   */
  private decideElements(plan: Plan): void {
    for (const [k, owners] of plan.touched) {
      const live = this.elements.get(k);
      const inKernel = !!live?.size || this.staleElements.has(k);
      const kernelValue = live?.size ? first(live) : this.staleElements.get(k);
      if (!owners.size) {
        // A key that went waits for the cleanup.
        if (live?.size) plan.removed.set(k, kernelValue);
        continue;
      }
      const is = first(owners);
      if (!inKernel) {
        const [map, key] = splitKey(k);
        const l = plan.added.get(map) ?? [];
        l.push(elementText(key, is));
        plan.added.set(map, l);
      } else if (kernelValue !== is) {
        plan.readds.push([k, is]); // a changed value can only be written after its delete
      } else if (!live?.size) {
        plan.revived.push(k); // still in the kernel from before the cleanup
      }
    }
  }

  private apply(changed: Map<string, ServiceRules | undefined>, plan: Plan, deleted: boolean): void {
    for (const c of plan.gone.chains) { this.chains.delete(c); this.staleChains.add(c); }
    for (const s of plan.gone.sets) { this.sets.delete(s); this.staleSets.add(s); }
    for (const [name, body] of plan.written) { this.chains.set(name, body); this.staleChains.delete(name); }
    for (const s of plan.sets.keys()) { this.sets.add(s); this.staleSets.delete(s); }
    for (const [k, v] of plan.removed) this.staleElements.set(k, v);
    for (const k of [...plan.revived, ...plan.readds.map(([r]) => r)]) this.staleElements.delete(k);
    for (const k of [...this.staleElements.keys()]) if (plan.rewritten.includes(splitKey(k)[0])) this.staleElements.delete(k);
    if (deleted) { this.staleChains.clear(); this.staleSets.clear(); this.staleElements.clear(); }
    for (const [svc, rules] of changed) {
      if (rules?.size) { this.services.set(svc, rules); this.objects.set(svc, plan.objects.get(svc)!); } else { this.services.delete(svc); this.objects.delete(svc); }
    }
    for (const [k, owners] of plan.touched) { if (owners.size) this.elements.set(k, owners); else this.elements.delete(k); }
  }

  private record(svc: string, rules: ServiceRules): void {
    this.services.set(svc, rules);
    for (const [spn, r] of rules) {
      for (const [name, body] of r.chains) this.chains.set(name, body.join('\n'));
      for (const s of r.sets.keys()) this.sets.add(s);
      for (const e of r.elements) {
        const k = elementKey(e);
        let owners = this.elements.get(k);
        if (!owners) { owners = new Map(); this.elements.set(k, owners); }
        owners.set(spn, e.value);
      }
    }
  }

  nodePortAddresses(): string[] { return this.nodePortIPs; }
}

/** element key → owner spn → value, for the ports of one Service. */
function ownersByElement(rules: ServiceRules): Map<string, Map<string, string | undefined>> {
  const out = new Map<string, Map<string, string | undefined>>();
  for (const [spn, r] of rules) {
    for (const e of r.elements) {
      const k = elementKey(e);
      let m = out.get(k);
      if (!m) { m = new Map(); out.set(k, m); }
      m.set(spn, e.value);
    }
  }
  return out;
}

/** A chain's rules as one string, joined once per rules array (rules.ts hands out the same array for an unchanged endpoint). */
const joined = new WeakMap<string[], string>();
const bodyOf = (rules: string[]) => { let b = joined.get(rules); if (b === undefined) { b = rules.join('\n'); joined.set(rules, b); } return b; };

function collect(rules: ServiceRules): Objects {
  const chains = new Map<string, string>();
  const sets = new Map<string, number>();
  for (const r of rules.values()) {
    for (const [name, body] of r.chains) chains.set(name, bodyOf(body));
    for (const [s, t] of r.sets) sets.set(s, t);
  }
  return { chains, sets };
}

function findTimeout(all: Map<string, ServiceRules>, set: string): number {
  for (const rules of all.values()) for (const r of rules.values()) { const t = r.sets.get(set); if (t !== undefined) return t; }
  return 10800;
}

const first = <V>(m: Map<string, V>): V => m.values().next().value as V;
