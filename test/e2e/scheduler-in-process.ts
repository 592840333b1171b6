/**
 * The Scheduler run in the test's process against a real server, wired as the e2e scheduler
 * tests need it: its own informers, an EventRecorder and the real clock.
 */
import { InformerFactory, EventRecorder, type Clientset } from '../../src/client/index.js';
import { Scheduler, type SchedulerOptions } from '../../src/scheduler/scheduler.js';
import { silentLogger } from '../../src/util/log.js';
import { realClock } from '../../src/util/clock.js';

export interface RunningScheduler { scheduler: Scheduler; stop(): void }

/** Starts informers and a scheduler on `clients`; stop() ends both. */
export function runScheduler(clients: Clientset, opts?: SchedulerOptions): RunningScheduler {
  const informers = new InformerFactory(clients);
  const scheduler = new Scheduler({ clients, informers, recorder: new EventRecorder(clients, 'default-scheduler'), logger: silentLogger, clock: realClock }, opts);
  informers.start();
  scheduler.run();
  return { scheduler, stop: () => { scheduler.stop(); informers.stop(); } };
}
