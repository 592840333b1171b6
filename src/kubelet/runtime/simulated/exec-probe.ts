/**
 * An exec probe on a simulated node (upstream pkg/probe/exec through CRI
 * ExecSync): the probe's command runs in the simulated shell against the
 * container's current files and environment, as `kubectl exec` would run
 * it. Exit 0 is a success; any other code a failure whose message is the
 * command's output, stdout then stderr (`cat: can't open '/tmp/healthy': No
 * such file or directory`), cut to upstream's 10 KiB. A command still
 * running after timeoutSeconds fails as upstream's ExecSync deadline does:
 * `command "sleep 5" timed out`. A command the shell does not run (an
 * unknown program, `pg_isready`) is not answered here: undefined, and the
 * runtime keeps the simulated outcome (annotations).
 */
import type { Timers, TimerHandle } from '../../timers.js';
import { parseProgram, runProgram } from './shell.js';
import type { ContainerView } from './program.js';

/** Upstream's probe output limit (pkg/probe/exec maxReadLength). */
const maxOutput = 10 * 1024;
/** setTimeout's limit: a longer sleep is cut short by the timeout anyway. */
const maxTimerMs = 2 ** 31 - 1;

export interface ExecProbeDeps {
  /** The container's environment and files now (its layer and volumes included). */
  view(): Promise<ContainerView>;
  timers: Timers;
  timeoutMs: number;
  /** The probed instance still runs. */
  running(): boolean;
}

/** Whether the simulated shell runs this probe command (else the annotations answer). */
export const runsExecProbe = (argv: string[]) => !!argv.length && parseProgram(argv) !== undefined;

export async function runExecProbe(argv: string[], deps: ExecProbeDeps): Promise<{ result: 'success' | 'failure'; output: string } | undefined> {
  const program = argv.length ? parseProgram(argv) : undefined;
  if (!program) return undefined;
  const view = await deps.view();
  let stdout = '';
  let stderr = '';
  let over = false;
  const sleepers = new Set<() => void>();
  // A sleep ends with the timeout (or the instance): the program then stops where it is.
  const sleep = (ms: number) => new Promise<boolean>((resolve) => {
    if (over || !deps.running()) { resolve(false); return; }
    let timer: TimerHandle | undefined;
    const wake = (v: boolean) => { sleepers.delete(stop); if (timer) deps.timers.clearTimeout(timer); resolve(v); };
    const stop = () => wake(false);
    sleepers.add(stop);
    if (ms !== Infinity) timer = deps.timers.setTimeout(() => wake(!over && deps.running()), Math.min(ms, maxTimerMs));
  });
  let deadline: TimerHandle | undefined;
  const timedOut = new Promise<'timeout'>((resolve) => { deadline = deps.timers.setTimeout(() => resolve('timeout'), deps.timeoutMs); });
  const run = runProgram(program, {
    ...view,
    now: () => deps.timers.now(),
    sleep,
    write: (stream, text) => { if (stream === 'stdout') stdout += text; else stderr += text; },
  });
  const code = await Promise.race([run, timedOut]);
  if (deadline) deps.timers.clearTimeout(deadline);
  if (code === 'timeout') {
    over = true;
    for (const stop of [...sleepers]) stop();
    return { result: 'failure', output: `command ${JSON.stringify(argv.join(' '))} timed out` };
  }
  if (code === undefined) return { result: 'failure', output: 'container is not running' };
  return { result: code === 0 ? 'success' : 'failure', output: (stdout + stderr).slice(0, maxOutput) };
}
