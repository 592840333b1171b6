import { test } from 'node:test';
import assert from 'node:assert/strict';
import { KeyTurnAbandoned, KeyTurns } from '../../src/registry/key-turns.js';

const tick = () => new Promise<void>((resolve) => setImmediate(resolve));

test('writers of one key run one at a time, in arrival order; other keys do not wait', async () => {
  const turns = new KeyTurns();
  const log: string[] = [];
  const job = (name: string) => async () => { log.push(`${name} start`); await tick(); await tick(); log.push(`${name} end`); return name; };
  const results = await Promise.all([turns.inTurn('a', job('a1')), turns.inTurn('a', job('a2')), turns.inTurn('b', job('b1')), turns.inTurn('a', job('a3'))]);
  assert.deepEqual(results, ['a1', 'a2', 'b1', 'a3']);
  const onA = log.filter((l) => l.startsWith('a'));
  assert.deepEqual(onA, ['a1 start', 'a1 end', 'a2 start', 'a2 end', 'a3 start', 'a3 end']);
  assert.ok(log.indexOf('b1 start') < log.indexOf('a1 end'), 'b does not wait for a');
});

test('a writer that writes its own key again inside its turn (passing the keys it holds) does not wait on itself', async () => {
  const turns = new KeyTurns();
  const inner = await turns.inTurn('a', (held) => turns.inTurn('b', (both) => turns.inTurn('a', async (again) => [...again].join(), undefined, both), undefined, held));
  assert.equal(inner, 'a,b');
});

test('a failed writer passes the turn on', async () => {
  const turns = new KeyTurns();
  const first = turns.inTurn('a', async () => { throw new Error('boom'); });
  const second = turns.inTurn('a', async () => 'second');
  await assert.rejects(first, /boom/);
  assert.equal(await second, 'second');
});

test('a writer whose request ended leaves the line; the ones behind it keep their order', async () => {
  const turns = new KeyTurns();
  let release!: () => void;
  const holder = turns.inTurn('a', () => new Promise<string>((resolve) => { release = () => resolve('holder'); }));
  const ended = new AbortController();
  const leaving = turns.inTurn('a', async () => 'never', ended.signal);
  const after = turns.inTurn('a', async () => 'after');
  ended.abort();
  await assert.rejects(leaving, KeyTurnAbandoned);
  let afterDone = false;
  void after.then(() => { afterDone = true; });
  await tick();
  assert.equal(afterDone, false, 'the holder still has the turn');
  release();
  assert.equal(await holder, 'holder');
  assert.equal(await after, 'after');
});

test('a signal given as a function is made only by a writer that waits, and still lets it leave the line', async () => {
  const turns = new KeyTurns();
  const made: string[] = [];
  const signalOf = (name: string, controller: AbortController) => () => { made.push(name); return controller.signal; };
  assert.equal(await turns.inTurn('a', async () => 'alone', signalOf('alone', new AbortController())), 'alone');
  assert.deepEqual(made, [], 'a writer with the turn at once never asks for its signal');
  let release!: () => void;
  const holder = turns.inTurn('a', () => new Promise<string>((resolve) => { release = () => resolve('holder'); }), signalOf('holder', new AbortController()));
  const ended = new AbortController();
  const leaving = turns.inTurn('a', async () => 'never', signalOf('leaving', ended));
  ended.abort();
  await assert.rejects(leaving, KeyTurnAbandoned);
  assert.deepEqual(made, ['leaving']);
  release();
  assert.equal(await holder, 'holder');
});

test('the next writer of a key starts after the loop polled for I/O, not in the previous one\'s task', async () => {
  const turns = new KeyTurns();
  // A ticker re-queued from its own setImmediate runs once per loop turn: it numbers the turns.
  let turn = 0;
  let ticking = true;
  const tick = () => { turn++; if (ticking) setImmediate(tick); };
  setImmediate(tick);
  const seen: Array<[string, number]> = [];
  const job = (name: string) => async () => { seen.push([`${name} start`, turn]); seen.push([`${name} end`, turn]); return name; };
  await Promise.all([turns.inTurn('a', job('a1')), turns.inTurn('a', job('a2'))]);
  ticking = false;
  assert.deepEqual(seen.map(([s]) => s), ['a1 start', 'a1 end', 'a2 start', 'a2 end']);
  assert.ok(seen[2]![1] > seen[1]![1], `a2 starts in a later turn: ${JSON.stringify(seen)}`);
});
