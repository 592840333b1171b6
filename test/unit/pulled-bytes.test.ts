/**
 * The heavy lane's pulled answers (src/apiserver/heavy/pulled-bytes.ts): the
 * loop gets every byte, in order, a slice of at most 1 MiB at a time; a loop
 * that stops pulling (its client left) frees the worker's copy; a worker that
 * goes away ends the pull instead of hanging it.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Worker } from 'node:worker_threads';
import { servePulledBytes, pullSlice, pulledBytesFrom } from '../../src/apiserver/heavy/pulled-bytes.js';

const bytes = (n: number, seed: number) => Uint8Array.from({ length: n }, (_, i) => (i * 31 + seed) & 0xff);

test('every byte arrives in order, in slices of at most 1 MiB, each with memory of its own', async () => {
  const parts = [bytes(2.5 * 1024 * 1024, 1), bytes(10, 2), bytes(1024 * 1024, 3)];
  const expected = Buffer.concat(parts);
  const pulled = servePulledBytes(parts);
  assert.equal(pulled.length, expected.length);
  const got: Uint8Array[] = [];
  for (let n = 0; n < pulled.length;) {
    const slice = await pullSlice(pulled.port);
    assert.ok(slice, 'a slice until the length is reached');
    assert.ok(slice.byteLength <= 1024 * 1024 && slice.byteLength > 0);
    assert.equal(slice.byteOffset, 0);
    assert.equal(slice.buffer.byteLength, slice.byteLength);
    got.push(slice);
    n += slice.byteLength;
  }
  assert.deepEqual(Buffer.concat(got), expected);
  pulled.port.close();
});

test('closing the port early drops the parts held for it', async () => {
  const parts = [bytes(3 * 1024 * 1024, 4)];
  const pulled = servePulledBytes(parts);
  assert.ok(await pullSlice(pulled.port));
  pulled.port.close();
  const deadline = Date.now() + 10_000;
  while (parts.length && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
  assert.equal(parts.length, 0);
});

test('a worker that ends while the loop pulls ends the pull (undefined), no hang', async () => {
  const worker = new Worker(`
    const { parentPort, MessageChannel } = require('node:worker_threads');
    const { port1, port2 } = new MessageChannel();
    port1.on('message', () => process.exit(0));
    parentPort.postMessage(port2, [port2]);
  `, { eval: true });
  const port = await new Promise<import('node:worker_threads').MessagePort>((resolve) => worker.once('message', resolve));
  assert.equal(await pullSlice(port), undefined);
  port.close();
  assert.ok(pulledBytesFrom >= 1024 * 1024);
});
