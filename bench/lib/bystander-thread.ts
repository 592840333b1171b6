/**
 * The bystander of bench/bystander.ts, on a thread of its own: a GET of the `default` namespace
 * every 100 ms on its own keep-alive connection, each answer's latency recorded. On its own event
 * loop because the attacker's client shares the benchmark's: sixteen to sixty-four answers at a
 * time, or a 3 MiB body encrypted for TLS in one call, would otherwise delay the bystander's own
 * timer and response callbacks, and the benchmark would charge the server for its own work.
 *
 * The GETs go through LeanGet (lean-get.ts), not node:https, and the thread asks for SCHED_FIFO
 * (`chrt`, root only; otherwise it stays SCHED_OTHER and says so): what is measured is then the
 * server's answer, not this thread's own CPU and its waits on a run queue shared with the attack's
 * client, the server's other threads and other work on the host. A real bystander runs elsewhere.
 *
 * Messages: the thread posts 'ready' once its connection is up (the handshake is not a sample);
 * sent 'stop', it answers the samples and when each GET was sent (a request still open at stop counts from its start, after
 * waiting up to 5 s for it).
 */
import { spawnSync } from 'node:child_process';
import { readFileSync, readlinkSync } from 'node:fs';
import { parentPort, workerData } from 'node:worker_threads';
import type { Credentials } from './client.js';
import { LeanGet } from './lean-get.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** This thread's time on a CPU and waiting on a run queue (ms): its own share of a GET's latency when the machine is busy. */
const schedstat = () => { const [run, wait] = readFileSync('/proc/thread-self/schedstat', 'utf8').split(' ').map(Number); return { runMs: run! / 1e6, waitMs: wait! / 1e6 }; };
const client = new LeanGet(workerData as Credentials, '/api/v1/namespaces/default');
/** This thread at SCHED_FIFO 1 (`chrt`, root only): whether it took. */
const fifo = spawnSync('chrt', ['-f', '-p', '1', readlinkSync('/proc/thread-self').split('/').pop()!], { stdio: 'ignore' }).status === 0;
const samples: number[] = [];
/** When each sample's GET was sent (epoch ms), in the order of `samples`, to set beside the server's GC pauses. */
const sentAt: number[] = [];
const open = new Set<number>();
let stopped = false;

const ask = () => {
  const started = performance.now();
  open.add(started);
  const record = (ms: number) => { samples.push(ms); sentAt.push(performance.timeOrigin + started); };
  client.get().then(() => record(performance.now() - started), () => record(Infinity))
    .finally(() => open.delete(started));
};

const first = await client.get();
if (first !== 200) throw new Error(`GET /api/v1/namespaces/default: HTTP ${first}`);
const sched0 = schedstat();
const timer = setInterval(() => { if (!stopped) ask(); }, 100);
ask();
parentPort!.postMessage({ ready: true, fifo });
parentPort!.once('message', async () => {
  stopped = true;
  clearInterval(timer);
  const deadline = performance.now() + 5_000;
  while (open.size && performance.now() < deadline) await sleep(20);
  for (const s of open) { samples.push(performance.now() - s); sentAt.push(performance.timeOrigin + s); }
  const sched = schedstat();
  parentPort!.postMessage({ samples, sentAt, ownRunMs: sched.runMs - sched0.runMs, ownWaitMs: sched.waitMs - sched0.waitMs });
  process.exit(0);
});
