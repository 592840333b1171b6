/**
 * What table `inet k8ts-netpol` holds now, and the nft transaction that
 * brings it to what the model asks for. kube-proxy's partial sync
 * (src/proxy/transaction.ts) is the pattern: only what changed is written,
 * chains as blocks and elements by declaring their set or map again with
 * them, forms for which nft 1.0.6 reads no cache (so their cost does not
 * grow with the table; docs/design-notes.md). Unlike kube-proxy, nothing
 * may wait for a later cleanup: an address that leaves a peer set, or a
 * pod whose isolation changes, must stop matching at once, so removals
 * (`delete element`, `delete chain`, `delete set`) go in the same
 * transaction and pay nft's read of the table then. Everything is one
 * transaction, so the kernel switches from the old rules to the new ones
 * at once: a map element never points at a chain that is not yet written.
 * A full sync (at start, periodically, after a failed transaction)
 * replaces the whole table in one transaction (ruleset.ts).
 */
import type { PolicyModel, Dirty } from './model.js';
import { renderTable } from './ruleset.js';
import { egressMap, ingressMap, table, type Direction } from './names.js';
import { directions } from './compile.js';

export interface Transaction { script: string; commit(): void }

const mapName: Record<Direction, string> = { ingress: ingressMap, egress: egressMap };
const setDecl = (name: string, type: string, elements: string[]) =>
  `add set ${table} ${name} { type ${type} ;${elements.length ? ` elements = { ${elements.join(', ')} } ;` : ''} }`;
const chainDecl = (name: string, body: string) => `add chain ${table} ${name} {${body} }`;

export class ProgrammedTable {
  /** Policy and isolation chains: name → body. */
  private chains = new Map<string, string>();
  private sets = new Map<string, Set<string>>();
  private maps: Record<Direction, Map<string, string>> = { ingress: new Map(), egress: new Map() };

  /** Replaces the table with everything the model holds (call model.resolve() first). */
  full(model: PolicyModel): Transaction {
    const script = renderTable(model);
    return {
      script,
      commit: () => {
        this.chains = new Map([...[...model.chains].map(([n, c]) => [n, c.body] as const), ...[...model.groups].map(([n, g]) => [n, g.body] as const)]);
        this.sets = new Map([...model.sets].map(([n, s]) => [n, new Set(s.elements.keys())]));
        this.maps = { ingress: new Map(model.maps.ingress), egress: new Map(model.maps.egress) };
      },
    };
  }

  /** The one transaction for what changed (the model's dirty record, after model.resolve()); '' when the kernel already holds it. */
  partial(model: PolicyModel, dirty: Dirty): Transaction {
    const declare: string[] = [];
    const declared = new Set<string>();
    const removeElements: string[] = [];
    const writeChains: string[] = [];
    const mapWrites: string[] = [];
    const goneChains: string[] = [];
    const goneSets: string[] = [];
    const setChanges: [string, string[], string[]][] = []; // name, added, removed
    const mapChanges: [Direction, string, string | undefined][] = [];
    for (const [name, touched] of dirty.sets) {
      const want = model.sets.get(name);
      const have = this.sets.get(name);
      if (!want) { if (have) goneSets.push(name); continue; }
      const candidates = touched === 'all' ? new Set([...want.elements.keys(), ...(have ?? [])]) : touched;
      const added: string[] = [];
      const removed: string[] = [];
      for (const e of candidates) {
        const w = want.elements.has(e);
        if (w && !have?.has(e)) added.push(e); else if (!w && have?.has(e)) removed.push(e);
      }
      if (!have || added.length) { declare.push(setDecl(name, want.def.type, added.sort())); declared.add(name); }
      if (removed.length) removeElements.push(`delete element ${table} ${name} { ${removed.join(', ')} }`);
      if (!have || added.length || removed.length) setChanges.push([name, added, removed]);
    }
    const written = new Map<string, string>();
    for (const name of dirty.chains) {
      const want = model.chains.get(name);
      const have = this.chains.get(name);
      if (!want) { if (have !== undefined) goneChains.push(name); continue; }
      if (want.body === have) continue;
      // nft resolves a rule's `@set` from its cache, which this transaction may not read: the sets it names are declared again (idempotent).
      for (const s of want.sets) if (!declared.has(s)) { declare.push(setDecl(s, model.sets.get(s)!.def.type, [])); declared.add(s); }
      if (have !== undefined) writeChains.push(`flush chain ${table} ${name}`);
      writeChains.push(chainDecl(name, want.body));
      written.set(name, want.body);
    }
    for (const name of dirty.groups) {
      const want = model.groups.get(name);
      const have = this.chains.has(name);
      if (want && !have) { writeChains.push(chainDecl(name, want.body)); written.set(name, want.body); } else if (!want && have) goneChains.push(name);
    }
    for (const ip of dirty.addresses) {
      for (const dir of directions) {
        const want = model.maps[dir].get(ip);
        const have = this.maps[dir].get(ip);
        if (want === have) continue;
        // A changed verdict cannot be overwritten: the kernel refuses an element whose key exists with other data.
        if (have) mapWrites.push(`delete element ${table} ${mapName[dir]} { ${ip} }`);
        if (want) mapWrites.push(`add map ${table} ${mapName[dir]} { type ipv4_addr : verdict ; elements = { ${ip} : jump ${want} } ; }`);
        mapChanges.push([dir, ip, want]);
      }
    }
    // Order: sets and chains exist before a rule or element names them; what goes is emptied before it is deleted.
    const lines = [...declare, ...removeElements, ...writeChains, ...mapWrites,
      ...goneChains.map((c) => `flush chain ${table} ${c}`), ...goneChains.map((c) => `delete chain ${table} ${c}`),
      ...goneSets.map((s) => `delete set ${table} ${s}`)];
    return {
      script: lines.length ? lines.join('\n') + '\n' : '',
      commit: () => {
        for (const [name, added, removed] of setChanges) {
          let s = this.sets.get(name);
          if (!s) { s = new Set(); this.sets.set(name, s); }
          for (const e of added) s.add(e);
          for (const e of removed) s.delete(e);
        }
        for (const s of goneSets) this.sets.delete(s);
        for (const [name, body] of written) this.chains.set(name, body);
        for (const c of goneChains) this.chains.delete(c);
        for (const [dir, ip, want] of mapChanges) if (want) this.maps[dir].set(ip, want); else this.maps[dir].delete(ip);
      },
    };
  }
}
