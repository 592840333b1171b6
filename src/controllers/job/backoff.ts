/**
 * Pod failure back-off (upstream pkg/controller/job/backoff_utils.go): after
 * n failures since the last success, new pods wait 10 s * 2^(n-1), at most
 * 6 minutes, counted from the last failure. With backoffLimitPerIndex the
 * same delay applies per index, from the index's failure count.
 */
export const defaultJobPodFailureBackOffMs = 10_000;
export const maxJobPodFailureBackOffMs = 360_000;

export interface BackoffRecord {
  failuresAfterLastSuccess: number;
  /** Epoch ms of the latest failure, 0 when none. */
  lastFailureTime: number;
}

export const emptyBackoff: BackoffRecord = { failuresAfterLastSuccess: 0, lastFailureTime: 0 };

/** The delay after `failures` consecutive failures (0 for none). */
export function backoffDelayMs(failures: number): number {
  if (failures <= 0) return 0;
  return Math.min(defaultJobPodFailureBackOffMs * 2 ** Math.min(failures - 1, 30), maxJobPodFailureBackOffMs);
}

/** Folds newly finished pods (their finish times) into the record, oldest first. */
export function nextBackoffRecord(record: BackoffRecord, finished: { failed: boolean; at: number }[]): BackoffRecord {
  let { failuresAfterLastSuccess, lastFailureTime } = record;
  for (const f of [...finished].sort((a, b) => a.at - b.at)) {
    if (f.failed) {
      failuresAfterLastSuccess++;
      lastFailureTime = Math.max(lastFailureTime, f.at);
    } else if (f.at >= lastFailureTime) {
      failuresAfterLastSuccess = 0;
    }
  }
  return { failuresAfterLastSuccess, lastFailureTime };
}

/** Milliseconds before a new pod may be created, 0 when it may be created now. */
export function remainingBackoffMs(record: BackoffRecord, now: number): number {
  const delay = backoffDelayMs(record.failuresAfterLastSuccess);
  return Math.max(0, record.lastFailureTime + delay - now);
}
