/**
 * What a running heavy-lane job has spent of its CPU budget (pool.ts): the
 * worker thread's own time on a CPU since it took the job. A budget that is
 * meant to stop runaway work counts the work: on a starved machine a job
 * waits on a run queue far longer than it computes (CI at load 38: 0.66 s of
 * CPU in 53 s for the 200,000-key YAML ConfigMap), and the wall clock charged
 * it that wait. Where the thread's CPU cannot be read (not Linux), wall time
 * since the take is charged instead, as before.
 */
import type { LaneWorker } from './lane-worker.js';

export class JobClock {
  private readonly cpuAtTake: number | undefined;
  private readonly wallAtTake = performance.now();

  constructor(private readonly worker: LaneWorker) {
    this.cpuAtTake = worker.cpuMs();
  }

  /** Milliseconds of the budget spent so far. */
  spentMs(): number {
    const cpu = this.worker.cpuMs();
    return cpu === undefined || this.cpuAtTake === undefined ? performance.now() - this.wallAtTake : cpu - this.cpuAtTake;
  }
}
