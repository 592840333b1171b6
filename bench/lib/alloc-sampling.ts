/**
 * Every allocation of a server's main isolate over a benchmark's measured phase, sampled: preloaded
 * into the server with `--import` (allocSamplingNodeArgs) when K8TS_BENCH_ALLOC_PROFILE names a
 * file. A first SIGUSR2 starts V8's sampling heap profiler (one sample per 8 KiB allocated on average)
 * with the objects that minor and major GCs collected kept in the profile (node's own
 * --heap-prof keeps only what is still alive when it stops, which for a request path is next to
 * nothing); the next SIGUSR2 stops it and writes the profile (the DevTools SamplingHeapProfile JSON) to
 * the file. bench/alloc-summary.ts reads it as bytes per operation by function.
 */
import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector';
import { fileURLToPath } from 'node:url';
import { isMainThread } from 'node:worker_threads';

/** Node flags that preload this module into a server (its output file goes in the server's env). */
export const allocSamplingNodeArgs = (): string[] => [`--import=${fileURLToPath(import.meta.url)}`];

const file = process.env.K8TS_BENCH_ALLOC_PROFILE;
if (file && isMainThread) {
  const session = new Session();
  session.connect();
  // SIGUSR2 both ways: SIGUSR1 would also start node's inspector.
  let sampling = false;
  process.on('SIGUSR2', () => {
    sampling = !sampling;
    if (sampling) {
      session.post('HeapProfiler.startSampling', { samplingInterval: 8192, includeObjectsCollectedByMajorGC: true, includeObjectsCollectedByMinorGC: true });
    } else {
      session.post('HeapProfiler.stopSampling', (err, result) => { if (!err) writeFileSync(file, JSON.stringify(result.profile)); });
    }
  });
}
