/**
 * Admission plugins run in order, each after the one before has finished. Most steps of most
 * writes have nothing to wait for and return at once; then the whole chain returns at once,
 * with no promise: an async chain of N awaits makes 2N promises per write (each an allocation
 * and a microtask turn). A step that returns a promise
 * holds the rest until it settles, and a rejection (or a throw) ends the chain, as an await would.
 */
export type AdmissionStep<A extends unknown[]> = (...args: A) => Promise<void> | void;

export function runSteps<A extends unknown[]>(steps: readonly AdmissionStep<A>[], args: A, from = 0): Promise<void> | void {
  for (let i = from; i < steps.length; i++) {
    const pending = steps[i]!(...args);
    if (pending) return pending.then(() => runSteps(steps, args, i + 1));
  }
}
