/** The clock is passed in so tests control time instead of sleeping. */
export interface Clock { now(): Date }
export const realClock: Clock = { now: () => new Date() };

let lastSecond = NaN;
let lastText = '';

/**
 * RFC 3339 with second precision, as metav1.Time marshals. Every call within one second shares
 * the string of the first (each create stamps creationTimestamp and a managedFields time).
 */
export function rfc3339(d: Date): string {
  const second = Math.floor(d.getTime() / 1000);
  if (second !== lastSecond) {
    lastText = new Date(second * 1000).toISOString().replace(/\.000Z$/, 'Z');
    lastSecond = second;
  }
  return lastText;
}
