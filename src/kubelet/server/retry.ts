/**
 * Upstream's webhook retry (k8s.io/apiserver/pkg/util/webhook,
 * DefaultAuthWebhookRetryBackoff and DefaultShouldRetry), around both of the
 * kubelet's reviews: up to 5 tries, 500 ms apart at first and 1.5 times longer
 * each time (up to 20 % jitter), but only for errors that say "try again":
 * a connection reset, 429 TooManyRequests, 500 InternalError, 504 Timeout.
 * Anything else (a refused connection included, as upstream) fails at once,
 * so the filter answers 401/500 without delay.
 */
import { ApiError } from '../../client/index.js';
import type { KubeletReviewer } from './reviews.js';

export interface Backoff { durationMs: number; factor: number; jitter: number; steps: number }

export const defaultAuthWebhookRetryBackoff: Backoff = { durationMs: 500, factor: 1.5, jitter: 0.2, steps: 5 };

export function shouldRetry(e: unknown): boolean {
  if ((e as NodeJS.ErrnoException | undefined)?.code === 'ECONNRESET') return true;
  if (!(e instanceof ApiError)) return false;
  return e.code === 429 || e.reason === 'InternalError' || e.reason === 'Timeout';
}

export async function withBackoff<T>(call: () => Promise<T>, backoff: Backoff, sleep: (ms: number) => Promise<void>, random = Math.random): Promise<T> {
  let delay = backoff.durationMs;
  for (let attempt = 1; ; attempt++) {
    try {
      return await call();
    } catch (e) {
      if (attempt >= backoff.steps || !shouldRetry(e)) throw e;
    }
    await sleep(delay * (1 + random() * backoff.jitter));
    delay *= backoff.factor;
  }
}

export function withWebhookRetry(reviewer: KubeletReviewer, backoff = defaultAuthWebhookRetryBackoff,
  sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms))): KubeletReviewer {
  return {
    tokenReview: (r) => withBackoff(() => reviewer.tokenReview(r), backoff, sleep),
    subjectAccessReview: (r) => withBackoff(() => reviewer.subjectAccessReview(r), backoff, sleep),
  };
}
