/**
 * The moment a long-running command has started (the API server's first
 * readiness), announced on `process` for the launcher (launcher.ts), which
 * then saves the V8 code cache of what ran so far: the code the next start
 * runs before it is ready. An event rather than an import, because the
 * launcher is a bundle of its own and shares no module with the CLI.
 */
import type { EventEmitter } from 'node:events';

export const startedEvent = 'k8ts:started';

export function announceStarted(): void {
  (process as EventEmitter).emit(startedEvent);
}
