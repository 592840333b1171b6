import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import zlib from 'node:zlib';
import { FrameReader, HeaderWriter, controlStreamId, controlType, dataFrame, pingFrame, synStreamFrame } from '../../src/util/spdy/frames.js';
import { plannedStreams } from '../../src/kubelet/server/v5-over-spdy.js';
import { forwardedPorts } from '../../src/kubelet/server/portforward.js';
import { kubeletPortForwardQuery, tunneledSPDYProtocols } from '../../src/apiserver/handlers/portforward.js';
import { HeaderReader, spdyDictionary as headerDictionary } from '../../src/util/spdy/header-reader.js';
import { terminalSize } from '../../src/kubelet/server/local-exec.js';

// spdy-transport's copy of the SPDY/3 header dictionary: an independent source for the DICTID.
const spdyDictionary: Record<number, Buffer> = createRequire(import.meta.url)('spdy-transport/lib/spdy-transport/protocol/spdy/dictionary.js');

/** Decodes SPDY/3 name/value blocks the way a peer does: one zlib stream, primed with the dictionary. */
function decodeBlocks(blocks: Buffer[]): Record<string, string>[] {
  const all = zlib.inflateSync(Buffer.concat(blocks), { dictionary: spdyDictionary[3], finishFlush: zlib.constants.Z_SYNC_FLUSH });
  const out: Record<string, string>[] = [];
  let off = 0;
  while (off < all.length) {
    const n = all.readUInt32BE(off); off += 4;
    const h: Record<string, string> = {};
    for (let i = 0; i < n; i++) {
      const nl = all.readUInt32BE(off); off += 4;
      const name = all.subarray(off, off + nl).toString(); off += nl;
      const vl = all.readUInt32BE(off); off += 4;
      h[name] = all.subarray(off, off + vl).toString(); off += vl;
    }
    out.push(h);
  }
  return out;
}

test('header blocks form one zlib stream with the SPDY/3 dictionary, each ending in a sync flush', () => {
  const w = new HeaderWriter();
  const first = w.block({ streamType: 'error' });
  const second = w.block({ streamtype: 'stdin', port: '8080' });
  assert.deepEqual(decodeBlocks([first, second]), [{ streamtype: 'error' }, { streamtype: 'stdin', port: '8080' }]);
  assert.deepEqual([...first.subarray(0, 2)], [0x78, 0x20], 'zlib header naming a preset dictionary');
  assert.deepEqual([...second.subarray(-5)], [0, 0, 0, 0xff, 0xff], 'each block ends where a sync flush would');
  const big = w.block({ x: 'y'.repeat(70_000) });
  assert.equal(decodeBlocks([first, second, big])[2]!.x!.length, 70_000, 'blocks over 64 KiB span several stored blocks');
});

test('frames round-trip through the reader, split anywhere', () => {
  const bytes = Buffer.concat([synStreamFrame(3, new HeaderWriter().block({ a: 'b' })), dataFrame(3, Buffer.from('hello')), dataFrame(3, Buffer.alloc(0), true), pingFrame(2)]);
  for (const cut of [1, 7, 8, 20, bytes.length - 1]) {
    const r = new FrameReader();
    const frames = [...r.push(bytes.subarray(0, cut)), ...r.push(bytes.subarray(cut))];
    assert.equal(frames.length, 4);
    const [syn, data, fin, ping] = frames;
    assert.ok(syn!.control && syn.type === controlType.synStream && controlStreamId(syn.payload) === 3);
    assert.ok(!data!.control && data.streamId === 3 && data.data.toString() === 'hello' && data.flags === 0);
    assert.ok(!fin!.control && fin.flags === 1 && fin.data.length === 0);
    assert.ok(ping!.control && ping.type === controlType.ping && ping.payload.readUInt32BE(0) === 2);
  }
  assert.throws(() => new FrameReader(100).push(dataFrame(1, Buffer.alloc(200))), /too large/);
});

test('remotecommand streams in upstream order with odd client IDs', () => {
  assert.deepEqual(plannedStreams({ stdin: true, stdout: true, stderr: true, tty: false }).map((s) => `${s.type}:${s.id}`), ['error:1', 'stdin:3', 'stdout:5', 'stderr:7']);
  // A terminal merges stderr into stdout and adds the resize stream.
  assert.deepEqual(plannedStreams({ stdin: true, stdout: true, stderr: true, tty: true }).map((s) => s.type), ['error', 'stdin', 'stdout', 'resize']);
  assert.deepEqual(plannedStreams({ stdin: false, stdout: true, stderr: false, tty: false }).map((s) => s.type), ['error', 'stdout']);
});

test('port-forward parameters', () => {
  assert.equal(kubeletPortForwardQuery(new URLSearchParams('ports=80&ports=8080,9090')).toString(), 'port=80&port=8080&port=9090');
  assert.deepEqual(forwardedPorts(new URLSearchParams('port=80&port=8080,9090')), [80, 8080, 9090]);
  assert.match(String(forwardedPorts(new URLSearchParams('port=0'))), /unable to parse "0" as a port/);
  assert.match(String(forwardedPorts(new URLSearchParams('port=http'))), /unable to parse "http" as a port/);
  assert.deepEqual(tunneledSPDYProtocols(['SPDY/3.1+portforward.k8s.io', 'v4.channel.k8s.io', 'SPDY/3.1+other.example']), ['portforward.k8s.io']);
});

test('header-reader: the dictionary is SPDY/3\'s (its Adler-32 is the DICTID the writer names)', () => {
  let a = 1;
  let b = 0;
  for (const byte of headerDictionary) { a = (a + byte) % 65521; b = (b + a) % 65521; }
  assert.equal(headerDictionary.length, 1423);
  assert.equal(((b << 16) | a) >>> 0, 0xe3c6a7c2);
});

test('header-reader: reads the blocks of one direction in turn, as a peer compressed them (one zlib stream, sync flushes)', async () => {
  const z = zlib.createDeflate({ dictionary: spdyDictionary[3] });
  const u32 = (n: number) => { const x = Buffer.alloc(4); x.writeUInt32BE(n, 0); return x; };
  const raw = (h: Record<string, string>) => Buffer.concat([u32(Object.keys(h).length), ...Object.entries(h).flatMap(([k, v]) => [u32(k.length), Buffer.from(k), u32(v.length), Buffer.from(v)])]);
  const reader = new HeaderReader();
  for (const h of [{ streamtype: 'error', port: '8080', requestid: '0' }, { streamtype: 'data', port: '8080', requestid: '0' }]) {
    const out: Buffer[] = [];
    const onData = (d: Buffer) => out.push(d);
    z.on('data', onData);
    z.write(raw(h));
    await new Promise<void>((r) => z.flush(zlib.constants.Z_SYNC_FLUSH, () => r()));
    z.off('data', onData);
    assert.deepEqual(reader.block(Buffer.concat(out)), h);
  }
  // Our own writer's blocks read back too.
  const w = new HeaderWriter();
  const mine = new HeaderReader();
  assert.deepEqual(mine.block(w.block({ a: '1' })), { a: '1' });
  assert.deepEqual(mine.block(w.block({ streamType: 'data' })), { streamtype: 'data' });
});

test('local exec: terminal sizes from channel 4', () => {
  assert.deepEqual(terminalSize(Buffer.from('{"Width":101,"Height":33}')), { cols: 101, rows: 33 });
  assert.equal(terminalSize(Buffer.from('{"Width":0,"Height":33}')), undefined);
  assert.equal(terminalSize(Buffer.from('nope')), undefined);
});
