/**
 * Summarizes a V8 heap snapshot too large for the browser's DevTools (the serving isolate at
 * 5,000 nodes is a GiB of JSON): self size by constructor, by owner (who holds it), and the
 * strings that repeat most. Written for issue 20's memory work (bench/memory.ts; the server
 * writes snapshots on SIGUSR2 when K8TS_HEAP_SNAPSHOT_DIR is set, src/cli/heap-report.ts).
 *
 * "Owner": a breadth-first walk from the snapshot's root (weak edges skipped, as DevTools'
 * distances) gives each object one retainer, the one nearest the root; an object is counted
 * under the nearest retainer above it that is an instance of a named class (not Object, Array,
 * Map, Set, a closure or V8's internals), with the property path from that instance, e.g.
 * `WatchCache.objects` or `EventRing.slots`. It is not the dominator tree's retained size, but
 * it names where the bytes hang without DevTools.
 *
 * --depth: how many property steps below the owner name a group (2: `WatchCache.objects.table`).
 *
 *   node dist/bench/heap-summary.js FILE.heapsnapshot [--top 30] [--depth 2]
 */
import { readFileSync } from 'node:fs';
import { benchArgs } from './lib/args.js';

interface Meta { node_fields: string[]; node_types: [string[]]; edge_fields: string[]; edge_types: [string[]] }

/** The unsigned integers of the JSON array starting at `from` (just past its '['), and the index past its ']'. */
function readInts(buf: Buffer, from: number): { values: Float64Array; end: number } {
  let values = new Float64Array(1 << 20);
  let n = 0;
  let cur = 0;
  let inNum = false;
  let i = from;
  for (; i < buf.length; i++) {
    const c = buf[i]!;
    if (c >= 48 && c <= 57) { cur = cur * 10 + (c - 48); inNum = true; continue; }
    if (inNum) {
      if (n === values.length) { const next = new Float64Array(values.length * 2); next.set(values); values = next; }
      values[n++] = cur; cur = 0; inNum = false;
    }
    if (c === 93) break; // ']'
  }
  return { values: values.subarray(0, n), end: i + 1 };
}

/** The strings of the JSON array starting at `from`. */
function readStrings(buf: Buffer, from: number): string[] {
  const out: string[] = [];
  let i = from;
  for (;;) {
    while (i < buf.length && buf[i] !== 34 && buf[i] !== 93) i++;
    if (i >= buf.length || buf[i] === 93) return out;
    const start = i;
    let escaped = false;
    for (i++; i < buf.length; i++) {
      const c = buf[i]!;
      if (c === 92) { escaped = true; i++; continue; }
      if (c === 34) break;
    }
    out.push(escaped ? JSON.parse(buf.toString('utf8', start, i + 1)) as string : buf.toString('utf8', start + 1, i));
    i++;
  }
}

function section(buf: Buffer, name: string, from = 0): number {
  const at = buf.indexOf(`"${name}":[`, from);
  if (at < 0) throw new Error(`no ${name} in the snapshot`);
  return at + name.length + 4;
}

/** Names V8 and the language give objects that say nothing about who holds them. */
const generic = new Set(['Object', 'Array', 'Map', 'Set', 'WeakMap', 'system / Context', 'Function', 'Promise', 'Generator']);

function isOwner(type: string, name: string): boolean {
  return type === 'object' && !generic.has(name) && !name.startsWith('system /') && !name.startsWith('(') && /^[A-Z]/.test(name);
}

