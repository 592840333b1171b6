/**
 * When watch streams write: one pass writes every watcher's queued events, at most once per tick.
 *
 * Why: each write to a watcher is a TLS record and a syscall (about 30 µs of the serving loop), so
 * with 100 watchers a write per event costs 3 ms of CPU per create, more than the create itself.
 * Upstream's watch server writes each event into a buffered writer and flushes only when no more
 * events are waiting (staging/src/k8s.io/apiserver/pkg/endpoints/handlers/watch.go), so a busy
 * watcher gets many events per flush. Here the same comes from the clock: an event after a quiet
 * spell goes out at once (the next turn of the loop); while events keep coming, every watcher is
 * written once per tick, all the events of that tick in one write, in order.
 */
const tickMs = 10;
/**
 * A pass that writes many watchers makes the next one wait longer, so that each of them gets
 * more events per write: a write (TLS record, syscall, the reader's wake-up) costs about as much
 * as the events in it, and the passes' share of the loop stays bounded as watchers are added.
 * 100 watchers wait 15 ms; never more than `maxTickMs`, the most an event is held back.
 */
const tickMsPerWatcher = 0.15;
const maxTickMs = 50;
let lastTickMs = tickMs;

export interface FlushTarget { writePending(): void }

const dirty = new Set<FlushTarget>();
let scheduled = false;
let lastPass = 0;

/** Asks for `target.writePending()` in the next pass (once, however often it is asked). */
export function scheduleWatchFlush(target: FlushTarget): void {
  dirty.add(target);
  if (scheduled) return;
  scheduled = true;
  const wait = lastPass + lastTickMs - performance.now();
  if (wait <= 0) setImmediate(pass);
  else setTimeout(pass, wait);
}

/** Drops a target that ended (its stream wrote what it had itself). */
export function cancelWatchFlush(target: FlushTarget): void {
  dirty.delete(target);
}

function pass(): void {
  scheduled = false;
  lastPass = performance.now();
  const targets = [...dirty];
  dirty.clear();
  lastTickMs = Math.min(maxTickMs, Math.max(tickMs, targets.length * tickMsPerWatcher));
  for (const t of targets) t.writePending();
}
