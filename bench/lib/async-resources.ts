/**
 * A preload for a server under a benchmark: counts the async resources its process makes, by
 * type (PROMISE, TickObject, Microtask, Timeout, Immediate, ...), and the HTTP requests it starts,
 * and appends the running totals as a JSON line to $K8TS_ASYNC_COUNTS every 2 s. What a warm
 * request costs the event loop's runtime besides its own code: every promise is an allocation and
 * a reaction, every tick and microtask a turn of Node's queues. Read with bench/async-counts.ts.
 *
 *   node dist/bench/side-by-side.js --only sqlite --no-etcd --concurrency 16 --rounds 1 --pods 5000 \
 *     --warmup 1000 --no-write --server-node-args="--import $PWD/dist/bench/lib/async-resources.js"
 *
 * With the hook on, V8 also makes the throwaway promise of each `await` (counted among PROMISE),
 * and every promise is slower: the counts are the figure, not the run's rates or CPU.
 */
import { createHook } from 'node:async_hooks';
import { subscribe } from 'node:diagnostics_channel';
import { appendFileSync } from 'node:fs';

const out = process.env.K8TS_ASYNC_COUNTS ?? `/tmp/k8ts-async-counts-${process.pid}.jsonl`;
const counts: Record<string, number> = { requests: 0 };
createHook({ init(_id, type) { counts[type] = (counts[type] ?? 0) + 1; } }).enable();
subscribe('http.server.request.start', () => { counts.requests!++; });
setInterval(() => appendFileSync(out, `${JSON.stringify({ t: Date.now(), ...counts })}\n`), 2000).unref();
