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
 * A slow answer is charged only the time no thread on its way was waiting for
 * a CPU: on a loaded 2-core machine (CI at load 20 to 35) the server's,
 * the kubelet's and this thread each sit on a run queue for tens to hundreds
 * of milliseconds per wake-up, and an answer crossing them several times took
 * over 1 s with the servers idle (kubelet-authz at load 39: pods/log in 1,109
 * ms, while its three threads waited 2,641 ms on run queues, overlapping, and
 * the server's and the kubelet's main threads ran 31 ms). So an answer over
 * the limit is charged its time less the run-queue wait (schedstat's second
 * field) of this thread and of the main thread of every process in `pids`
 * while it was open, with two bounds: the processes' other threads' CPU time
 * meanwhile (the heavy lane's workers, V8's GC helpers) is not forgiven, as if
 * they had held the core, and the main threads' own CPU time is always
 * charged. A loop busy with one request is on a CPU, not waiting, so a stall
 * is charged in full at any load; on a quiet machine nothing is forgiven.
 *
 * workerData: `BystanderJob`. Posts 'ready' once the warm-up is answered (or
 * after `warmUpMs`) and the first round is sent; sent 'stop', it waits up to
 * `limitMs` for the requests in flight and posts every answer
 * (`BystanderAnswer[]`); a request still open then is reported with
 * `open: true` and the time since it was sent.
 */
import https from 'node:https';
import { readFileSync, readlinkSync } from 'node:fs';
import { parentPort, workerData } from 'node:worker_threads';

export interface BystanderJob {
  url: string;
  tls: { ca: string; cert: string; key: string };
  paths: string[];
  intervalMs: number;
  limitMs: number;
  /** The processes an answer passes through (the server, a kubelet): their run-queue waits are the machine's. */
  pids: number[];
}

export interface BystanderAnswer {
  path: string;
  ms: number;
  status?: number;
  error?: string;
  open?: boolean;
  /** Only for an answer over the limit: its time less the waits for a CPU (see above), and those waits. */
  chargedMs?: number;
  waitedMs?: number;
  otherThreadsCpuMs?: number;
  /** The servers' main threads' CPU time meanwhile (a loop busy with something else, when it is most of the answer's time). */
  mainCpuMs?: number;
}

/** Run-queue waits and CPU times, in ms, at one moment. */
interface Sched { ownWait: number; mainWait: number[]; mainCpu: number[]; otherCpu: number[] }

const ticksPerMs = 100 / 1000; // USER_HZ: /proc/PID/stat's utime and stime are in 1/100 s on Linux
const ownTask = ((): string | undefined => {
  try { return `/proc/${readlinkSync('/proc/thread-self')}/schedstat`; } catch { return undefined; }
})();

/** [on CPU, waiting on a run queue] in ms, from a task's schedstat (nanoseconds). */
function schedstat(file: string): [number, number] {
  const [cpu, wait] = readFileSync(file, 'utf8').split(' ').map(Number);
  return [cpu! / 1e6, wait! / 1e6];
}

/** undefined where /proc does not tell (another OS, a process gone): the answer is then charged its whole time. */
function sched(pids: number[]): Sched | undefined {
  try {
    const s: Sched = { ownWait: schedstat(ownTask!)[1], mainWait: [], mainCpu: [], otherCpu: [] };
    for (const pid of pids) {
      const [mainCpu, mainWait] = schedstat(`/proc/${pid}/task/${pid}/schedstat`);
      // Fields 14 and 15 (utime, stime) come after the command's closing parenthesis, which may itself hold spaces.
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      s.mainWait.push(mainWait);
      s.mainCpu.push(mainCpu);
      s.otherCpu.push(Math.max(0, (Number(fields[11]) + Number(fields[12])) / ticksPerMs - mainCpu));
    }
    return s;
  } catch {
    return undefined;
  }
}

/**
 * What an answer over the limit is charged: its time less what its threads waited for a CPU behind other
 * processes, and never less than its servers' main threads ran meanwhile.
 */