function main(): void {
  const { values, positionals } = benchArgs('Summarizes a V8 heap snapshot FILE: self size by constructor, by owner, repeated strings.', { allowPositionals: true, options: { top: { type: 'string', default: '30' }, depth: { type: 'string', default: '2' } } });
  const top = Number(values.top);
  const depth = Number(values.depth) + 1;
  const buf = readFileSync(positionals[0]!);
  const nodesAt = section(buf, 'nodes');
  const meta = (JSON.parse(buf.toString('utf8', 0, buf.lastIndexOf(',', nodesAt)) + '}') as { snapshot: { meta: Meta } }).snapshot.meta;
  const { values: nodes, end } = readInts(buf, nodesAt);
  const { values: edges, end: edgesEnd } = readInts(buf, section(buf, 'edges', end));
  const strings = readStrings(buf, section(buf, 'strings', edgesEnd));
  const nf = meta.node_fields.length;
  const ef = meta.edge_fields.length;
  const [nType, nName, nSize, nEdges] = ['type', 'name', 'self_size', 'edge_count'].map((f) => meta.node_fields.indexOf(f));
  const [eType, eName, eTo] = ['type', 'name_or_index', 'to_node'].map((f) => meta.edge_fields.indexOf(f));
  const nodeTypes = meta.node_types[0];
  const edgeTypes = meta.edge_types[0];
  const count = nodes.length / nf;
  const firstEdge = new Float64Array(count + 1);
  for (let i = 0; i < count; i++) firstEdge[i + 1] = firstEdge[i]! + nodes[i * nf + nEdges!]! * ef;

  const typeOf = (i: number) => nodeTypes[nodes[i * nf + nType!]!]!;
  const nameOf = (i: number) => strings[nodes[i * nf + nName!]!]!;
  const sizeOf = (i: number) => nodes[i * nf + nSize!]!;
  const edgeName = (e: number) => {
    const t = edgeTypes[edges[e + eType!]!];
    const v = edges[e + eName!]!;
    // Indices (array elements, a Map's or a FixedArray's slots) are one group: `[]`.
    const name = t === 'element' || t === 'hidden' ? '[]' : String(strings[v]);
    return /^\d+$/.test(name) ? '[]' : name;
  };

  // Self size by constructor (objects and natives by name, the rest by V8 type).
  let total = 0;
  const byCtor = new Map<string, { n: number; bytes: number }>();
  for (let i = 0; i < count; i++) {
    const t = typeOf(i);
    const key = t === 'object' || t === 'native' ? nameOf(i) : `(${t})`;
    const s = sizeOf(i);
    total += s;
    const agg = byCtor.get(key) ?? { n: 0, bytes: 0 };
    agg.n++; agg.bytes += s;
    byCtor.set(key, agg);
  }

  // Owners: breadth-first from the root, each object's owner key from its first retainer's.
  const owner = new Int32Array(count).fill(-1);
  const ownerKeys: string[] = ['(root)'];
  const keyIndex = new Map<string, number>([['(root)', 0]]);
  const keyOf = (k: string) => { let x = keyIndex.get(k); if (x === undefined) { x = ownerKeys.length; ownerKeys.push(k); keyIndex.set(k, x); } return x; };
  /** Property path below the owner so far (`depth` steps at most), per object. */
  const path = new Array<string | undefined>(count);
  const queue = new Int32Array(count);
  let head = 0;
  let tail = 0;
  owner[0] = 0; queue[tail++] = 0;
  while (head < tail) {
    const i = queue[head++]!;
    const ownsChildren = isOwner(typeOf(i), nameOf(i));
    for (let e = firstEdge[i]!; e < firstEdge[i + 1]!; e += ef) {
      if (edgeTypes[edges[e + eType!]!] === 'weak') continue;
      const to = edges[e + eTo!]! / nf;
      if (owner[to] !== -1) continue;
      if (ownsChildren) {
        path[to] = `${nameOf(i)}.${edgeName(e)}`;
      } else {
        const p = path[i];
        path[to] = p === undefined ? undefined : p.split('.').length < depth ? `${p}.${edgeName(e)}` : p;
      }
      owner[to] = keyOf(path[to] ?? '(no named owner)');
      queue[tail++] = to;
    }
  }
  const byOwner = new Map<number, { n: number; bytes: number }>();
  let unreachable = 0;
  for (let i = 0; i < count; i++) {
    if (owner[i] === -1) { unreachable += sizeOf(i); continue; }
    const agg = byOwner.get(owner[i]!) ?? { n: 0, bytes: 0 };
    agg.n++; agg.bytes += sizeOf(i);
    byOwner.set(owner[i]!, agg);
  }

  // Strings by content: the ones whose copies cost the most.
  const byText = new Map<string, { n: number; bytes: number }>();
  for (let i = 0; i < count; i++) {
    const t = typeOf(i);
    if (t !== 'string' && t !== 'concatenated string' && t !== 'sliced string') continue;
    const key = nameOf(i).slice(0, 60);
    const agg = byText.get(key) ?? { n: 0, bytes: 0 };
    agg.n++; agg.bytes += sizeOf(i);
    byText.set(key, agg);
  }

  const mb = (b: number) => (b / 2 ** 20).toFixed(1);
  const print = (title: string, rows: [string, { n: number; bytes: number }][]) => {
    console.log(`\n${title}\n  MiB      count  name`);
    for (const [k, v] of rows.sort((a, b) => b[1].bytes - a[1].bytes).slice(0, top)) {
      console.log(`${mb(v.bytes).padStart(7)} ${String(v.n).padStart(10)}  ${k}`);
    }
  };
  console.log(`${positionals[0]}: ${count} objects, ${mb(total)} MiB self size (${mb(unreachable)} MiB unreachable from the root)`);
  print('By constructor (self size)', [...byCtor]);
  print('By owner (nearest named-class retainer on the shortest path from the root, and the path below it)', [...byOwner].map(([k, v]) => [ownerKeys[k]!, v]));
  // The same, summed over every path that starts with each prefix (a tree read in one list).
  const byPrefix = new Map<string, { n: number; bytes: number }>();
  for (const [k, v] of byOwner) {
    const steps = ownerKeys[k]!.split('.');
    for (let d = 2; d <= steps.length; d++) {
      const prefix = steps.slice(0, d).join('.');
      const agg = byPrefix.get(prefix) ?? { n: 0, bytes: 0 };
      agg.n += v.n; agg.bytes += v.bytes;
      byPrefix.set(prefix, agg);
    }
  }
  print('By owner and every prefix of the path below it (cumulative)', [...byPrefix]);
  print('Strings by content (first 60 characters)', [...byText].map(([k, v]) => [JSON.stringify(k), v]));
}

main();
