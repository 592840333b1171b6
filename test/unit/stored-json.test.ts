import { test } from 'node:test';
import assert from 'node:assert/strict';
import { withResourceVersion } from '../../src/registry/stored-json.js';
import { renderedJSON } from '../../src/registry/watch-cache/rendered-json.js';
import { Registry } from '../../src/registry/registry.js';
import { openSqliteBackend } from '../../src/storage/sqlite/index.js';
import { realClock } from '../../src/util/clock.js';

// A list's JSON is spliced from the stored text instead of parse + stringify; it must be the
// very text JSON.stringify gives for the decoded object.

/** What Store.encode stores and what Store.decode + JSON.stringify answer. */
const stored = (obj: any) => {
  const { resourceVersion: _rv, ...metadata } = obj.metadata ?? {};
  return JSON.stringify({ apiVersion: 'v1', kind: 'Pod', ...obj, ...(obj.metadata === undefined ? {} : { metadata }) });
};
const decodedJSON = (text: string, rv: string) => {
  const o = JSON.parse(text);
  o.metadata.resourceVersion = rv;
  return JSON.stringify(o);
};

const tricky = 'quote " backslash \\ brace { } [ ] , : ünï ☃ 𝄞 \u0000 \u001f \ud800 "metadata":{';

const cases: Record<string, any> = {
  'metadata after kind': { metadata: { name: 'a', labels: { app: 'x' } }, spec: { containers: [{ name: 'c' }] } },
  'metadata last': { spec: { nodeName: 'n', x: [1, 2.5, -3e-7, true, false, null, {}, []] }, status: {}, metadata: { name: 'b' } },
  'empty metadata': { metadata: {}, spec: {} },
  'strings that look like JSON': { spec: { args: [tricky, '\\', '\\"', '"'] }, metadata: { name: 'c', annotations: { [tricky]: tricky, 'x\\': '\\' } } },
  'nested resourceVersion is not metadata\'s': { metadata: { name: 'd', annotations: { resourceVersion: '9' }, ownerReferences: [{ resourceVersion: '1' }] }, spec: { metadata: { resourceVersion: 'no' } } },
  'integer-like keys': { metadata: { name: 'e', labels: { b: '1', 2: 'two', 10: 'ten', a: '' } } },
  'numbers at the end of metadata': { metadata: { generation: 12, deletionGracePeriodSeconds: 0 } },
  'nested object at the end of metadata': { metadata: { name: 'f', labels: { a: { b: [{}] } } } },
};

for (const [name, obj] of Object.entries(cases)) {
  test(`withResourceVersion: ${name}`, () => {
    const text = stored(obj);
    assert.equal(withResourceVersion(text, '4711'), decodedJSON(text, '4711'));
  });
}

test('withResourceVersion declines what it cannot splice, so the caller decodes', () => {
  assert.equal(withResourceVersion(JSON.stringify({ apiVersion: 'v1', kind: 'Pod', spec: {} }), '1'), undefined, 'no metadata');
  assert.equal(withResourceVersion(JSON.stringify({ kind: 'Pod', metadata: null }), '1'), undefined, 'metadata null');
  assert.equal(withResourceVersion(JSON.stringify({ kind: 'Pod', metadata: [] }), '1'), undefined, 'metadata an array');
  assert.equal(withResourceVersion(JSON.stringify({ kind: 'Pod', metadata: { name: 'a', resourceVersion: '3' } }), '1'), undefined, 'already has one');
  assert.equal(withResourceVersion('[]', '1'), undefined);
  assert.equal(withResourceVersion('{"kind":"Pod","metadata":{"name":"a"', '1'), undefined, 'truncated');
});

