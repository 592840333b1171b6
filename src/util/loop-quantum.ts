/**
 * A time quantum of the event loop for work that can wait for the next poll of the sockets.
 *
 * One event loop serves every client. Work that many requests reach together (a write's first
 * steps on arrival, its steps after its body, the answers of the writes one fsync made durable:
 * apiserver/server.ts, apiserver/flowcontrol/turns.ts, storage/sqlite/group-commit.ts) would run as
 * one task, and another client's GET, whose bytes already wait in its socket, would be read only
 * after all of it. Such work is handed in here as tasks: they run in the order given, from the
 * check phase, until the tasks of this turn have used `quantumMs`; the rest wait until the loop
 * has polled its sockets (and served that GET) once more.
 *
 * A time, not a count: a count bounds nothing when each step's cost varies (a small create is
 * about 0.2 ms, an apply to an object with many managers several ms), and a count small enough
 * for the dear steps splits the cheap ones into more turns than needed (storage's group commit,
 * also a setImmediate, gathers the writes started in one turn into one transaction).
 *
 * A task's cost is the task and the microtasks it starts (the rest of an async request up to its
 * next I/O): the next task starts from a tick queued once those microtasks have drained (Node
 * runs the tick queue after each drain of the microtask queue). The quantum is wall time (Node 20
 * has no clock of the thread's own CPU time), so on a loaded machine a task during which the
 * thread was preempted uses it up; the first `minTasksPerTurn` tasks of a turn therefore always
 * run, which keeps what the loop did before the quantum (four writes started per turn, so group
 * commit still gathers several writes per transaction) as the least a turn does.
 *
 * Upstream has no counterpart: kube-apiserver runs each request on its own goroutine and Go's
 * scheduler preempts them.
 */

/** How long the tasks of one turn may run before the loop polls its sockets again. */
export const quantumMs = 1;
/** Tasks a turn runs whatever the time they take. */
export const minTasksPerTurn = 4;

/** Waiting tasks from `head` on (an index, not shift(): shift copies a long array on every call). */
let tasks: Array<() => void> = [];
let head = 0;
/**
 * Tasks that finish a request rather than start one (the answers of writes an fsync made durable):
 * they run before every task of `tasks`, under the same quantum. Why: under a burst the quantum
 * holds a few dozen new writes' steps, and an answer queued behind them kept its client (and its
 * flow-control seat) waiting that long for a write already durable, while the serving loop later
 * sat idle waiting for that client's next request (bench/RESULTS.md `loop64-2026-12-06`).
 */
let firstTasks: Array<() => void> = [];
let firstHead = 0;
/** A turn is scheduled or running. */
let pending = false;
/** When the running turn began (performance.now()), and how many tasks it ran. */
let turnStart = 0;
let ranInTurn = 0;

/** Runs `task` in this turn's quantum if it has time left, else after the loop's next poll. */
export function inQuantum(task: () => void): void {
  tasks.push(task);
  schedule();
}

/** As inQuantum, but ahead of every task queued with inQuantum (in their own order among themselves). */
export function inQuantumFirst(task: () => void): void {
  firstTasks.push(task);
  schedule();
}

function schedule(): void {
  if (!pending) {
    pending = true;
    setImmediate(startTurn);
  }
}

/** Resolves in a turn with time left: the caller's following steps are that turn's task. */
export function nextQuantum(): Promise<void> {
  return new Promise<void>((resolve) => inQuantum(resolve));
}

/** Tasks waiting for a turn (for tests and metrics). */
export function waitingTasks(): number {
  return tasks.length - head + firstTasks.length - firstHead;
}

function startTurn(): void {
  turnStart = performance.now();
  ranInTurn = 0;
  runNext();
}

function runNext(): void {
  if (firstHead === firstTasks.length && head === tasks.length) {
    tasks = [];
    head = 0;
    firstTasks = [];
    firstHead = 0;
    pending = false;
    return;
  }
  // Queued from the check phase (a tick run after an immediate), the next turn's immediate waits
  // for the loop's next poll.
  if (ranInTurn >= minTasksPerTurn && performance.now() - turnStart >= quantumMs) {
    setImmediate(startTurn);
    return;
  }
  let task: () => void;
  if (firstHead < firstTasks.length) {
    task = firstTasks[firstHead]!;
    firstTasks[firstHead++] = undefined!;
    if (firstHead === firstTasks.length) {
      firstTasks = [];
      firstHead = 0;
    }
  } else {
    if (head >= 1024 && head * 2 >= tasks.length) {
      // A queue that never empties (a sustained flood) drops the slots it has run.
      tasks = tasks.slice(head);
      head = 0;
    }
    task = tasks[head]!;
    tasks[head++] = undefined!;
  }
  ranInTurn++;
  try {
    task();
  } finally {
    // Behind the task's own microtasks: a microtask queued now runs after those queued so far,
    // and the tick it queues runs once the microtask queue is empty.
    queueMicrotask(queueNext);
  }
}

function queueNext(): void {
  process.nextTick(runNext);
}
