/**
 * What the API server's finish handler records for each write costs, in process: the latency and
 * SLI histograms, the six stage histograms and the fair queue's wait (server.ts, request-stages.ts),
 * for `--writes N` writes spread over three label sets, `--rounds R` times. Each round prints µs a
 * write; the last session's per-write stage recording read 6.0 µs here before it was keyed
 * (bench/RESULTS.md `lead-s12-stage-metrics-2026-12-07`).
 *
 *   node dist/bench/request-metrics.js [--writes 200000] [--rounds 5]
 */
import { createMetrics } from '../src/apiserver/metrics.js';
import { observeStages, type StageMarks } from '../src/apiserver/request-stages.js';
import { keyOf } from '../src/util/batched-metrics.js';
import { benchArgs } from './lib/args.js';

const { values } = benchArgs('Times what the API server records for each write on /metrics, µs a write.', {
  options: { writes: { type: 'string', default: '200000' }, rounds: { type: 'string', default: '5' } },
});
const args = { writes: Number(values.writes), rounds: Number(values.rounds) };
const metrics = createMetrics({ deferDefaultMetrics: true });
const labelSets = [
  { verb: 'POST', resource: 'pods', subresource: 'binding' },
  { verb: 'PATCH', resource: 'pods', subresource: 'status' },
  { verb: 'PUT', resource: 'leases', subresource: '' },
];

function round(writes: number): number {
  const t = performance.now();
  for (let i = 0; i < writes; i++) {
    // A fresh label object a write, as the server builds one per request.
    const keys = { ...labelSets[i % labelSets.length]! };
    const a = 1000 + i;
    const marks: StageMarks = { arrived: a, started: a + 0.1, read: a + 0.2, seatAsked: a + 0.2, seated: a + 0.3, turned: a + 0.4, handled: a + 1 };
    const key = keyOf(keys);
    metrics.latency.observeKeyed(key, keys, 0.002);
    metrics.sli.observeKeyed(key, keys, 0.0015);
    observeStages(metrics, keys, key, marks, a + 2);
  }
  return ((performance.now() - t) * 1000) / writes;
}

for (let r = 1; r <= args.rounds; r++) console.log(`round ${r}: ${round(args.writes).toFixed(3)} µs a write`);
