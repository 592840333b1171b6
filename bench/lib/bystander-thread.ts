/**
 * The bystander of bench/bystander.ts, on a thread of its own: a GET of the `default` namespace
 * every 100 ms on its own keep-alive connection, each answer's latency recorded. On its own event
 * loop because the attacker's client shares the benchmark's: sixteen to sixty-four answers at a
 * time, or a 3 MiB body encrypted for TLS in one call, would otherwise delay the bystander's own
 * timer and response callbacks, and the benchmark would charge the server for its own work.
 *
 * Messages: the thread posts 'ready' once its connection is up (the handshake is not a sample);
 * sent 'stop', it answers the samples (a request still open at stop counts from its start, after
 * waiting up to 5 s for it).
 */
import { parentPort, workerData } from 'node:worker_threads';
import { ApiClient, type Credentials } from './client.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const client = new ApiClient(workerData as Credentials, 1);
const samples: number[] = [];
const open = new Set<number>();
let stopped = false;

const ask = () => {
  const started = performance.now();
  open.add(started);
  client.request('GET', '/api/v1/namespaces/default').then(() => samples.push(performance.now() - started), () => samples.push(Infinity))
    .finally(() => open.delete(started));
};

await client.expect(200, 'GET', '/api/v1/namespaces/default');
const timer = setInterval(() => { if (!stopped) ask(); }, 100);
ask();
parentPort!.postMessage('ready');
parentPort!.once('message', async () => {
  stopped = true;
  clearInterval(timer);
  const deadline = performance.now() + 5_000;
  while (open.size && performance.now() < deadline) await sleep(20);
  for (const s of open) samples.push(performance.now() - s);
  parentPort!.postMessage(samples);
  process.exit(0);
});
