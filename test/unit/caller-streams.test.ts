import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CallerStreamsGate, plainSettleMs } from '../../src/util/caller-streams.js';

test('frames wait for the caller\'s streams, then go in order, and the close after them', () => {
  const sent: string[] = [];
  const gate = new CallerStreamsGate((channel, data) => sent.push(`${channel}:${data.toString()}`), true);
  gate.write(1, Buffer.from('/ # '));
  gate.write(3, Buffer.from('{}'));
  gate.whenOpen(() => sent.push('close'));
  assert.deepEqual(sent, []);
  gate.open(); // the first resize
  assert.deepEqual(sent, ['1:/ # ', '3:{}', 'close']);
  gate.write(1, Buffer.from('later'));
  gate.open();
  assert.deepEqual(sent, ['1:/ # ', '3:{}', 'close', '1:later']);
});

test('without a resize the frames go after the settle time; a caller that left gets nothing', async () => {
  const sent: string[] = [];
  const gate = new CallerStreamsGate((channel, data) => sent.push(`${channel}:${data.toString()}`), false);
  gate.write(1, Buffer.from('hi\n'));
  await new Promise((r) => setTimeout(r, plainSettleMs + 50));
  assert.deepEqual(sent, ['1:hi\n']);
  const gone = new CallerStreamsGate(() => sent.push('x'), false);
  gone.write(1, Buffer.from('lost'));
  gone.close();
  await new Promise((r) => setTimeout(r, plainSettleMs + 50));
  assert.deepEqual(sent, ['1:hi\n']);
});
