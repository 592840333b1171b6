/**
 * What is in table `ip kube-proxy` now, and the nft transaction that brings
 * it to what the Services ask for. A partial sync (upstream's: only the
 * Services that changed since the last sync) rewrites only the chains whose
 * rules changed and adds or deletes only their map elements, so its cost
 * follows the change, not the number of Services. A full sync (at start,
 * periodically and after a failed transaction) rewrites every chain and map
 * and deletes what no Service owns any more.
 */
import { table } from './names.js';
import { baseChainRules, baseMaps, baseTableStatements, isSet } from './base-table.js';
import type { ElementRef, PortRules } from './rules.js';

/** Per Service (ns/name), the rules of each of its ports (by service port name). */
export type ServiceRules = Map<string, PortRules>;

const elementKey = (e: ElementRef) => `${e.map}\t${e.key}`;

export class TableState {
  private services = new Map<string, ServiceRules>();
  /** map+key → owner spn → value; an element exists while it has an owner (two ports can share a cluster IP). */
  private elements = new Map<string, Map<string, string | undefined>>();
  private chains = new Map<string, string>();
  private sets = new Set<string>();
  private nodePortIPs: string[] = [];

  /** Chains and sets found in the table at start that this state does not know (a previous run's). */
  adopt(chains: string[], sets: string[]): void {
    const base = new Set(baseChainRules.map(([name]) => name));
    for (const c of chains) if (!base.has(c) && !this.chains.has(c)) this.chains.set(c, '');
    for (const s of sets) if (!baseMaps.some(([m]) => m === s)) this.sets.add(s);
  }

  get serviceCount(): number { return this.services.size; }

  /** The transaction for a full sync, and how to record it once it succeeded. */
  full(all: Map<string, ServiceRules>, nodePortIPs: string[]): { script: string; commit(): void } {
    const next = new TableState();
    const lines = baseTableStatements();
    for (const [m] of baseMaps) lines.push(`flush ${isSet(m) ? 'set' : 'map'} ${table} ${m}`);
    for (const [svc, rules] of all) next.record(svc, rules);
    for (const s of next.sets) if (!this.sets.has(s)) lines.push(...addSet(s, findTimeout(all, s)));
    // add + flush: idempotent whatever the table holds (a full sync also repairs a table changed behind our back).
    for (const [name, body] of next.chains) lines.push(`add chain ${table} ${name}`, ...writeChain(name, body, true));
    for (const [k, owners] of next.elements) lines.push(addElement(k, first(owners)));
    for (const ip of nodePortIPs) lines.push(`add element ${table} nodeport-ips { ${ip} }`);
    const staleChains = [...this.chains.keys()].filter((c) => !next.chains.has(c));
    for (const c of staleChains) lines.push(`flush chain ${table} ${c}`);
    for (const c of staleChains) lines.push(`delete chain ${table} ${c}`);
    for (const s of this.sets) if (!next.sets.has(s)) lines.push(`delete set ${table} ${s}`);
    return {
      script: lines.join('\n') + '\n',
      commit: () => { Object.assign(this, { services: next.services, elements: next.elements, chains: next.chains, sets: next.sets, nodePortIPs }); },
    };
  }

  /** The transaction for the Services in `changed` (undefined: the Service is gone). */
  partial(changed: Map<string, ServiceRules | undefined>): { script: string; commit(): void } | undefined {
    const sets: string[] = [];
    const chainWrites: string[] = [];
    const elementWrites: string[] = [];
    const removals: { chains: string[]; sets: string[] } = { chains: [], sets: [] };
    const next = new Map<string, string>(); // chains after this change: name → body
    const touched = new Map<string, Map<string, string | undefined>>(); // copy-on-write element owners
    for (const [svc, rules] of changed) {
      const old = this.services.get(svc) ?? new Map();
      const now = rules ?? new Map();
      const oldObjs = collect(old);
      const newObjs = collect(now);
      for (const s of newObjs.sets.keys()) if (!oldObjs.sets.has(s) && !this.sets.has(s)) sets.push(...addSet(s, newObjs.sets.get(s)!));
      for (const [name, body] of newObjs.chains) {
        if (this.chains.get(name) === body) continue;
        next.set(name, body);
        chainWrites.push(...writeChain(name, body, this.chains.has(name)));
      }
      for (const name of oldObjs.chains.keys()) if (!newObjs.chains.has(name)) removals.chains.push(name);
      for (const s of oldObjs.sets.keys()) if (!newObjs.sets.has(s)) removals.sets.push(s);
      this.diffElements(old, now, touched, elementWrites);
    }
    if (!sets.length && !chainWrites.length && !elementWrites.length && !removals.chains.length && !removals.sets.length) {
      return { script: '', commit: () => this.apply(changed, next, touched, removals) };
    }
    const lines = [...sets, ...chainWrites, ...elementWrites,
      ...removals.chains.map((c) => `flush chain ${table} ${c}`),
      ...removals.chains.map((c) => `delete chain ${table} ${c}`),
      ...removals.sets.map((s) => `delete set ${table} ${s}`)];
    return { script: lines.join('\n') + '\n', commit: () => this.apply(changed, next, touched, removals) };
  }

