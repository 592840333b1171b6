/**
 * A container's postStart exec handler, run in the simulated shell as the
 * kubelet runs it right after the container starts (upstream's
 * kuberuntime_container.go startContainer → runner.Run): the Attach Handlers
 * to Container Lifecycle Events page's `echo Hello from the postStart
 * handler > /usr/share/message` writes into the instance's writable layer,
 * so `kubectl exec lifecycle-demo -- cat /usr/share/message` reads it.
 *
 * The handler's output goes nowhere (the kubelet keeps it only for a failed
 * hook's event message). A command the shell cannot run does nothing here.
 */
import type { Container } from 'kubernetes-types/core/v1.js';
import { parseExec, runProgram } from './shell.js';
import type { ContainerView } from './program.js';
import type { Timers } from '../../timers.js';

export interface HookDeps {
  /** The container instance's environment and files (withContainerFiles). */
  view(): Promise<ContainerView>;
  timers: Timers;
  /** Whether the instance still runs: a sleep in the handler ends early when it stops. */
  running(): boolean;
}

/** Runs spec.lifecycle.postStart.exec when there is one; resolves with its exit code (undefined: none, or not run). */
export async function runPostStartHook(spec: Container, deps: HookDeps): Promise<number | undefined> {
  const argv = spec.lifecycle?.postStart?.exec?.command;
  if (!argv?.length) return undefined;
  const parsed = parseExec(argv);
  if (!('program' in parsed)) return undefined;
  const view = await deps.view();
  if (!deps.running()) return undefined;
  return runProgram(parsed.program, {
    ...view,
    now: () => deps.timers.now(),
    write: () => {},
    sleep: (ms) => new Promise<boolean>((resolve) => {
      if (ms === Infinity) return;
      deps.timers.setTimeout(() => resolve(deps.running()), Math.min(ms, 2 ** 31 - 1));
    }),
  });
}
