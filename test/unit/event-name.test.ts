import { test } from 'node:test';
import assert from 'node:assert/strict';
import { eventName } from '../../src/client/events.js';

test('event names are the object name and a nanosecond hex stamp that increases within one millisecond', () => {
  const nowMs = Date.UTC(2026, 11, 1, 19, 0, 0);
  const names = Array.from({ length: 50 }, () => eventName('web-1', nowMs));
  const stamps = names.map((n) => {
    assert.match(n, /^web-1\.[0-9a-f]+$/);
    return BigInt(`0x${n.slice('web-1.'.length)}`);
  });
  for (let i = 1; i < stamps.length; i++) assert.ok(stamps[i] > stamps[i - 1], `${names[i]} after ${names[i - 1]}`);
  assert.ok(stamps[0] >= BigInt(nowMs) * 1_000_000n, 'nanoseconds since the epoch');
  // Sorted by name (as the API lists them), they stay in the order they were made.
  assert.deepEqual([...names].sort(), names);
});
