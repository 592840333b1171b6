/** The clock is passed in so tests control time instead of sleeping. */
export interface Clock { now(): Date }
export const realClock: Clock = { now: () => new Date() };

/** RFC 3339 with second precision, as metav1.Time marshals. */
export const rfc3339 = (d: Date) => d.toISOString().replace(/\.\d{3}Z$/, 'Z');
