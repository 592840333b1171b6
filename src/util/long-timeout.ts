/**
 * setTimeout for any delay. Node takes at most 2^31-1 ms (about 24.8 days); a larger delay
 * (or Infinity, or NaN) fires after 1 ms with a warning. Long delays are served as a chain
 * of maximal timers instead, so "very long" stays very long.
 */

/** The largest delay setTimeout honours. */
export const maxTimerDelayMs = 2 ** 31 - 1;

export interface LongTimeout { cancel(): void }

/** Calls `fn` once after `delayMs` (a negative or NaN delay: at the next turn; Infinity: never). */
export function setLongTimeout(fn: () => void, delayMs: number): LongTimeout {
  let timer: NodeJS.Timeout | undefined;
  let cancelled = false;
  const deadline = Date.now() + (Number.isNaN(delayMs) ? 0 : Math.max(0, delayMs));
  const arm = () => {
    const left = deadline - Date.now();
    if (left > maxTimerDelayMs || deadline === Infinity) {
      timer = setTimeout(arm, maxTimerDelayMs);
      return;
    }
    timer = setTimeout(() => { if (!cancelled) fn(); }, Math.max(0, left));
  };
  arm();
  return { cancel: () => { cancelled = true; clearTimeout(timer); } };
}
