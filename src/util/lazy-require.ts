/**
 * A CommonJS package loaded on first use instead of at start-up. A server
 * that never sees a CronJob, a JSON patch, a YAML body or a protobuf client
 * never pays for loading their libraries (together about 0.3 s of the start).
 * Synchronous, so the callers' synchronous APIs stay as they are.
 */
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);

export function lazyRequire<T>(name: string): () => T {
  let loaded: T | undefined;
  return () => (loaded ??= require(name) as T);
}
