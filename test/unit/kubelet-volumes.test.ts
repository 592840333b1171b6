import { describe, it, after } from 'node:test';
import assert from 'node:assert/strict';
import { lstatSync, mkdtempSync, readFileSync, readdirSync, readlinkSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ConfigMap, Pod, Secret, Volume } from 'kubernetes-types/core/v1.js';
import { volumePayload, type Payload } from '../../src/kubelet/volumes/projection.js';
import { writeAtomically } from '../../src/kubelet/volumes/atomic-writer.js';
import { podFieldValue, resourceFieldValue } from '../../src/kubelet/volumes/downward.js';
import { MountError, type PodObjectGetter } from '../../src/kubelet/volumes/objects.js';
import { EnvSourceError, fetchEnvSources } from '../../src/kubelet/envsources.js';
import { containerEnv } from '../../src/kubelet/runtime/cri/config.js';

const notFound = (what: string) => Object.assign(new Error(`${what} not found`), { code: 404 });
const configMaps: Record<string, ConfigMap> = {
  game: { data: { a: 'A', 'b.txt': 'B' }, binaryData: { bin: Buffer.from([1, 2]).toString('base64') } },
};
const secrets: Record<string, Secret> = { creds: { data: { pw: Buffer.from('s3').toString('base64') } } };
const getter: PodObjectGetter = {
  claim: () => Promise.reject(notFound('claim')), volume: () => Promise.reject(notFound('volume')),
  configMap: async (_ns, name) => configMaps[name] ?? Promise.reject(notFound(name)),
  secret: async (_ns, name) => secrets[name] ?? Promise.reject(notFound(name)),
};
const pod: Pod = {
  metadata: { name: 'p', namespace: 'ns', uid: 'u1', labels: { b: '2', a: 'x"y' }, annotations: { note: 'hi' } },
  spec: { containers: [{ name: 'c', resources: { limits: { cpu: '1500m', memory: '100Mi' }, requests: { cpu: '250m' } } }] },
};
const node = { cpu: '4', memory: '8Gi' };
const files = (p: Payload) => Object.fromEntries([...p].map(([k, f]) => [k, `${f.data.toString('hex')}/${f.mode.toString(8)}`]));
const hex = (s: string) => Buffer.from(s).toString('hex');

describe('volumePayload', () => {
  const cases: { name: string; volume: Volume; want?: Record<string, string>; error?: string }[] = [
    { name: 'configMap: every key of data and binaryData, mode 0644', volume: { name: 'v', configMap: { name: 'game' } }, want: { a: `${hex('A')}/644`, 'b.txt': `${hex('B')}/644`, bin: '0102/644' } },
    { name: 'configMap items with a path and a mode; defaultMode for the rest', volume: { name: 'v', configMap: { name: 'game', defaultMode: 0o600, items: [{ key: 'a', path: 'dir/a' }, { key: 'b.txt', path: 'b', mode: 0o400 }] } }, want: { 'dir/a': `${hex('A')}/600`, b: `${hex('B')}/400` } },
    { name: 'a missing configMap', volume: { name: 'v', configMap: { name: 'nope' } }, error: 'MountVolume.SetUp failed for volume "v" : configmap "nope" not found' },
    { name: 'a missing optional configMap is an empty volume', volume: { name: 'v', configMap: { name: 'nope', optional: true } }, want: {} },
    { name: 'a missing key', volume: { name: 'v', configMap: { name: 'game', items: [{ key: 'zz', path: 'z' }] } }, error: 'MountVolume.SetUp failed for volume "v" : configmap references non-existent config key: zz' },
    { name: 'secret: decoded bytes', volume: { name: 'v', secret: { secretName: 'creds', defaultMode: 0o400 } }, want: { pw: `${hex('s3')}/400` } },
    { name: 'a missing secret', volume: { name: 'v', secret: { secretName: 'gone' } }, error: 'MountVolume.SetUp failed for volume "v" : secret "gone" not found' },
    { name: 'a missing secret key', volume: { name: 'v', secret: { secretName: 'creds', items: [{ key: 'x', path: 'x' }] } }, error: 'MountVolume.SetUp failed for volume "v" : references non-existent secret key: x' },
    {
      name: 'downwardAPI: sorted labels, one annotation, a limit in units of its divisor', volume: {
        name: 'v', downwardAPI: {
          items: [
            { path: 'labels', fieldRef: { fieldPath: 'metadata.labels' } }, { path: 'note', fieldRef: { fieldPath: "metadata.annotations['note']" } },
            { path: 'cpu', resourceFieldRef: { containerName: 'c', resource: 'limits.cpu' } },
          ],
        },
      }, want: { labels: `${hex('a="x\\"y"\nb="2"')}/644`, note: `${hex('hi')}/644`, cpu: `${hex('2')}/644` },
    },
    {
      name: 'projected: sources together under its defaultMode', volume: {
        name: 'v', projected: { defaultMode: 0o440, sources: [{ configMap: { name: 'game', items: [{ key: 'a', path: 'a' }] } }, { secret: { name: 'creds' } }, { downwardAPI: { items: [{ path: 'n', fieldRef: { fieldPath: 'metadata.name' } }] } }] },
      }, want: { a: `${hex('A')}/440`, pw: `${hex('s3')}/440`, n: `${hex('p')}/440` },
    },
    { name: 'projected service account tokens need a token source', volume: { name: 'v', projected: { sources: [{ serviceAccountToken: { path: 'token' } }] } }, error: 'MountVolume.SetUp failed for volume "v" : serviceAccountToken volumes need the API server' },
    { name: 'an item path may not climb out of the volume', volume: { name: 'v', configMap: { name: 'game', items: [{ key: 'a', path: '../a' }] } }, error: 'MountVolume.SetUp failed for volume "v" : invalid path "../a"' },
  ];
  for (const c of cases) {
    it(c.name, async () => {
      const got = volumePayload(pod, c.volume, getter, node);
      if (c.error) await assert.rejects(got, (e: Error) => e instanceof MountError && e.message === c.error);
      else assert.deepEqual(files(await got), c.want);
    });
  }
});

