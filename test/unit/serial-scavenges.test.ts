/**
 * util/serial-scavenges.ts: V8's scavenges are serial while a heavy-lane job runs in any pool and
 * parallel again once none runs; the flag is set only on those transitions; a process whose node
 * options decide scavenging itself, or that opted out, is left alone.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { SerialScavenges, scavengeFlagsGiven } from '../../src/util/serial-scavenges.js';

test('the flag changes when the first job starts and the last ends, across owners', () => {
  const set: string[] = [];
  const s = new SerialScavenges(true, (f) => set.push(f));
  const a = {};
  const b = {};
  s.note(a, false);
  assert.deepEqual(set, [], 'nothing ran: nothing to set back');
  s.note(a, true);
  s.note(a, true);
  s.note(b, true);
  assert.deepEqual(set, ['--no-parallel-scavenge'], 'once for the first job');
  s.note(a, false);
  assert.deepEqual(set, ['--no-parallel-scavenge'], 'b still runs one');
  s.note(b, false);
  s.note(b, false);
  assert.deepEqual(set, ['--no-parallel-scavenge', '--parallel-scavenge']);
});

test('disabled: never sets a flag', () => {
  const set: string[] = [];
  const s = new SerialScavenges(false, (f) => set.push(f));
  s.note({}, true);
  assert.deepEqual(set, []);
});

test('node options that decide scavenging themselves', () => {
  const cases: [string[], boolean][] = [
    [[], false],
    [['--max-old-space-size=4096', '--v8-pool-size=2'], false],
    [['--no-parallel-scavenge'], true],
    [['--parallel_scavenge'], true],
    [['--single-threaded-gc'], true],
    [['--single-threaded'], true],
    [['--no-parallel-scavenge-tasks'], false],
  ];
  for (const [options, given] of cases) assert.equal(scavengeFlagsGiven(options), given, options.join(' '));
});