  private diffElements(old: ServiceRules, now: ServiceRules, touched: Map<string, Map<string, string | undefined>>, out: string[]): void {
    const before = ownersByElement(old);
    const after = ownersByElement(now);
    for (const k of new Set([...before.keys(), ...after.keys()])) {
      let owners = touched.get(k);
      if (!owners) { owners = new Map(this.elements.get(k) ?? []); touched.set(k, owners); }
      const wasPresent = owners.size > 0;
      const was = wasPresent ? first(owners) : undefined;
      for (const spn of before.get(k)?.keys() ?? []) owners.delete(spn);
      for (const [spn, value] of after.get(k) ?? []) owners.set(spn, value);
      const isPresent = owners.size > 0;
      const is = isPresent ? first(owners) : undefined;
      if (wasPresent === isPresent && was === is) continue;
      if (wasPresent) out.push(deleteElement(k));
      if (isPresent) out.push(addElement(k, is));
    }
  }

  private apply(changed: Map<string, ServiceRules | undefined>, chains: Map<string, string>,
    touched: Map<string, Map<string, string | undefined>>, removals: { chains: string[]; sets: string[] }): void {
    for (const c of removals.chains) this.chains.delete(c);
    for (const s of removals.sets) this.sets.delete(s);
    for (const [name, body] of chains) this.chains.set(name, body);
    for (const [svc, rules] of changed) {
      if (rules?.size) this.services.set(svc, rules); else this.services.delete(svc);
      for (const r of rules?.values() ?? []) for (const s of r.sets.keys()) this.sets.add(s);
    }
    for (const [k, owners] of touched) { if (owners.size) this.elements.set(k, owners); else this.elements.delete(k); }
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

function collect(rules: ServiceRules): { chains: Map<string, string>; sets: Map<string, number> } {
  const chains = new Map<string, string>();
  const sets = new Map<string, number>();
  for (const r of rules.values()) {
    for (const [name, body] of r.chains) chains.set(name, body.join('\n'));
    for (const [s, t] of r.sets) sets.set(s, t);
  }
  return { chains, sets };
}

function findTimeout(all: Map<string, ServiceRules>, set: string): number {
  for (const rules of all.values()) for (const r of rules.values()) { const t = r.sets.get(set); if (t !== undefined) return t; }
  return 10800;
}

const first = <V>(m: Map<string, V>): V => m.values().next().value as V;

/** A chain's statements: a new chain is added, a known one flushed (its old rules go in the same transaction). */
const writeChain = (name: string, body: string, exists: boolean) =>
  [exists ? `flush chain ${table} ${name}` : `add chain ${table} ${name}`, ...bodyLines(name, body)];

const bodyLines = (name: string, body: string) => (body ? body.split('\n').map((r) => `add rule ${table} ${name} ${r}`) : []);

/** Affinity sets as upstream's: addresses that expire `timeout` seconds after their last packet. */
const addSet = (name: string, timeout: number) => [`add set ${table} ${name} { type ipv4_addr ; flags dynamic,timeout ; timeout ${timeout}s ; }`];

function addElement(k: string, value: string | undefined): string {
  const [map, key] = k.split('\t');
  return `add element ${table} ${map} { ${key}${value ? ` : ${value}` : ''} }`;
}

function deleteElement(k: string): string {
  const [map, key] = k.split('\t');
  return `delete element ${table} ${map} { ${key} }`;
}
