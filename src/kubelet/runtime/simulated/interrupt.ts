/**
 * Ctrl-C on the terminal of a container whose command the simulator runs
 * (`kubectl run -i --tty load-generator ... -- /bin/sh -c "while sleep
 * 0.01; do wget ...; done"`, then Ctrl-C, as the HPA walkthrough stops its
 * load): with a tty, the terminal's line discipline turns the ^C byte into
 * SIGINT for the foreground processes, which end, and the command with
 * them (exit 130, 128 + SIGINT). Without a tty the byte is only input.
 *
 *  1. Only a container with `tty: true` and `stdin: true` is interrupted.
 *  2. The terminal echoes `^C` (ECHOCTL), as upstream's does.
 *  3. The command stops at its next wait (a sleep); what it was doing (a
 *     wget) finishes first.
 */
import type { ContainerConsole } from './attach.js';

/** Exit code of a process ended by SIGINT. */
export const interruptedExitCode = 130;

/** Calls `onInterrupt` when ^C comes on the container's terminal (rule 1); returns the unsubscribe. */
export function watchInterrupt(stdio: ContainerConsole | undefined, spec: { tty?: boolean; stdin?: boolean }, onInterrupt: () => void): () => void {
  if (!stdio || !spec.tty || !spec.stdin) return () => {};
  const onData = (d: Buffer) => {
    if (!d.includes(3)) return;
    stdio.write('stdout', '^C');
    onInterrupt();
  };
  stdio.stdin.on('data', onData);
  return () => { stdio.stdin.off('data', onData); };
}
