/**
 * The heavy lane (docs/threads.md, point 3): where a request's CPU-bound
 * steps go when their cost grows with a large body. Today: reading a create
 * or update body (decode, kind check, field-validation checks) of at least
 * `heavyBodyBytes`; smaller bodies are read on the loop, where they cost
 * less than the hop.
 */
import { HeavyPool, type HeavyPoolOptions } from './pool.js';
import { readObjectBody, type ObjectBodyJob, type ObjectBodyResult } from './object-body.js';

export { HeavyPool, defaultHeavyPoolSize } from './pool.js';
export type { ObjectBodyJob, ObjectBodyResult } from './object-body.js';

/**
 * Bodies from this size on are read in a worker. Measured with
 * bench/heavy-threshold.ts (bench/RESULTS.md): below it, reading on the
 * loop costs less than handing the body over and the value back.
 */
export const heavyBodyBytes = 128 * 1024;

let pool: HeavyPool | undefined;
let poolOptions: HeavyPoolOptions = {};

/** Sets the options of the pool the next heavy job starts (tests, `k8ts server` flags). */
export function configureHeavyLane(opts: HeavyPoolOptions): void { poolOptions = opts; }

export function heavyLane(): HeavyPool {
  pool ??= new HeavyPool(poolOptions);
  return pool;
}

export async function closeHeavyLane(): Promise<void> {
  const p = pool;
  pool = undefined;
  await p?.close();
}

/** Reads a create or update body, in a worker when it is large (and there, a create is also validated). */
export function readObjectBodyOffLoop(job: ObjectBodyJob): Promise<ObjectBodyResult> | ObjectBodyResult {
  // A small create is defaulted and validated where it always was, after admission.
  return job.body.byteLength >= heavyBodyBytes ? heavyLane().run(job) : readObjectBody({ ...job, create: false });
}
