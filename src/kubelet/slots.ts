/**
 * The slot a new periodic task joins (heartbeat.ts, housekeeping.ts): the least loaded one,
 * ties going to the first at or after `cursor` round the ring, so tasks added one by one fill
 * the slots in turn and N tasks spread evenly over the period however they were started.
 */
export function leastLoadedSlot(loads: readonly number[], cursor: number): number {
  const n = loads.length;
  let best = cursor % n;
  for (let i = 1; i < n; i++) {
    const s = (cursor + i) % n;
    if (loads[s]! < loads[best]!) best = s;
  }
  return best;
}
