/**
 * Where a server's CPU goes, by stage of a request: reads `perf script -F tid,ip,sym` of a
 * `perf record -g -p PID` of a k8ts server run with `--perf-basic-prof` (so V8's JIT frames
 * carry their function, file and line), and puts each sample in one stage: the main thread's
 * by the leaf-most frame that a stage's rule matches (a sample in JSON.stringify called from the
 * store's encode is the store's; one in the scavenger is GC wherever it started), the other
 * threads' by what they are (V8's GC helpers, its compiler, libuv's pool running the WAL's
 * fdatasync). `--per-op-us` (the run's server CPU per operation, from side-by-side.ts) turns the
 * shares into µs per operation.
 *
 *   perf record -F 1999 -g -p PID -o FILE -- sleep 4
 *   perf script -i FILE -F tid,ip,sym > FILE.txt
 *   node dist/bench/perf-stages.js FILE.txt --main-tid PID [--per-op-us 330] [--stage NAME]
 *
 * `--stage NAME` lists the frames that put samples in that stage (the one a rule matched), most first.
 * perf's samples are CPU time (unlike V8's --cpu-prof, which samples wall time and charges a
 * preempted thread's waits to the frame it was in: bench/RESULTS.md, `write-cpu`). A caveat:
 * --perf-basic-prof's map is not rewritten when V8 moves code, so a frame is now and then misnamed
 * (in a DaemonSet rollout's profile, ds14 found `validateContainersOnlyForPod` charged inside managed
 * fields). Every frame is named right with V8's jitdump instead: run the server with `--perf-prof`
 * (it writes jit-PID.dump into its working directory), record with `perf record -k mono ...`, then
 * `perf inject --jit -i FILE -o FILE.j` and `perf script -i FILE.j ...` as above.
 */
import { readFileSync } from 'node:fs';
import { benchArgs } from './lib/args.js';

