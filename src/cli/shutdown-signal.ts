/**
 * SIGTERM and SIGINT for the long-running commands (server, up, agent, sim), as
 * upstream's SetupSignalHandler and a Go main do it:
 *
 *  1. The first signal runs the command's shutdown; the promise resolves
 *     with 0 when it finished, 1 when it failed.
 *  2. A second signal exits at once with 1 (upstream: "If a second signal
 *     is caught, the program is terminated with exit code 1"), for a
 *     shutdown that waits on something that will not come.
 *  3. A Go program exits when main returns, whatever goroutine or socket is
 *     left; Node waits for every handle. So once the shutdown is done the
 *     process gets a moment to drain (pending log lines and answers), and
 *     if a handle still holds it, it says which and exits with the code:
 *     a script that stopped the cluster is not left waiting on it.
 */
import type { Logger } from '../util/log.js';

/** How long a finished shutdown waits for the event loop to empty by itself. */
export const drainAfterShutdownMs = 2_000;
/** A shutdown still running after this is reported (it goes on; a second signal ends it). */
const slowShutdownMs = 20_000;

export function onShutdownSignal(logger: Logger, shutdown: () => Promise<void>): Promise<number> {
  return new Promise<number>((resolve) => {
    let signalled = false;
    const onSignal = (sig: NodeJS.Signals) => {
      if (signalled) {
        logger.error('second signal: exiting without finishing the shutdown', { signal: sig });
        process.exit(1);
      }
      signalled = true;
      logger.info('shutting down', { signal: sig });
      const slow = setTimeout(() => logger.warn('shutdown still running; a second SIGTERM or SIGINT exits now', {
        afterMs: slowShutdownMs, waitingOn: process.getActiveResourcesInfo(),
      }), slowShutdownMs);
      slow.unref();
      shutdown().then(() => 0, (e: unknown) => { logger.error('shutdown failed', { err: e }); return 1; }).then((code) => {
        clearTimeout(slow);
        exitOnceDrained(logger, code);
        resolve(code);
      });
    };
    process.on('SIGTERM', onSignal);
    process.on('SIGINT', onSignal);
  });
}

/** Exits with `code` if the event loop has not emptied by itself within drainAfterShutdownMs, naming what held it. */
function exitOnceDrained(logger: Logger, code: number): void {
  const timer = setTimeout(() => {
    logger.warn('shutdown over but handles are still open; exiting', { code, open: process.getActiveResourcesInfo() });
    process.exit(code);
  }, drainAfterShutdownMs);
  timer.unref();
}