test('withResourceVersion agrees with decode + stringify on random objects', () => {
  let seed = 7;
  const rand = (n: number) => { seed = (seed * 1103515245 + 12345) % 2 ** 31; return seed % n; };
  const atoms = ['', 'a', '"', '\\', '{', '}', '[', ']', ',', ':', 'ü', '𝄞', '\n', 'resourceVersion', 'metadata', '0', '17'];
  const str = () => Array.from({ length: rand(4) }, () => atoms[rand(atoms.length)]).join('');
  const value = (depth: number): any => {
    switch (rand(depth > 2 ? 4 : 6)) {
      case 0: return str();
      case 1: return rand(3) === 0 ? rand(1000) / 7 : rand(100);
      case 2: return [true, false, null][rand(3)];
      case 3: return str();
      case 4: return Array.from({ length: rand(4) }, () => value(depth + 1));
      default: return Object.fromEntries(Array.from({ length: rand(5) }, () => [str(), value(depth + 1)]));
    }
  };
  for (let i = 0; i < 2000; i++) {
    const metadata = Object.fromEntries(Array.from({ length: rand(5) }, () => [str(), value(1)]));
    delete metadata.resourceVersion;
    const obj: any = Object.fromEntries(Array.from({ length: rand(4) }, () => [str(), value(1)]));
    obj.metadata = metadata;
    const text = stored(obj);
    assert.equal(withResourceVersion(text, String(i)), decodedJSON(text, String(i)), text);
  }
});

test('Store.listJSON items are JSON.stringify of list() items, with selectors and pages', async (t) => {
  const backend = openSqliteBackend(':memory:', { compactIntervalMs: 0, logger: { info() {}, error() {} } });
  t.after(() => backend.close());
  const registry = new Registry(backend, realClock);
  const ns = registry.namespaces;
  await ns.create(undefined, { metadata: { name: 'ns1' } });
  const cms = registry.store('', 'v1', 'configmaps')!;
  for (let i = 0; i < 25; i++) {
    await cms.create('ns1', { metadata: { name: `cm-${i}`, labels: { parity: i % 2 ? 'odd' : 'even' } }, data: { text: tricky.replace(/[\u0000-\u001f\ud800]/g, ''), i: String(i) } });
  }
  for (const opts of [{}, { labelSelector: 'parity=odd' }, { fieldSelector: 'metadata.name=cm-3' }, { limit: 10 }, { limit: 4, labelSelector: 'parity=even' }]) {
    const objects = await cms.list('ns1', opts);
    const texts = await cms.listJSON('ns1', opts);
    assert.deepEqual(texts.items, objects.items.map((o) => JSON.stringify(o)), JSON.stringify(opts));
    assert.equal(texts.resourceVersion, objects.resourceVersion);
    assert.equal(texts.continue, objects.continue);
  }
});

test('a write\'s answer text (spliced from the stored value) is JSON.stringify of the object answered', async (t) => {
  const backend = openSqliteBackend(':memory:', { compactIntervalMs: 0, logger: { info() {}, error() {} } });
  t.after(() => backend.close());
  const registry = new Registry(backend, realClock);
  await registry.namespaces.create(undefined, { metadata: { name: 'ns1' } });
  const cms = registry.store('', 'v1', 'configmaps')!;
  const pods = registry.store('', 'v1', 'pods')!;
  const fm = { fieldManager: { manager: 'test' }, resultShared: true };
  const written = [
    await cms.create('ns1', { metadata: { name: 'a', labels: { x: 'y' }, annotations: { t: tricky } }, data: { k: tricky } }, fm),
    await pods.create('ns1', { metadata: { generateName: 'p-', resourceVersion: '5' }, spec: { containers: [{ name: 'c', image: 'i' }] } }, fm),
    // An update whose body names resourceVersion before other members: not the splice's order, so stringified.
    await cms.update('ns1', 'a', { metadata: { resourceVersion: undefined, name: 'a', labels: { y: '1' } }, data: { k: 'v' } }, { fieldManager: { manager: 'test' }, resultShared: true }),
    await cms.guaranteedUpdate('ns1', 'a', (cur) => ({ ...cur, data: { k: 'w' } }), { fieldManager: { manager: 'test' }, resultShared: true }),
  ];
  for (const obj of written) assert.equal(renderedJSON(obj), JSON.stringify(obj), obj.metadata.name);
});