/** Main-thread stages, tried in this order on each frame from the leaf up; the first frame that matches one decides. */
const mainRules: ReadonlyArray<readonly [string, RegExp]> = [
  ['GC (on the main thread)', /v8::internal::(Heap::|Scaveng|MarkCompact|MinorGC|IncrementalMarking|GCTracer|ConcurrentMarking)|MinorGCJob/],
  ['V8 compiling, deoptimizing', /v8::internal::(compiler::|Compiler::|Deoptimizer|Runtime_CompileLazy|Baseline)/],
  ['TLS write and socket send', /SSL_write|TLSWrap::(DoWrite|EncOut|ClearIn|InvokeQueued)|do_writev|sock_write_iter|tcp_sendmsg|__x64_sys_writev|writevGeneric|Socket\._writev|Socket\._writeGeneric|StreamBase::Writev|aes_gcm|EVP_(Encrypt|Cipher)/],
  ['response finish (node http, write callbacks)', /OnStreamAfterWrite|WriteWrap::OnDone|onWriteComplete|afterWrite|onwrite node|onFinish node|resOnFinish|_http_outgoing|ServerResponse|OutgoingMessage/],
  ['HTTP parse (llhttp, node http)', /llhttp|Parser::|parserOn|_http_incoming|_http_common|_http_server|IncomingMessage/],
  ['TLS read and socket receive', /SSL_read|TLSWrap::(OnStreamRead|ClearOut)|tcp_recvmsg|sock_read_iter|OnUvRead|ssl3_read|EVP_Decrypt|__x64_sys_read\b/],
  ['authentication, authorization', /apiserver\/(auth|authz)\//],
  ['flow control, loop quantum', /apiserver\/flowcontrol\/|util\/loop-quantum/],
  ['admission', /apiserver\/admission\//],
  ['managed fields', /api\/managedfields\//],
  ['defaulting', /api\/defaults\//],
  ['validation', /api\/validation\/|api\/field-errors|api\/names\.js|api\/qos/],
  ['body read, decode, field checks', /apiserver\/body\.js|heavy\/object-body|apiserver\/field-checks|api\/schema\/|JsonParse/],
  ['watch cache insert, fan-out', /sqlite\/watch-hub|registry\/watch-cache\/|util\/shared-trees|util\/intern/],
  ['storage: SQLite transaction, group commit', /storage\/sqlite\/|sqlite3|pager|walWrite|Btree|Vdbe|better_sqlite|better-sqlite3|Statement::|pwrite|instrumented-backend/],
  ['store: prepare, omitempty, encode (JSON.stringify)', /registry\/store\.js|api\/protobuf\/omitempty|api\/go-zero-values|registry\/stored-json|JsonStringif|registry\/strategies\//],
  ['response write (respond.js)', /apiserver\/respond\.js|response-compression/],
  ['routing, handler, request context, metrics', /apiserver\/handlers\/|apiserver\/server\.js|request-info|negotiate|request-context|cli\/control-plane|registry\/registry\.js|registry\/lister|apiserver\/connections|prom-client/],
  ['promises, microtasks, immediates', /RunMicrotasks|processTicksAndRejections|processImmediate|Promise|runMicrotask|AsyncFunction/],
  ['event loop, kernel scheduling', /uv__io_poll|epoll|schedule|uv_run/],
];

/** The other threads, by what they run. */
const threadRules: ReadonlyArray<readonly [string, RegExp]> = [
  ['GC (V8 helper threads)', /Heap::|Scaveng|MarkCompact|MinorGC|ConcurrentMarking|Sweeper|Marking|ArrayBufferSweeper|Evacuat/],
  ['V8 compiler threads (TurboFan)', /compiler::|Compiler|OptimizedCompilationJob|Maglev|Zone/],
  ['libuv pool: WAL fdatasync', /fdatasync|ext4|jbd2|blk_|nvme|virtio|uv__fs/],
];

interface Sample { tid: string; frames: string[] }

function samples(text: string): Sample[] {
  const out: Sample[] = [];
  for (const block of text.split(/\n\s*\n/)) {
    const lines = block.split('\n').map((l) => l.trim()).filter(Boolean);
    if (lines.length < 2 || !/^\d+$/.test(lines[0]!)) continue;
    out.push({ tid: lines[0]!, frames: lines.slice(1).map((l) => l.replace(/^[0-9a-f]+ /, '')) });
  }
  return out;
}

/** The stage and the frame that decided it. */
function classify(s: Sample, mainTid: string): [string, string] {
  const rules = s.tid === mainTid ? mainRules : threadRules;
  for (const f of s.frames) {
    const r = rules.find(([, re]) => re.test(f));
    if (r) return [r[0], f];
  }
  return [s.tid === mainTid ? 'other (malloc, kernel, unnamed)' : 'other threads: other', s.frames[0]!];
}

function main(): void {
  const { values, positionals } = benchArgs("Where a server's CPU goes by request stage, from `perf script` output FILE.", {
    allowPositionals: true,
    options: { 'main-tid': { type: 'string' }, 'per-op-us': { type: 'string' }, stage: { type: 'string' } },
  });
  if (!positionals[0] || !values['main-tid']) throw new Error('usage: perf-stages.js FILE.txt --main-tid PID [--per-op-us N] [--stage NAME]');
  const all = samples(readFileSync(positionals[0], 'utf8'));
  const perOp = Number(values['per-op-us'] ?? 0);
  const counts = new Map<string, number>();
  const frames = new Map<string, number>();
  for (const s of all) {
    const [stage, frame] = classify(s, values['main-tid']);
    counts.set(stage, (counts.get(stage) ?? 0) + 1);
    if (stage === values.stage) frames.set(frame, (frames.get(frame) ?? 0) + 1);
  }
  const main = all.filter((s) => s.tid === values['main-tid']).length;
  console.log(`${all.length} samples, ${main} on the main thread (${(100 * main / all.length).toFixed(1)}%)`);
  console.log(`| Stage | Share of the server's CPU |${perOp ? ' µs per operation |' : ''}`);
  console.log(`| --- | --- |${perOp ? ' --- |' : ''}`);
  for (const [stage, n] of [...counts].sort((a, b) => b[1] - a[1])) {
    console.log(`| ${stage} | ${(100 * n / all.length).toFixed(1)}% |${perOp ? ` ${(perOp * n / all.length).toFixed(0)} |` : ''}`);
  }
  if (values.stage) for (const [f, n] of [...frames].sort((a, b) => b[1] - a[1]).slice(0, 25)) console.log(n, f.replace(/file:\/\/\/\S+?\/dist\/src\//, ''));
}

main();
