/**
 * Container logs: the CRI log format, the PodLogOptions rules (tail, since,
 * timestamps, limitBytes, partial lines), following a file while its
 * container runs, which container instance a request reads, and the query
 * rules shared by the API server and the kubelet.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { appendFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { parseCRILogLine, formatCRILogLines, fixedNanoTimestamp, LogWriter, tailLineStart, readCRILog, type ContainerLogOptions } from '../../src/kubelet/logs/index.js';
import { containerForLogs } from '../../src/kubelet/server/logstatus.js';
import { parsePodLogQuery, validatePodLogQuery, streamContainer, kubeletLogQuery } from '../../src/api/podlogs.js';
import { kubeletEndpoint } from '../../src/api/kubelet-endpoint.js';
import { fieldErrorMessage } from '../../src/api/field-errors.js';

const opts = (o: Partial<ContainerLogOptions> = {}): ContainerLogOptions => ({ follow: false, timestamps: false, ...o });
const lines = (...l: string[]) => l.map((x) => `${x}\n`).join('');
const t1 = '2024-05-01T10:00:00.123456789Z';
const t2 = '2024-05-01T10:00:01.5Z';
const t3 = '2024-05-01T10:00:02Z';

function tempFile(content: string): { path: string; done(): void } {
  const dir = mkdtempSync(join(tmpdir(), 'k8ts-logs-'));
  const path = join(dir, '0.log');
  writeFileSync(path, content);
  return { path, done: () => rmSync(dir, { recursive: true, force: true }) };
}

async function readAll(s: Readable): Promise<string> {
  let out = '';
  for await (const c of s) out += c;
  return out;
}

describe('CRI log lines', () => {
  it('parses full and partial lines and refuses what is not the format', () => {
    const full = parseCRILogLine(Buffer.from(`${t1} stdout F hello world\n`))!;
    assert.deepEqual([full.timestamp, full.stream, full.partial, full.content.toString()], [t1, 'stdout', false, 'hello world\n']);
    const part = parseCRILogLine(Buffer.from(`${t1} stderr P half\n`))!;
    assert.deepEqual([part.stream, part.partial, part.content.toString()], ['stderr', true, 'half']);
    assert.equal(parseCRILogLine(Buffer.from(`${t1} stdout F:x tagged\n`))!.content.toString(), 'tagged\n');
    assert.equal(parseCRILogLine(Buffer.from(`${t1} stdout F \n`))!.content.toString(), '\n');
    for (const bad of ['', 'garbage', `${t1} stdin F x`, `${t1} stdout X x`, `notatime stdout F x`, `${t1} stdout`]) {
      assert.equal(parseCRILogLine(Buffer.from(bad)), undefined, bad);
    }
  });

  it('writes one full line per line of text and a partial line for an unfinished one', () => {
    const d = new Date('2024-05-01T10:00:00.120Z');
    assert.equal(formatCRILogLines(d, 'stdout', 'a\nb\n'), '2024-05-01T10:00:00.12Z stdout F a\n2024-05-01T10:00:00.12Z stdout F b\n');
    assert.equal(formatCRILogLines(d, 'stderr', 'x\ny'), '2024-05-01T10:00:00.12Z stderr F x\n2024-05-01T10:00:00.12Z stderr P y\n');
  });

  it('prints timestamps as RFC3339NanoFixed', () => {
    assert.equal(fixedNanoTimestamp(t1), t1);
    assert.equal(fixedNanoTimestamp(t2), '2024-05-01T10:00:01.500000000Z');
    assert.equal(fixedNanoTimestamp(t3), '2024-05-01T10:00:02.000000000Z');
    assert.equal(fixedNanoTimestamp('2024-05-01T12:00:02.1+02:00'), '2024-05-01T12:00:02.100000000+02:00');
  });
});

describe('LogWriter: since, timestamps, partial lines, limitBytes', () => {
  const file = [`${t1} stdout F one`, `${t2} stdout P tw`, `${t2} stdout F o`, `${t3} stderr F three`];
  const run = (o: Partial<ContainerLogOptions>) => {
    const w = new LogWriter(opts(o));
    return Buffer.concat(file.map((l) => w.write(Buffer.from(`${l}\n`)))).toString();
  };
  const cases: [string, Partial<ContainerLogOptions>, string][] = [
    ['everything', {}, 'one\ntwo\nthree\n'],
    ['a partial line is joined with its end', {}, 'one\ntwo\nthree\n'],
    ['timestamps only at the start of an output line', { timestamps: true },
      `${t1} one\n2024-05-01T10:00:01.500000000Z two\n2024-05-01T10:00:02.000000000Z three\n`],
    ['since drops older lines', { since: new Date('2024-05-01T10:00:01Z') }, 'two\nthree\n'],
    ['since equal to a line keeps it', { since: new Date('2024-05-01T10:00:02Z') }, 'three\n'],
    ['limitBytes cuts the output short', { limitBytes: 6 }, 'one\ntw'],
    ['limitBytes counts the timestamps', { limitBytes: 10, timestamps: true }, '2024-05-01'],
  ];
  for (const [name, o, want] of cases) it(name, () => assert.equal(run(o), want));

  it('is done once the limit is reached, and skips lines not in the format', () => {
    const w = new LogWriter(opts({ limitBytes: 3 }));
    assert.equal(w.write(Buffer.from('not a log line\n')).length, 0);
    assert.equal(w.done, false);
    assert.equal(w.write(Buffer.from(`${t1} stdout F abcdef\n`)).toString(), 'abc');
    assert.equal(w.done, true);
    assert.equal(w.write(Buffer.from(`${t1} stdout F more\n`)).length, 0);
  });
});

describe('tailLineStart', () => {
  const cases: [string, string, number, string][] = [
    ['last two of three', lines('a', 'b', 'c'), 2, lines('b', 'c')],
    ['more than there are', lines('a', 'b'), 5, lines('a', 'b')],
    ['zero lines', lines('a', 'b'), 0, ''],
    ['an incomplete last line is not counted', `${lines('a', 'b')}c`, 1, 'b\nc'],
    ['empty file', '', 3, ''],
    ['across blocks', lines(...Array.from({ length: 400 }, (_, i) => `line-${i}`)), 3, lines('line-397', 'line-398', 'line-399')],
  ];
  for (const [name, content, n, want] of cases) {
    it(name, async () => {
      const f = tempFile(content);
      const fh = await open(f.path, 'r');
      try {
        const start = await tailLineStart(fh, n);
        assert.equal(content.slice(start), want);
      } finally {
        await fh.close();
        f.done();
      }
    });
  }
});

describe('readCRILog', () => {
  it('reads the file once with tail and timestamps; a missing file is empty', async () => {
    const f = tempFile(lines(`${t1} stdout F one`, `${t2} stdout F two`, `${t3} stdout F three`));
    try {
      assert.equal(await readAll(readCRILog(f.path, opts({ tailLines: 2 }), { isRunning: () => true })), 'two\nthree\n');
      assert.equal(await readAll(readCRILog(join(f.path, '..', 'none.log'), opts(), { isRunning: () => true })), '');
    } finally { f.done(); }
  });

  it('follows while the container runs, holds back an incomplete line, and ends with the container', async () => {
    const f = tempFile(lines(`${t1} stdout F one`));
    let running = true;
    try {
      const stream = readCRILog(f.path, opts({ follow: true }), { isRunning: () => running }, { recheckMs: 50 });
      let got = '';
      const waitFor = (s: string) => new Promise<void>((resolve) => {
        const check = () => { if (got.includes(s)) { stream.off('data', onData); resolve(); } };
        const onData = (c: Buffer) => { got += c; check(); };
        stream.on('data', onData);
        check();
      });
      const ended = new Promise<void>((r) => stream.once('end', r));
      await waitFor('one\n');
      appendFileSync(f.path, `${t2} stdout F two\n${t3} stdout F thr`);
      await waitFor('two\n');
      assert.equal(got, 'one\ntwo\n', 'the unfinished line waits for its end');
      appendFileSync(f.path, 'ee\n');
      await waitFor('three\n');
      appendFileSync(f.path, `${t3} stdout F last words\n`);
      running = false;
      stream.resume();
      stream.on('data', (c: Buffer) => { got += c; });
      await ended;
      assert.equal(got, 'one\ntwo\nthree\nlast words\n');
    } finally { f.done(); }
  });

  it('stops at once when destroyed while waiting for more', async () => {
    const f = tempFile(lines(`${t1} stdout F one`));
    try {
      const stream = readCRILog(f.path, opts({ follow: true }), { isRunning: () => true }, { recheckMs: 60_000 });
      await new Promise<void>((r) => stream.once('data', () => r()));
      const closed = new Promise<void>((r) => stream.once('close', r));
      const started = Date.now();
      stream.destroy();
      await closed;
      assert.ok(Date.now() - started < 1000);
    } finally { f.done(); }
  });
});

describe('containerForLogs (validateContainerLogStatus)', () => {
  const status = (cs: any) => ({ containerStatuses: [{ name: 'c', image: 'x', imageID: '', ready: false, restartCount: 0, ...cs }] });
  const cases: [string, any, boolean, any][] = [
    ['running: the current instance', status({ containerID: 'sim://1', state: { running: {} } }), false, { containerID: 'sim://1' }],
    ['previous: the last terminated one', status({ containerID: 'sim://2', state: { running: {} }, lastState: { terminated: { containerID: 'sim://1', exitCode: 1 } } }), true, { containerID: 'sim://1' }],
    ['previous without one', status({ containerID: 'sim://1', state: { running: {} } }), true, { error: 'previous terminated container "c" in pod "p" not found' }],
    ['terminated', status({ state: { terminated: { containerID: 'sim://3', exitCode: 0 } } }), false, { containerID: 'sim://3' }],
    ['terminated, never started again', status({ state: { terminated: { exitCode: 0 } }, lastState: { terminated: { containerID: 'sim://1', exitCode: 0 } } }), false, { containerID: 'sim://1' }],
    ['terminated with no instance', status({ state: { terminated: { exitCode: 0 } } }), false, { error: 'container "c" in pod "p" is terminated' }],
    ['waiting', status({ state: { waiting: { reason: 'ContainerCreating' } } }), false, { error: 'container "c" in pod "p" is waiting to start: ContainerCreating' }],
    ['waiting on an image', status({ state: { waiting: { reason: 'ImagePullBackOff' } } }), false, { error: 'container "c" in pod "p" is waiting to start: trying and failing to pull image' }],
    ['crash loop: the last instance', status({ state: { waiting: { reason: 'CrashLoopBackOff' } }, lastState: { terminated: { containerID: 'sim://9', exitCode: 1 } } }), false, { containerID: 'sim://9' }],
    ['no state yet', status({}), false, { error: 'container "c" in pod "p" is waiting to start - no logs yet' }],
    ['no status', { containerStatuses: [] }, false, { error: 'container "c" in pod "p" is not available' }],
  ];
  for (const [name, st, previous, want] of cases) it(name, () => assert.deepEqual(containerForLogs('p', st, 'c', previous), want));
});

describe('PodLogOptions from a query', () => {
  const q = (s: string) => parsePodLogQuery(new URLSearchParams(s));
  it('booleans as the parameter codec reads them', () => {
    assert.equal(q('').follow, false);
    for (const v of ['true', '1', '', 'yes', 'True']) assert.equal(q(`follow=${v}`).follow, true, v);
    for (const v of ['false', 'FALSE', 'f', 'F', '0']) assert.equal(q(`follow=${v}`).follow, false, v);
  });

  it('integers and sinceTime; bad ones are 400s in Go\'s words', () => {
    const o = q('tailLines=5&limitBytes=10&sinceSeconds=&sinceTime=2024-01-02T03:04:05Z&container=c');
    assert.deepEqual([o.tailLines, o.limitBytes, o.sinceSeconds, o.sinceTime?.toISOString(), o.container], [5n, 10n, undefined, '2024-01-02T03:04:05.000Z', 'c']);
    assert.throws(() => q('tailLines=1.5'), /strconv.ParseInt: parsing "1.5": invalid syntax/);
    assert.throws(() => q('sinceTime=yesterday'), /parsing time "yesterday"/);
  });

  it('validation, in upstream\'s order and words', () => {
    const msgs = (s: string) => validatePodLogQuery(q(s)).map(fieldErrorMessage);
    assert.deepEqual(msgs('tailLines=0&limitBytes=1&sinceSeconds=1'), []);
    assert.deepEqual(msgs('tailLines=-1'), ['tailLines: Invalid value: -1: must be greater than or equal to 0']);
    assert.deepEqual(msgs('limitBytes=0'), ['limitBytes: Invalid value: 0: must be greater than 0']);
    assert.deepEqual(msgs('sinceSeconds=0'), ['sinceSeconds: Invalid value: 0: must be greater than 0']);
    assert.deepEqual(msgs('sinceSeconds=5&sinceTime=2024-01-02T03:04:05Z'), [': Forbidden: at most one of `sinceTime` or `sinceSeconds` may be specified']);
  });

  it('what the API server forwards to the kubelet', () => {
    assert.equal(kubeletLogQuery(q('follow=1&tailLines=3&container=c&sinceTime=2024-01-02T03:04:05.9Z')).toString(), 'follow=true&sinceTime=2024-01-02T03%3A04%3A05Z&tailLines=3');
  });
});

describe('streamContainer (validateContainer)', () => {
  const pod = (containers: string[], init: string[] = []) => ({
    metadata: { name: 'p' }, spec: { containers: containers.map((name) => ({ name })), initContainers: init.map((name) => ({ name })) },
  });
  it('defaults to the only container and checks a named one', () => {
    assert.equal(streamContainer(pod(['a']), undefined), 'a');
    assert.equal(streamContainer(pod(['a', 'b'], ['i']), 'i'), 'i');
    assert.throws(() => streamContainer(pod(['a']), 'z'), /^Error: container z is not valid for pod p$/);
    assert.throws(() => streamContainer(pod([]), undefined), /^Error: a container name must be specified for pod p$/);
    assert.throws(() => streamContainer(pod(['a', 'b'], ['i']), undefined), /^Error: a container name must be specified for pod p, choose one of: \[i a b\]$/);
  });
});

describe('kubeletEndpoint', () => {
  it('prefers InternalIP, then ExternalIP, then Hostname; the reported port or 10250', () => {
    const node = (addresses: any[], port?: number) => ({ status: { addresses, ...(port !== undefined ? { daemonEndpoints: { kubeletEndpoint: { Port: port } } } : {}) } });
    assert.deepEqual(kubeletEndpoint(node([{ type: 'Hostname', address: 'n' }, { type: 'InternalIP', address: '10.0.0.1' }], 12345)), { host: '10.0.0.1', port: 12345 });
    assert.deepEqual(kubeletEndpoint(node([{ type: 'Hostname', address: 'n' }, { type: 'ExternalIP', address: '1.2.3.4' }], 0)), { host: '1.2.3.4', port: 10250 });
    assert.deepEqual(kubeletEndpoint(node([{ type: 'Hostname', address: 'n' }])), { host: 'n', port: 10250 });
    assert.deepEqual(kubeletEndpoint(node([{ type: 'InternalDNS', address: 'n.local' }])), { error: 'no preferred addresses found; known addresses: [{InternalDNS n.local}]' });
  });

  it('never dials a simulated node that advertises port 0 (it has no kubelet API)', () => {
    const simulated = (port?: number, value = 'true') => ({
      metadata: { name: 'sim-node-1', annotations: { 'k8ts.io/simulated': value } },
      status: { addresses: [{ type: 'InternalIP', address: '172.16.0.11' }], ...(port !== undefined ? { daemonEndpoints: { kubeletEndpoint: { Port: port } } } : {}) },
    });
    const reason = { error: 'node "sim-node-1" is simulated by k8ts and serves no kubelet API: no container runs there' };
    assert.deepEqual(kubeletEndpoint(simulated(0)), reason);
    assert.deepEqual(kubeletEndpoint(simulated()), reason);
    assert.deepEqual(kubeletEndpoint(simulated(41000)), { host: '172.16.0.11', port: 41000 });
    assert.deepEqual(kubeletEndpoint(simulated(0, 'false')), { host: '172.16.0.11', port: 10250 });
  });
});
