/**
 * Summarizes a server's `--trace-gc` output per isolate: how many scavenges and full
 * (mark-compact) collections, their pauses, the incremental marking steps, the largest heap V8
 * held committed, and each full collection's heap used (committed) before and after. Written for
 * issue 20's memory work: a server's peak RSS is mostly the committed heaps, and the full
 * collections' "before" sizes show how much garbage V8 let the old generation keep (its heap
 * growing factor, src/cli/heap-headroom.ts). Pauses are wall time on the isolate's thread: on a
 * loaded host they grow with the load, so compare counts first.
 *
 *   K8TS_BENCH_SERVER_NODE_ARGS=--trace-gc K8TS_BENCH_SERVER_STDOUT=FILE node dist/bench/scale.js ...
 *   node dist/bench/gc-trace-summary.js FILE [--rows 12]
 */
import { readFileSync } from 'node:fs';
import { benchArgs } from './lib/args.js';

interface FullCollection { atSec: number; usedBefore: number; committedBefore: number; usedAfter: number; committedAfter: number; pauseMs: number }

interface IsolateGcs {
  scavenges: number; scavengePauseMs: number;
  fulls: FullCollection[]; fullPauseMs: number; incrementalMs: number;
  maxCommittedMB: number;
}

// `[pid:0xISOLATE]  1234 ms: Mark-Compact 405.1 (850.2) -> 380.0 (840.1) MB, [pooled: 0 MB, ]12.3 / 0.1 ms  (+ 50.2 ms in 120 steps ...`
const line = /\[\d+:(0x[0-9a-f]+)\]\s+(\d+) ms: (Scavenge|Mark-Compact(?: \(reduce\))?|Minor Mark-Compact)\s*(?:\(interleaved\))?\s*([\d.]+) \(([\d.]+)\) -> ([\d.]+) \(([\d.]+)\) MB, (?:pooled: [\d.]+ MB, )?([\d.]+) \/ [\d.]+ ms(?:\s+\(\+ ([\d.]+) ms in)?/;

/** The collections of each isolate in `text`, by isolate address, in the order of their first line. */
function parseGcTrace(text: string): Map<string, IsolateGcs> {
  const out = new Map<string, IsolateGcs>();
  for (const l of text.split('\n')) {
    const m = line.exec(l);
    if (!m) continue;
    let iso = out.get(m[1]!);
    if (!iso) out.set(m[1]!, iso = { scavenges: 0, scavengePauseMs: 0, fulls: [], fullPauseMs: 0, incrementalMs: 0, maxCommittedMB: 0 });
    const [usedBefore, committedBefore, usedAfter, committedAfter, pauseMs] = [m[4], m[5], m[6], m[7], m[8]].map(Number) as [number, number, number, number, number];
    iso.maxCommittedMB = Math.max(iso.maxCommittedMB, committedBefore, committedAfter);
    if (m[3] === 'Scavenge') { iso.scavenges++; iso.scavengePauseMs += pauseMs; continue; }
    iso.fulls.push({ atSec: Number(m[2]) / 1000, usedBefore, committedBefore, usedAfter, committedAfter, pauseMs });
    iso.fullPauseMs += pauseMs;
    iso.incrementalMs += Number(m[9] ?? 0);
  }
  return out;
}

function main(): void {
  const { values, positionals } = benchArgs('Summarizes a --trace-gc log FILE per isolate: collections, pauses, committed heap.', {
    allowPositionals: true, positionals: 'FILE', options: { rows: { type: 'string', default: '12', help: 'full collections listed per isolate (evenly spaced, the last included)' } },
  });
  const rows = Math.max(1, Number(values.rows));
  const f1 = (n: number) => n.toFixed(1);
  for (const [addr, iso] of parseGcTrace(readFileSync(positionals[0]!, 'utf8'))) {
    console.log(`isolate ${addr}: ${iso.scavenges} scavenges (${f1(iso.scavengePauseMs / 1000)} s of pauses), ${iso.fulls.length} full collections `
      + `(${f1(iso.fullPauseMs / 1000)} s of pauses, ${f1(iso.incrementalMs / 1000)} s of incremental steps); largest committed heap ${iso.maxCommittedMB.toFixed(0)} MB`);
    const step = Math.max(1, Math.floor(iso.fulls.length / rows));
    const shown = iso.fulls.filter((_, i) => i % step === 0 || i === iso.fulls.length - 1);
    for (const c of shown) {
      console.log(`  ${c.atSec.toFixed(0).padStart(6)} s: used (committed) ${c.usedBefore.toFixed(0)} (${c.committedBefore.toFixed(0)}) -> ${c.usedAfter.toFixed(0)} (${c.committedAfter.toFixed(0)}) MB, pause ${c.pauseMs.toFixed(0)} ms`);
    }
  }
}

main();
