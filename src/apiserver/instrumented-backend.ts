/** Wraps a storage Backend to time every operation for /metrics. */
import type { Backend } from '../storage/backend.js';
import type { ApiMetrics } from './metrics.js';

const timed = ['get', 'list', 'count', 'create', 'update', 'delete', 'compact'] as const;

export function instrumentBackend(backend: Backend, metrics: ApiMetrics): Backend {
  const wrapped: any = Object.create(backend);
  for (const op of timed) {
    const fn = (backend as any)[op].bind(backend);
    wrapped[op] = async (...args: unknown[]) => {
      const end = metrics.storageLatency.startTimer({ operation: op });
      try { return await fn(...args); } finally { end(); }
    };
  }
  for (const op of ['currentRevision', 'compactedRevision', 'watch', 'close'] as const) {
    wrapped[op] = (backend as any)[op].bind(backend);
  }
  return wrapped as Backend;
}
