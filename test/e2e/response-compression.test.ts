/**
 * APIResponseCompression against the real clients: an answer over 128 KiB
 * goes gzipped to a client that sends `Accept-Encoding: gzip` (kubectl and
 * client-go through Go's transport, @kubernetes/client-node through undici's
 * fetch, Helm), smaller answers and watches go as they are, and a client that
 * does not ask (`kubectl --disable-compression`, the Python client as it is)
 * gets identity.
 *
 * Go's transport decompresses what it asked for itself and drops
 * Content-Encoding and Content-Length from the headers `kubectl -v=9` prints;
 * `Vary: Accept-Encoding` (set only on a gzipped answer) and the missing
 * Content-Length show it there. The raw requests see Content-Encoding itself.
 */
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import https from 'node:https';
import { execFile, execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import type { IncomingHttpHeaders } from 'node:http';
import { CoreV1Api, KubeConfig } from './client-node-package.js';
import { startCluster, repoRoot, type Cluster } from './harness.js';
import { adminCredentials, apiServerOnly } from './helpers.js';

let cluster: Cluster;
let dir: string;
const configMaps = 60;
const dataChars = 3000;
const bigList = '/api/v1/namespaces/big/configmaps';

before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'k8ts-gzip-'));
  cluster = await startCluster(apiServerOnly);
  await cluster.kubectl(['create', 'namespace', 'big']);
  // 60 ConfigMaps of 3,000 random hex characters: a list of ~200 KB, over the 128 KiB threshold.
  const items = Array.from({ length: configMaps }, (_, i) => ({
    apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `cm-${String(i).padStart(3, '0')}` }, data: { blob: randomBytes(dataChars / 2).toString('hex') },
  }));
  await cluster.kubectl(['create', '-n', 'big', '-f', '-'], { input: JSON.stringify({ apiVersion: 'v1', kind: 'List', items }) });
});
after(async () => {
  await cluster?.cleanup();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

interface Raw { status: number; headers: IncomingHttpHeaders; body: Buffer }

/** One HTTPS request with exactly these headers; the body as the wire carried it. */
function raw(path: string, headers: Record<string, string>, method = 'GET'): Promise<Raw> {
  return new Promise((resolve, reject) => {
    const req = https.request(new URL(path, cluster.url), { method, headers, ...adminCredentials(cluster.kubeconfig), agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

/** The response headers `kubectl -v=9` logged for its last request, as name → value. */
function loggedResponseHeaders(stderr: string): Record<string, string> {
  const block = stderr.slice(stderr.lastIndexOf('Response Headers:'));
  const headers: Record<string, string> = {};
  for (const m of block.matchAll(/round_trippers\.go:\d+\]\s{4,}([A-Za-z-]+): (.*)$/gm)) headers[m[1]!.toLowerCase()] = m[2]!;
  return headers;
}

describe('gzipped API responses', () => {
  test('kubectl (Go\'s transport asks for gzip): a list over 128 KiB comes gzipped, a small one does not', async () => {
    const big = await cluster.kubectl(['get', '--raw', bigList, '-v=9']);
    assert.equal(JSON.parse(big.stdout).items.length, configMaps);
    const bigHeaders = loggedResponseHeaders(big.stderr);
    assert.equal(bigHeaders.vary, 'Accept-Encoding', JSON.stringify(bigHeaders));
    assert.equal(bigHeaders['content-length'], undefined);

    const small = await cluster.kubectl(['get', '--raw', '/api/v1/namespaces/default/configmaps', '-v=9']);
    const smallHeaders = loggedResponseHeaders(small.stderr);
    assert.equal(smallHeaders.vary, undefined, JSON.stringify(smallHeaders));
    assert.ok(Number(smallHeaders['content-length']) > 0);
  });

  test('kubectl get (a Table of the list) and get -o json read the gzipped answers', async () => {
    const table = await cluster.kubectl(['get', 'configmaps', '-n', 'big', '--no-headers']);
    assert.equal(table.stdout.trim().split('\n').length, configMaps);
    const json = JSON.parse((await cluster.kubectl(['get', 'configmaps', '-n', 'big', '-o', 'json'])).stdout);
    assert.equal(json.items.length, configMaps);
    assert.ok(json.items.every((cm: { data: { blob: string } }) => cm.data.blob.length === dataChars));
  });

  test('kubectl --disable-compression gets identity, with its Content-Length', async () => {
    const out = await cluster.kubectl(['--disable-compression', 'get', '--raw', bigList, '-v=9']);
    const headers = loggedResponseHeaders(out.stderr);
    assert.equal(headers.vary, undefined, JSON.stringify(headers));
    assert.equal(Number(headers['content-length']), Buffer.byteLength(out.stdout));
    assert.equal(JSON.parse(out.stdout).items.length, configMaps);
  });

  test('on the wire: Content-Encoding gzip and Vary for gzip, identity for q=0, identity or no header; the same text', async () => {
    const plain = await raw(bigList, { Accept: 'application/json' });
    assert.equal(plain.headers['content-encoding'], undefined);
    assert.ok(plain.body.length > 128 * 1024, `${plain.body.length} bytes`);
    const gz = await raw(bigList, { Accept: 'application/json', 'Accept-Encoding': 'gzip' });
    assert.equal(gz.headers['content-encoding'], 'gzip');
    assert.equal(gz.headers.vary, 'Accept-Encoding');
    assert.equal(gz.headers['content-length'], undefined);
    assert.deepEqual(JSON.parse(gunzipSync(gz.body).toString()), JSON.parse(plain.body.toString()));
    for (const refusal of ['gzip;q=0', 'identity']) {
      const got = await raw(bigList, { Accept: 'application/json', 'Accept-Encoding': refusal });
      assert.equal(got.headers['content-encoding'], undefined, refusal);
      assert.equal(got.headers['content-length'], String(got.body.length), refusal);
    }
  });

  test('protobuf lists (client-go\'s typed clients) are gzipped too', async () => {
    const accept = 'application/vnd.kubernetes.protobuf';
    const plain = await raw(bigList, { Accept: accept });
    const gz = await raw(bigList, { Accept: accept, 'Accept-Encoding': 'gzip' });
    assert.equal(gz.headers['content-type'], accept);
    assert.equal(gz.headers['content-encoding'], 'gzip');
    assert.ok(gunzipSync(gz.body).equals(plain.body));
  });

  test('HEAD gets the headers a GET would, without a body', async () => {
    const head = await raw(bigList, { Accept: 'application/json', 'Accept-Encoding': 'gzip' }, 'HEAD');
    assert.equal(head.status, 200);
    assert.equal(head.headers['content-encoding'], 'gzip');
    assert.equal(head.body.length, 0);
  });

  test('a watch is not compressed, even when its events add up to more than 128 KiB (as upstream\'s)', async () => {
    const lines = await new Promise<{ headers: IncomingHttpHeaders; lines: string[] }>((resolve, reject) => {
      const req = https.request(new URL(`${bigList}?watch=1&resourceVersion=0`, cluster.url),
        { headers: { Accept: 'application/json', 'Accept-Encoding': 'gzip' }, ...adminCredentials(cluster.kubeconfig), agent: false }, (res) => {
          let text = '';
          res.setEncoding('utf8');
          res.on('data', (d: string) => {
            text += d;
            const done = text.split('\n').filter((l) => l.startsWith('{'));
            if (done.length >= configMaps && text.endsWith('\n')) { resolve({ headers: res.headers, lines: done }); req.destroy(); }
          });
          res.on('error', () => { /* destroyed once read */ });
        });
      req.on('error', reject);
      req.end();
    });
    assert.equal(lines.headers['content-encoding'], undefined);
    assert.equal(lines.lines.length, configMaps);
    assert.ok(lines.lines.every((l) => JSON.parse(l).type === 'ADDED'));
  });

  test('@kubernetes/client-node (undici\'s fetch asks for gzip) lists the large list', async () => {
    const kc = new KubeConfig();
    kc.loadFromFile(cluster.kubeconfig);
    const list = await kc.makeApiClient(CoreV1Api).listNamespacedConfigMap({ namespace: 'big' });
    assert.equal(list.items.length, configMaps);
    assert.ok(list.items.every((cm) => cm.data?.blob?.length === dataChars));
  });

  test('the Python client lists it as it is (identity) and asking for gzip', async () => {
    const python = pythonWithClient();
    const out = await new Promise<string>((resolve, reject) => {
      execFile(python, [join(repoRoot, 'test', 'e2e', 'python', 'list_encodings.py'), cluster.kubeconfig, 'big'], { timeout: 120_000 },
        (err, stdout, stderr) => (err ? reject(new Error(`${err.message}\n${stderr}`)) : resolve(stdout)));
    });
    const want = { items: configMaps, bytes: configMaps * dataChars };
    assert.deepEqual(JSON.parse(out.trim().split('\n').pop()!), { identity: want, gzip: want });
  });

  test('Helm installs, lists, upgrades and uninstalls a release whose Secret is over 128 KiB', async () => {
    const helmBin = join(repoRoot, 'build', 'bin', 'helm');
    assert.ok(existsSync(helmBin), `${helmBin} is missing: run scripts/ci-setup-containerd.sh, which unpacks Helm`);
    const chart = join(dir, 'blob');
    mkdirSync(join(chart, 'templates'), { recursive: true });
    writeFileSync(join(chart, 'Chart.yaml'), 'apiVersion: v2\nname: blob\nversion: 0.1.0\n');
    writeFileSync(join(chart, 'values.yaml'), 'greeting: hello\n');
    // Random base64 does not compress: the release (chart and manifest, gzipped by Helm) stays large.
    writeFileSync(join(chart, 'templates', 'blob.yaml'), ['apiVersion: v1', 'kind: ConfigMap', 'metadata:', '  name: {{ .Release.Name }}-blob', 'data:',
      '  greeting: {{ .Values.greeting | quote }}', `  blob: ${randomBytes(120_000).toString('base64')}`, ''].join('\n'));
    const env = { ...process.env, KUBECONFIG: cluster.kubeconfig, HELM_CACHE_HOME: join(dir, 'cache'), HELM_CONFIG_HOME: join(dir, 'config'), HELM_DATA_HOME: join(dir, 'data') };
    const helm = (args: string[]) => new Promise<string>((resolve, reject) => {
      execFile(helmBin, args, { env, timeout: 120_000 }, (err, stdout, stderr) => (err ? reject(new Error(`helm ${args.join(' ')}: ${stderr}${stdout}`)) : resolve(stdout)));
    });
    assert.match(await helm(['install', 'blob', chart]), /STATUS: deployed\nREVISION: 1\n/);
    const secret = await cluster.kubectl(['get', '--raw', '/api/v1/namespaces/default/secrets/sh.helm.release.v1.blob.v1', '-v=9']);
    assert.ok(secret.stdout.length > 128 * 1024, `${secret.stdout.length} bytes`);
    assert.equal(loggedResponseHeaders(secret.stderr).vary, 'Accept-Encoding');
    assert.match(await helm(['list']), /blob\s+default\s+1\s+.*deployed\s+blob-0\.1\.0/);
    assert.match(await helm(['upgrade', 'blob', chart, '--set', 'greeting=bonjour']), /REVISION: 2\n/);
    assert.equal((await cluster.kubectl(['get', 'configmap', 'blob-blob', '-o', 'jsonpath={.data.greeting}'])).stdout, 'bonjour');
    assert.match(await helm(['uninstall', 'blob']), /release "blob" uninstalled/);
  });
});

/** A python3 that imports the client (Debian's dist-packages may be hidden by pyenv's shims, so /usr/bin/python3 comes first). */
function pythonWithClient(): string {
  for (const candidate of ['/usr/bin/python3', 'python3']) {
    try {
      execFileSync(candidate, ['-c', 'import kubernetes'], { stdio: 'ignore' });
      return candidate;
    } catch { /* try the next */ }
  }
  throw new Error('no python3 with the kubernetes client: install python3-kubernetes (scripts/ci-setup-containerd.sh)');
}
