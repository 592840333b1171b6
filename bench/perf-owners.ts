/**
 * Where one thread's CPU goes per operation, from Linux perf's on-CPU samples instead of V8's
 * `--cpu-prof`. V8's sampler is driven by wall-clock time: on a loaded machine a thread that was
 * descheduled inside a syscall (the answer's TLS writev, SQLite's fdatasync) is charged for the
 * time it waited, so two profiles taken under load compare badly (etcd5: writev came out 80 µs
 * a create dearer on etcd than on SQLite, which perf did not confirm). perf's cpu-clock samples
 * only the time on a CPU, and sees node:http2's C++ and nghttp2, TLS and the kernel, which V8's
 * profile lumps into "(program)".
 *
 * Each sample goes to its owner: the first frame from the leaf up that is a JavaScript function
 * (named by its file: the work is that file's, natives it called included) or, before any, a known
 * native family (nghttp2 and node::http2, TLS, SQLite, GC, JSON). Printed in µs per operation;
 * with two files, side by side with their difference, largest first.
 *
 *   # the server with JS names for perf: side-by-side's --server-node-args="--perf-basic-prof";
 *   # record it on the clock the benchmark logs its measured window in (process.hrtime):
 *   perf record -k CLOCK_MONOTONIC -e cpu-clock -F 1999 -g -p PID -o A.data
 *   # keep the main thread (tid = pid) inside the window side-by-side logs as
 *   # "server PID: measured creates from-us T0 to-us T1" (seconds here: T0/1e6):
 *   perf script -i A.data --tid PID --time T0s,T1s -F tid,time,ip,sym,dso > A.txt
 *   node dist/bench/perf-owners.js A.txt [B.txt] --ops 8000 [--hz 1999] [--top 45]
 */
import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import { benchArgs } from './lib/args.js';

/** Native families, tried on each native frame below the first JavaScript one. */
const natives: readonly [string, RegExp][] = [
  ['http2 native (nghttp2, node::http2)', /nghttp2_|node::http2::/],
  ['TLS native', /TLSWrap|SSL_|ssl3_|tls1_|aesni|gcm|EVP_|CRYPTO_|ossl_/],
  ['SQLite native', /better_sqlite3|sqlite3/],
  ['GC', /v8::internal::Heap::|Scavenger|MarkCompact|GCTracer|IncrementalMarking/],
  ['JSON native', /JsonStringifier|JsonParser/],
  // V8 compiling JavaScript, mostly TurboFan on its background threads: in a benchmark's fresh
  // processes a fixed amount of work that their per-operation figures carry (sched9's section).
  // Before the HTTP/1 parser's pattern, which V8's own Parser:: would match.
  ['V8 compilers (TurboFan, Maglev, Sparkplug, the JS parser)', /v8::internal::(compiler|maglev|baseline|interpreter)::|v8::internal::(Pre)?Parser::|OptimizedCompileJob/],
  ['HTTP/1 parser', /llhttp|Parser::/],
];

/** The stacks of a `perf script` output, leaf first, one frame a line. */
export function* stacks(text: string): Generator<string[]> {
  let frames: string[] = [];
  for (const line of text.split('\n')) {
    if (line.startsWith('\t') || line.startsWith('        ')) { frames.push(line.trim()); continue; }
    if (frames.length) yield frames;
    frames = [];
  }
  if (frames.length) yield frames;
}

/** The owner of one sample: its innermost JavaScript function's file, or the native family before it. */
export function ownerOf(frames: readonly string[]): string {
  for (const frame of frames) {
    const js = / JS:\S*\s+(.*?)(?::\d+:\d+)? \(/.exec(frame);
    if (js) return `JS ${js[1].replace(/^file:\/\/.*?\/dist\//, '').replace(/^node:internal\//, 'node:')}`;
    for (const [name, re] of natives) if (re.test(frame)) return name;
  }
  const leaf = frames[0] ?? '';
  return `other: ${leaf.replace(/^\S+\s+/, '').replace(/\s+\([^)]*\)$/, '').slice(0, 60)}`;
}

export function owners(text: string): Map<string, number> {
  const counts = new Map<string, number>();
  for (const frames of stacks(text)) {
    const owner = ownerOf(frames);
    counts.set(owner, (counts.get(owner) ?? 0) + 1);
  }
  return counts;
}

function main(): void {
  const { values, positionals } = benchArgs('A thread\'s on-CPU samples (perf script) by owner, in µs per operation; two files side by side.', {
    allowPositionals: true,
    positionals: 'A.txt [B.txt]',
    options: {
      ops: { type: 'string', help: 'operations in the recorded window (required)' },
      hz: { type: 'string', default: '1999', help: 'perf record -F' },
      top: { type: 'string', default: '45', help: 'rows shown' },
    },
  });
  if (!values.ops || positionals.length === 0 || positionals.length > 2) {
    console.error('need one or two perf script files and --ops');
    process.exit(2);
  }
  const perOp = 1e6 / Number(values.hz) / Number(values.ops);
  const runs = positionals.map((file) => owners(readFileSync(file, 'utf8')));
  const total = (m: Map<string, number>) => [...m.values()].reduce((a, b) => a + b, 0) * perOp;
  const at = (m: Map<string, number> | undefined, k: string) => (m?.get(k) ?? 0) * perOp;
  const [a, b] = runs;
  const keys = [...new Set(runs.flatMap((m) => [...m.keys()]))];
  keys.sort(b ? (x, y) => Math.abs(at(b, y) - at(a, y)) - Math.abs(at(b, x) - at(a, x)) : (x, y) => at(a, y) - at(a, x));
  const cell = (n: number) => n.toFixed(1).padStart(8);
  console.log(`${'owner'.padEnd(60)}${'A'.padStart(8)}${b ? `${'B'.padStart(8)}${'B-A'.padStart(8)}` : ''}  (µs per operation)`);
  console.log(`${'all samples'.padEnd(60)}${cell(total(a))}${b ? cell(total(b)) + cell(total(b) - total(a)) : ''}`);
  for (const k of keys.slice(0, Number(values.top))) {
    console.log(`${k.slice(0, 60).padEnd(60)}${cell(at(a, k))}${b ? cell(at(b, k)) + cell(at(b, k) - at(a, k)) : ''}`);
  }
}

if (process.argv[1] && import.meta.url.endsWith(basename(process.argv[1]))) main();
