/**
 * ResourceClient.watch cuts the stream's bytes into lines and decodes each once: every event
 * arrives whole and in order however the chunks split it (between lines, inside one, inside a
 * multi-byte UTF-8 character, over many chunks), blank lines are skipped, and a line left
 * unfinished when the stream ends is not delivered.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import type { IncomingMessage } from 'node:http';
import { ResourceClient, type WatchEvent } from '../../src/client/resource.js';
import type { RestClient } from '../../src/client/rest.js';

const events: WatchEvent[] = [
  { type: 'ADDED', object: { metadata: { name: 'a', annotations: { note: 'café 日本語 🚀' } } } },
  { type: 'MODIFIED', object: { metadata: { name: 'b', managedFields: [{ manager: 'm', fieldsV1: { 'f:spec': {} } }] }, spec: { nodeName: 'n-1' } } },
  { type: 'DELETED', object: { metadata: { name: 'c' }, data: { x: 'line\nbreak "quoted" \\ é' } } },
];
const text = events.map((e) => JSON.stringify(e)).join('\n') + '\n';
const bytes = Buffer.from(text, 'utf8');

/** Cut points (byte offsets) of each case; every multi-byte character of the text is cut somewhere in "every byte". */
const cases: Array<[string, number[]]> = [
  ['one chunk', []],
  ['at each newline', [...text.matchAll(/\n/g)].map((m) => Buffer.byteLength(text.slice(0, m.index! + 1)))],
  ['just before each newline', [...text.matchAll(/\n/g)].map((m) => Buffer.byteLength(text.slice(0, m.index!)))],
  ['every 7 bytes', Array.from({ length: Math.floor(bytes.length / 7) }, (_, i) => (i + 1) * 7)],
  ['every byte', Array.from({ length: bytes.length - 1 }, (_, i) => i + 1)],
];

function chunksOf(buf: Buffer, cuts: number[]): Buffer[] {
  const out: Buffer[] = [];
  let at = 0;
  for (const c of [...cuts, buf.length]) { if (c > at) out.push(buf.subarray(at, c)); at = c; }
  return out;
}

async function watchChunks(chunks: Buffer[], skipManagedFields: boolean): Promise<WatchEvent[]> {
  const stream = Object.assign(new PassThrough(), { statusCode: 200 });
  const rest = { raw: async () => stream as unknown as IncomingMessage } as unknown as RestClient;
  const client = new ResourceClient(rest, { group: '', version: 'v1', resource: 'pods', namespaced: true });
  const seen: WatchEvent[] = [];
  const handle = await client.watch('default', {}, (e) => seen.push(e), { skipManagedFields });
  for (const c of chunks) stream.write(c);
  stream.end();
  await handle.done;
  return seen;
}

for (const [name, cuts] of cases) {
  test(`watch lines: ${name}`, async () => {
    assert.deepEqual(await watchChunks(chunksOf(bytes, cuts), false), events);
  });
}

test('watch lines: managedFields skipped when asked, the rest as sent', async () => {
  const seen = await watchChunks(chunksOf(bytes, [5, 40, 41, 42, 120]), true);
  const expected = structuredClone(events);
  delete expected[1].object.metadata.managedFields;
  assert.deepEqual(seen.map((e) => JSON.parse(JSON.stringify(e))), expected);
});

test('watch lines: blank lines are skipped and an unfinished last line is not delivered', async () => {
  const withBlanks = Buffer.from(`\n${JSON.stringify(events[0])}\n\n  \n${JSON.stringify(events[1])}\n{"type":"ADDED","obj`, 'utf8');
  assert.deepEqual(await watchChunks(chunksOf(withBlanks, [1, 3, 60]), false), events.slice(0, 2));
});
