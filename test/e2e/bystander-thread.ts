/**
 * The e2e bystander's asking loop (test/e2e/bystander.ts), on a thread of its
 * own. On the test's loop its clock also ran the attacker's client work: the
 * kubelet-authz attack's four loops each make a TLS handshake with a client
 * certificate per request, and at machine load 13 to 18 that loop's timers
 * came back up to 0.5 s late, so an answer the servers had sent waited in the
 * test process (the bench's bystander moved to a thread for the same reason,
 * bench/lib/bystander-thread.ts).
 *
 * Its connections are opened, and each path asked once, before its clock
 * starts, and it keeps one keep-alive connection per path: at load 13 to 20
 * the kubelet-authz flake was the bystander's own first second, not the
 * attack (it failed as often with the attack replaced by sleeps): each new
 * connection is a TLS handshake of two round trips between processes that
 * each wait 50 to 100 ms for a CPU, a proxied path adds the API server's
 * connection to the kubelet and the kubelet's first SubjectAccessReview, and
 * asking every 100 ms on an unbounded pool opened a new connection for every
 * request still waiting (28 at once), each another handshake; a pool of one
 * connection per path queued them instead, and at 0.2 to 0.6 s an answer the
 * queue grew for as long as the test ran. So a path whose request is still
 * open skips its turn. A client of a server (kubectl, client-go) keeps its
 * connections; the attack's own clients are what open new ones.
 *
 * workerData: `BystanderJob`. Posts 'ready' once the warm-up is answered (or
 * after `warmUpMs`) and the first round is sent; sent 'stop', it waits up to
 * `limitMs` for the requests in flight and posts every answer
 * (`BystanderAnswer[]`); a request still open then is reported with
 * `open: true` and the time since it was sent.
 */
import https from 'node:https';
import { parentPort, workerData } from 'node:worker_threads';

export interface BystanderJob {
  url: string;
  tls: { ca: string; cert: string; key: string };
  paths: string[];
  intervalMs: number;
  limitMs: number;
}

export interface BystanderAnswer { path: string; ms: number; status?: number; error?: string; open?: boolean }

/** How long the warm-up may take before the clock starts anyway (a server that does not answer then shows in the samples). */
const warmUpMs = 10_000;

async function run(job: BystanderJob, port: NonNullable<typeof parentPort>): Promise<void> {
  // One connection per path, kept alive; a path whose last request is still open skips its turn (that request's time
  // keeps counting, so a stall still shows) instead of queueing behind it or opening another connection.
  const agents = new Map(job.paths.map((p) => [p, new https.Agent({ keepAlive: true, maxSockets: 1, ...job.tls })]));
  const asking = new Set<string>();
  const answers: BystanderAnswer[] = [];
  const open = new Map<number, { path: string; started: number }>();
  let seq = 0;
  const get = (path: string, done: (status?: number, error?: string) => void) => {
    const req = https.get(new URL(path, job.url), { agent: agents.get(path), headers: { Accept: 'application/json' } }, (res) => {
      res.resume();
      res.on('end', () => done(res.statusCode ?? 0));
      res.on('error', (e) => done(undefined, e.message));
    });
    req.on('error', (e) => done(undefined, e.message));
  };
  const ask = (path: string) => {
    const id = seq++;
    const started = performance.now();
    open.set(id, { path, started });
    asking.add(path);
    get(path, (status, error) => {
      asking.delete(path);
      if (open.delete(id)) answers.push({ path, ms: performance.now() - started, status, error });
    });
  };
  const warmUp = job.paths.map((p) => new Promise<void>((resolve) => get(p, () => resolve())));
  await Promise.race([Promise.all(warmUp), new Promise((r) => setTimeout(r, warmUpMs))]);
  const timer = setInterval(() => { for (const p of job.paths) if (!asking.has(p)) ask(p); }, job.intervalMs);
  for (const p of job.paths) ask(p);
  port.postMessage('ready');
  port.once('message', async () => {
    clearInterval(timer);
    // Give the requests in flight their limit to answer; one still open after that is a stall.
    const deadline = performance.now() + job.limitMs;
    while (open.size && performance.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    for (const { path, started } of open.values()) answers.push({ path, ms: performance.now() - started, open: true });
    for (const agent of agents.values()) agent.destroy();
    port.postMessage(answers);
  });
}

// Imported by a test runner walking dist/test/, it is not a worker and does nothing.
if (parentPort && workerData) await run(workerData as BystanderJob, parentPort);