describe('downward API values', () => {
  it('resourceFieldValue rounds up in units of the divisor; unset limits are the node, unset requests 0', () => {
    const c = pod.spec!.containers[0];
    assert.equal(resourceFieldValue(c, 'limits.cpu', '1m', node), '1500');
    assert.equal(resourceFieldValue(c, 'limits.cpu', undefined, node), '2');
    assert.equal(resourceFieldValue(c, 'requests.cpu', '1m', node), '250');
    assert.equal(resourceFieldValue(c, 'limits.memory', '1Mi', node), '100');
    assert.equal(resourceFieldValue(c, 'limits.memory', '1Gi', node), '1');
    assert.equal(resourceFieldValue({ name: 'x' }, 'limits.memory', '1Gi', node), '8');
    assert.equal(resourceFieldValue({ name: 'x' }, 'requests.memory', undefined, node), '0');
  });
  it('podFieldValue knows upstream paths only', () => {
    assert.equal(podFieldValue(pod, 'metadata.uid'), 'u1');
    assert.equal(podFieldValue(pod, "metadata.labels['b']"), '2');
    assert.equal(podFieldValue(pod, 'spec.nodeName'), undefined);
  });
});

describe('writeAtomically', () => {
  const dir = mkdtempSync(join(tmpdir(), 'k8ts-atomic-'));
  after(() => rmSync(dir, { recursive: true, force: true }));
  const payload = (entries: [string, string, number][]): Payload => new Map(entries.map(([p, d, m]) => [p, { data: Buffer.from(d), mode: m }]));

  it('writes a timestamped directory behind ..data and a link per top-level name', () => {
    assert.equal(writeAtomically(dir, payload([['a', '1', 0o644], ['sub/b', '2', 0o600]])), true);
    const data = readlinkSync(join(dir, '..data'));
    assert.match(data, /^\.\.\d{4}_\d\d_\d\d_\d\d_\d\d_\d\d\.\d+$/);
    assert.equal(readlinkSync(join(dir, 'a')), join('..data', 'a'));
    assert.equal(readFileSync(join(dir, 'sub', 'b'), 'utf8'), '2');
    assert.equal(statSync(join(dir, 'sub', 'b')).mode & 0o777, 0o600);
    assert.deepEqual(readdirSync(dir).sort(), ['..data', data, 'a', 'sub'].sort());
  });

  it('writes nothing when the payload is unchanged', () => {
    const before = readlinkSync(join(dir, '..data'));
    assert.equal(writeAtomically(dir, payload([['a', '1', 0o644], ['sub/b', '2', 0o600]])), false);
    assert.equal(readlinkSync(join(dir, '..data')), before);
  });

  it('swaps in a new version and drops the old one and names no longer present', () => {
    const before = readlinkSync(join(dir, '..data'));
    assert.equal(writeAtomically(dir, payload([['a', 'changed', 0o644], ['c', '3', 0o644]])), true);
    const now = readlinkSync(join(dir, '..data'));
    assert.notEqual(now, before);
    assert.equal(readFileSync(join(dir, 'a'), 'utf8'), 'changed');
    assert.ok(lstatSync(join(dir, 'c')).isSymbolicLink());
    assert.deepEqual(readdirSync(dir).sort(), ['..data', now, 'a', 'c'].sort());
  });
});

