/**
 * Watch fan-out: W watchers on the pods of a namespace from one resourceVersion,
 * then N pod creates; how fast the events reach all watchers.
 */
import type { ApiClient } from './client.js';
import { createPods, podName, warmUp, type CpuMeter, type CreateRun } from './load.js';

export interface FanOutResult {
  watchers: number;
  events: number;
  writes: CreateRun;
  /** Events delivered to all watchers together, per second, from the first write to the last delivery. */
  deliveredPerSec: number;
  /** The first write sent to the last watcher having the last event. */
  totalMs: number;
  /** The last write's response to the last watcher having the last event. */
  lastDelayMs: number;
  /** Server CPU time (writes and deliveries) per delivered event, in µs. */
  cpuUsPerEvent: number;
  complete: boolean;
}

const deliveryTimeoutMs = 300_000;
const newline = 0x0a;

interface Counter { lines: number; doneAt?: bigint; tail: string }

export async function watchFanOut(
  watchClient: ApiClient, writeClient: ApiClient, cpu: CpuMeter,
  o: { namespace: string; watchers: number; events: number; concurrency: number; prefix: string },
): Promise<FanOutResult> {
  const base = `/api/v1/namespaces/${o.namespace}/pods`;
  const list = JSON.parse((await writeClient.expect(200, 'GET', `${base}?limit=1`)).body.toString());
  const rv: string = list.metadata.resourceVersion;
  const counters: Counter[] = [];
  let done = 0;
  let allDone: () => void = () => {};
  const finished = new Promise<void>((r) => { allDone = r; });
  const streams = await Promise.all(Array.from({ length: o.watchers }, () => {
    const c: Counter = { lines: 0, tail: '' };
    counters.push(c);
    return watchClient.openStream(`${base}?watch=true&resourceVersion=${rv}`, (chunk) => {
      for (let i = chunk.indexOf(newline); i >= 0; i = chunk.indexOf(newline, i + 1)) c.lines++;
      c.tail = (c.tail + chunk.toString()).slice(-8192);
      if (c.lines >= o.events && !c.doneAt) { c.doneAt = process.hrtime.bigint(); if (++done === o.watchers) allDone(); }
    });
  }));
  await warmUp(writeClient, o.namespace, o.concurrency);
  const cpuBefore = cpu();
  const started = process.hrtime.bigint();
  const writes = await createPods(writeClient, cpu, { namespace: o.namespace, prefix: o.prefix, from: 0, count: o.events, concurrency: o.concurrency });
  const lastAck = process.hrtime.bigint();
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([finished, new Promise((r) => { timer = setTimeout(r, deliveryTimeoutMs); })]);
  clearTimeout(timer);
  const cpuMs = cpu() - cpuBefore;
  for (const s of streams) s.close();
  checkLastEvent(counters, podName(o.prefix, o.events - 1));
  const doneTimes = counters.map((c) => c.doneAt ?? process.hrtime.bigint());
  const last = doneTimes.reduce((a, b) => (a > b ? a : b));
  const delivered = counters.reduce((n, c) => n + Math.min(c.lines, o.events), 0);
  const ms = (a: bigint, b: bigint) => Number(a - b) / 1e6;
  return {
    watchers: o.watchers, events: o.events, writes,
    deliveredPerSec: delivered / (ms(last, started) / 1000),
    totalMs: ms(last, started),
    lastDelayMs: ms(last, lastAck),
    cpuUsPerEvent: (cpuMs * 1000) / delivered,
    complete: done === o.watchers,
  };
}

/** The last line a watcher saw must be an event for a pod of this run (creates may finish out of order). */
function checkLastEvent(counters: Counter[], lastName: string): void {
  const lines = counters[0]?.tail.trimEnd().split('\n') ?? [];
  const ev = JSON.parse(lines[lines.length - 1] ?? '{}');
  if (ev.type !== 'ADDED' || !String(ev.object?.metadata?.name).startsWith(lastName.replace(/-\d+$/, '-'))) {
    throw new Error(`unexpected last watch event: ${JSON.stringify(ev).slice(0, 300)}`);
  }
}
