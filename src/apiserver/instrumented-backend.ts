/** Wraps a storage Backend to time every operation for /metrics. */
import type { Backend } from '../storage/backend.js';
import type { ApiMetrics } from './metrics.js';

const timed = ['get', 'list', 'count', 'create', 'update', 'delete', 'compact'] as const;

export function instrumentBackend(backend: Backend, metrics: ApiMetrics): Backend {
  const wrapped: any = Object.create(backend);
  for (const op of timed) {
    const fn = (backend as any)[op].bind(backend);
    // The labels are made once per operation; the time is observed when the backend's own promise
    // settles, with no async wrapper around it (its promise and await would cost every write two more).
    const labels = { operation: op };
    const observe = (start: number) => metrics.storageLatency.observe(labels, (performance.now() - start) / 1000);
    wrapped[op] = (...args: unknown[]) => {
      const start = performance.now();
      let result: Promise<unknown>;
      try {
        result = fn(...args);
      } catch (err) {
        // A backend that throws at once still answers with a rejected promise, as the async wrapper did.
        observe(start);
        return Promise.reject(err);
      }
      result.then(() => observe(start), () => observe(start));
      return result;
    };
  }
  for (const op of ['currentRevision', 'compactedRevision', 'watch', 'close'] as const) {
    wrapped[op] = (backend as any)[op].bind(backend);
  }
  return wrapped as Backend;
}
