/**
 * The request metrics' batched counter and histogram print, as text and as JSON, exactly what
 * prom-client's Counter and Histogram print for the same records.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Registry, Counter, Histogram } from '../../src/util/prom.js';
import { BatchedCounter, BatchedHistogram, keyOf } from '../../src/util/batched-metrics.js';

const labelNames = ['code', 'verb', 'resource'] as const;
type L = typeof labelNames[number];
const buckets = [0.001, 0.01, 0.1, 1];
const records: [Record<L, string>, number][] = [
  [{ code: '201', verb: 'POST', resource: 'pods' }, 0.0004],
  [{ code: '201', verb: 'POST', resource: 'pods' }, 0.003],
  [{ code: '200', verb: 'GET', resource: 'pods' }, 0.2],
  [{ code: '404', verb: 'GET', resource: 'a\x00b' }, 5], // the key's separator in a value; past the last bucket
  [{ code: '404', verb: 'GET', resource: 'a' }, 0.05],
  [{ code: '201', verb: 'POST', resource: 'pods' }, 0.001],
];

function both() {
  const theirs = new Registry();
  const ours = new Registry();
  const c = new Counter({ name: 'reqs', help: 'requests', labelNames: [...labelNames], registers: [theirs] });
  const h = new Histogram({ name: 'lat', help: 'latency', labelNames: [...labelNames], buckets, registers: [theirs] });
  const bc = new BatchedCounter({ name: 'reqs', help: 'requests', labelNames: [...labelNames], registers: [ours] });
  const bh = new BatchedHistogram({ name: 'lat', help: 'latency', labelNames: [...labelNames], buckets, registers: [ours] });
  return { theirs, ours, record: (l: Record<L, string>, v: number) => { c.inc(l); h.observe(l, v); bc.inc(l); bh.observe(l, v); } };
}

test('text and JSON as prom-client prints them, across scrapes', async () => {
  const { theirs, ours, record } = both();
  for (const [l, v] of records.slice(0, 3)) record(l, v);
  assert.equal(await ours.metrics(), await theirs.metrics());
  for (const [l, v] of records.slice(3)) record(l, v);
  assert.equal(await ours.metrics(), await theirs.metrics(), 'counts recorded after a scrape are added once');
  assert.deepEqual(await ours.getMetricsAsJSON(), await theirs.getMetricsAsJSON());
  assert.match(await ours.metrics(), /^reqs\{code="201",verb="POST",resource="pods"\} 3$/m);
  assert.match(await ours.metrics(), /^lat_count\{code="404",verb="GET",resource="a"\} 1$/m, 'a value with the separator is a series of its own');
});

test('an empty metric prints its HELP and TYPE only, as prom-client', async () => {
  const { theirs, ours } = both();
  assert.equal(await ours.metrics(), await theirs.metrics());
});

test('observeKeyed with keyOf\'s key records into the series observe does, building labels once', async () => {
  const theirs = new Registry();
  const ours = new Registry();
  const h = new Histogram({ name: 'lat', help: 'latency', labelNames: [...labelNames], buckets, registers: [theirs] });
  const bh = new BatchedHistogram({ name: 'lat', help: 'latency', labelNames: [...labelNames], buckets, registers: [ours] });
  let built = 0;
  for (const [l, v] of records) {
    h.observe(l, v);
    // Odd records through the keyed path with a function for the labels, even ones through observe.
    if (v === 0.003 || v === 0.2 || v === 0.05) bh.observeKeyed(keyOf(l), () => { built += 1; return { ...l }; }, v);
    else bh.observe(l, v);
  }
  assert.equal(await ours.metrics(), await theirs.metrics());
  assert.equal(built, 2, 'labels are built for a new series only (POST pods existed, GET pods and GET a were new)');
});
