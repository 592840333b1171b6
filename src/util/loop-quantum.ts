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
/** A turn is scheduled or running. */
let pending = false;
/** When the running turn began (performance.now()), and how many tasks it ran. */
let turnStart = 0;
let ranInTurn = 0;

/** Runs `task` in this turn's quantum if it has time left, else after the loop's next poll. */
export function inQuantum(task: () => void): void {
  tasks.push(task);
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
  return tasks.length - head;
}

function startTurn(): void {
  turnStart = performance.now();
  ranInTurn = 0;
  runNext();
}

function runNext(): void {
  if (head === tasks.length) {
    tasks = [];
    head = 0;
    pending = false;
    return;
  }
  // Queued from the check phase (a tick run after an immediate), the next turn's immediate waits
  // for the loop's next poll.
  if (ranInTurn >= minTasksPerTurn && performance.now() - turnStart >= quantumMs) {
    setImmediate(startTurn);
    return;
  }
  if (head >= 1024 && head * 2 >= tasks.length) {
    // A queue that never empties (a sustained flood) drops the slots it has run.
    tasks = tasks.slice(head);
    head = 0;
  }
  const task = tasks[head]!;
  tasks[head++] = undefined!;
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