describe('environment from ConfigMaps and Secrets', () => {
  const ctx = { nodeName: 'n', podLogsDir: '/tmp', hostIP: '127.0.0.1', allocatable: node };
  it('envFrom first (with its prefix), then env, which wins and expands what came before', async () => {
    const c = {
      name: 'c', envFrom: [{ configMapRef: { name: 'game' }, prefix: 'G_' }, { secretRef: { name: 'creds' } }],
      env: [{ name: 'G_a', value: 'over $(pw)' }, { name: 'K', valueFrom: { configMapKeyRef: { name: 'game', key: 'bin' } } }, { name: 'CPU', valueFrom: { resourceFieldRef: { resource: 'requests.cpu', divisor: '1m', containerName: 'c' } } }],
    };
    const sources = await fetchEnvSources('ns', c, getter);
    const env = containerEnv(pod, c, ctx, undefined, sources);
    assert.deepEqual(env, [
      { key: 'G_a', value: 'over s3' }, { key: 'G_b.txt', value: 'B' }, { key: 'pw', value: 's3' }, { key: 'K', value: '\u0001\u0002' }, { key: 'CPU', value: '250' },
    ]);
  });
  it('a missing object is an error unless optional; a missing key names the object', async () => {
    await assert.rejects(fetchEnvSources('ns', { name: 'c', envFrom: [{ secretRef: { name: 'gone' } }] }, getter), (e: Error) => e instanceof EnvSourceError && e.message === 'secret "gone" not found');
    const optional = { name: 'c', env: [{ name: 'X', valueFrom: { secretKeyRef: { name: 'gone', key: 'k', optional: true } } }] };
    assert.deepEqual(containerEnv(pod, optional, ctx, undefined, await fetchEnvSources('ns', optional, getter)), []);
    const noKey = { name: 'c', env: [{ name: 'X', valueFrom: { secretKeyRef: { name: 'creds', key: 'k' } } }] };
    assert.throws(() => containerEnv(pod, noKey, ctx, undefined, { configMaps: new Map(), secrets: new Map([['creds', secrets.creds]]) }), /couldn't find key k in Secret ns\/creds/);
  });
});

describe('service links (upstream getServiceEnvVarMap)', () => {
  const svc = (namespace: string, name: string, clusterIP: string, port = 80) => ({ metadata: { namespace, name }, spec: { clusterIP, ports: [{ port, protocol: 'TCP' }] } });
  const services: Record<string, ReturnType<typeof svc>[]> = {
    default: [svc('default', 'kubernetes', '10.96.0.1', 443), svc('default', 'other', '10.96.0.9')],
    shop: [svc('shop', 'my-nginx', '10.96.0.20'), svc('shop', 'headless', 'None'), svc('shop', 'kubernetes', '10.96.0.30')],
    web: [svc('web', 'front', '10.96.0.40')],
  };
  const lister = {
    ...getter,
    service: async (ns: string, name: string) => {
      const s = services[ns]?.find((x) => x.metadata.name === name);
      if (!s) throw Object.assign(new Error('not found'), { code: 404 });
      return s;
    },
    services: async (ns: string) => services[ns] ?? [],
  };
  const c = { name: 'c' };
  const env = async (ns: string, links = true) => (await fetchEnvSources(ns, c, lister, links)).services ?? new Map();

  it('every Service of the pod namespace with a cluster IP, and the master service', async () => {
    const web = await env('web');
    assert.equal(web.get('FRONT_SERVICE_HOST'), '10.96.0.40');
    assert.equal(web.get('FRONT_PORT_80_TCP_ADDR'), '10.96.0.40');
    assert.equal(web.get('KUBERNETES_SERVICE_HOST'), '10.96.0.1');
    assert.equal(web.get('OTHER_SERVICE_HOST'), undefined, 'a Service of another namespace gives nothing');
  });
  it('headless Services give nothing; the namespace own `kubernetes` wins over the master', async () => {
    const shop = await env('shop');
    assert.equal(shop.get('MY_NGINX_SERVICE_HOST'), '10.96.0.20');
    assert.equal([...shop.keys()].some((k) => k.startsWith('HEADLESS_')), false);
    assert.equal(shop.get('KUBERNETES_SERVICE_HOST'), '10.96.0.30');
  });
  it('enableServiceLinks: false leaves only the master service', async () => {
    const web = await env('web', false);
    assert.deepEqual([...web.keys()].filter((k) => k.endsWith('_SERVICE_HOST')), ['KUBERNETES_SERVICE_HOST']);
  });
  it('in default, both come from one list', async () => {
    const d = await env('default');
    assert.equal(d.get('OTHER_SERVICE_HOST'), '10.96.0.9');
    assert.equal(d.get('KUBERNETES_SERVICE_PORT'), '443');
  });
});