function charge(ms: number, from: Sched | undefined, to: Sched | undefined): Pick<BystanderAnswer, 'chargedMs' | 'waitedMs' | 'otherThreadsCpuMs' | 'mainCpuMs'> {
  if (!from || !to) return { chargedMs: ms };
  let waited = to.ownWait - from.ownWait;
  let otherCpu = 0;
  let mainCpu = 0;
  for (let i = 0; i < from.mainWait.length; i++) {
    waited += to.mainWait[i]! - from.mainWait[i]!;
    mainCpu += to.mainCpu[i]! - from.mainCpu[i]!;
    otherCpu += Math.max(0, to.otherCpu[i]! - from.otherCpu[i]!);
  }
  // The threads' waits add up past the answer's time when they overlap (kubelet-authz at load 39: 2.6 s of waits in a
  // 1.1 s answer), so what is forgiven never reaches the main threads' own CPU time: that is always charged.
  const forgiven = Math.min(Math.max(0, waited - otherCpu), Math.max(0, ms - mainCpu));
  return { chargedMs: ms - forgiven, waitedMs: waited, otherThreadsCpuMs: otherCpu, mainCpuMs: mainCpu };
}

/** How long the warm-up may take before the clock starts anyway (a server that does not answer then shows in the samples). */
const warmUpMs = 10_000;

async function run(job: BystanderJob, port: NonNullable<typeof parentPort>): Promise<void> {
  // One connection per path, kept alive; a path whose last request is still open skips its turn (that request's time
  // keeps counting, so a stall still shows) instead of queueing behind it or opening another connection.
  const agents = new Map(job.paths.map((p) => [p, new https.Agent({ keepAlive: true, maxSockets: 1, ...job.tls })]));
  const asking = new Set<string>();
  const answers: BystanderAnswer[] = [];
  const open = new Map<number, { path: string; started: number; at: Sched | undefined }>();
  let seq = 0;
  const get = (path: string, done: (status?: number, error?: string) => void) => {
    const req = https.get(new URL(path, job.url), { agent: agents.get(path), headers: { Accept: 'application/json' } }, (res) => {
      res.resume();
      res.on('end', () => done(res.statusCode ?? 0));
      res.on('error', (e) => done(undefined, e.message));
    });
    req.on('error', (e) => done(undefined, e.message));
  };
  const ask = (path: string, at: Sched | undefined) => {
    const id = seq++;
    const started = performance.now();
    open.set(id, { path, started, at });
    asking.add(path);
    get(path, (status, error) => {
      asking.delete(path);
      if (!open.delete(id)) return;
      const ms = performance.now() - started;
      answers.push({ path, ms, status, error, ...(ms > job.limitMs ? charge(ms, at, sched(job.pids)) : {}) });
    });
  };
  const round = () => {
    const idle = job.paths.filter((p) => !asking.has(p));
    const at = idle.length ? sched(job.pids) : undefined;
    for (const p of idle) ask(p, at);
  };
  const warmUp = job.paths.map((p) => new Promise<void>((resolve) => get(p, () => resolve())));
  await Promise.race([Promise.all(warmUp), new Promise((r) => setTimeout(r, warmUpMs))]);
  const timer = setInterval(round, job.intervalMs);
  round();
  port.postMessage('ready');
  port.once('message', async () => {
    clearInterval(timer);
    // Give the requests in flight their limit to answer; one still open after that is a stall.
    const deadline = performance.now() + job.limitMs;
    while (open.size && performance.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    const now = sched(job.pids);
    for (const { path, started, at } of open.values()) {
      const ms = performance.now() - started;
      answers.push({ path, ms, open: true, ...charge(ms, at, now) });
    }
    for (const agent of agents.values()) agent.destroy();
    port.postMessage(answers);
  });
}

// Imported by a test runner walking dist/test/, it is not a worker and does nothing.
if (parentPort && workerData) await run(workerData as BystanderJob, parentPort);
