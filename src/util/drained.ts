/**
 * Resolves when a stream that refused a write wants more, or closes: a writer
 * that awaits only 'drain' would wait forever for a client that went away.
 */
import type { EventEmitter } from 'node:events';

export function drainedOrClosed(stream: EventEmitter): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      stream.off('drain', done);
      stream.off('close', done);
      resolve();
    };
    stream.on('drain', done);
    stream.on('close', done);
  });
}
