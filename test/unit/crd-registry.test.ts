/**
 * The registry side of CustomResourceDefinitions: the naming check, the
 * establishing controller serving a CRD's versions from one storage prefix,
 * the printer built from additionalPrinterColumns, and the cleanup on delete.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { namesConflict } from '../../src/registry/custom/names.js';
import { customResourcePrinter, jsonPathValue } from '../../src/registry/custom/printer.js';
import { CRDController } from '../../src/registry/custom/crd-controller.js';
import { Registry } from '../../src/registry/registry.js';
import { openSqliteBackend } from '../../src/storage/sqlite/index.js';
import { realClock } from '../../src/util/clock.js';
import { silentLogger } from '../../src/util/log.js';
import { eventually } from '../e2e/harness.js';

const crd = (plural: string, kind: string, extra: any = {}): any => ({
  apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition',
  metadata: { name: `${plural}.example.com` },
  spec: {
    group: 'example.com', scope: 'Namespaced', names: { plural, kind, ...extra },
    versions: [
      { name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', properties: { size: { type: 'integer', default: 1 } } } } } } },
      { name: 'v2', served: true, storage: false, schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } },
    ],
  },
  status: { acceptedNames: { plural, kind, ...extra } },
});

describe('CRD names', () => {
  it('conflicts with another CRD of the group on plural, short names and kinds', () => {
    const others = [crd('widgets', 'Widget', { shortNames: ['wd'], listKind: 'WidgetList' })];
    assert.equal(namesConflict(crd('gadgets', 'Gadget'), others), undefined);
    assert.equal(namesConflict(crd('widgets', 'Gizmo'), others), '"widgets" is already in use');
    assert.equal(namesConflict(crd('gadgets', 'Gadget', { shortNames: ['wd'] }), others), '"wd" is already in use');
    assert.equal(namesConflict(crd('gadgets', 'Widget'), others), '"Widget" is already in use');
  });
});

describe('custom resource printer', () => {
  it('NAME, the printer columns in order, dates as ages', () => {
    const p = customResourcePrinter([
      { name: 'Size', type: 'integer', jsonPath: '.spec.size' },
      { name: 'First', type: 'string', jsonPath: '.spec.items[0].name' },
      { name: 'Started', type: 'date', jsonPath: '.status.started' },
    ]);
    assert.deepEqual(p.columns.map((c) => c.name), ['Name', 'Size', 'First', 'Started']);
    const now = new Date('2025-01-01T12:00:00Z');
    const row = p.row({ metadata: { name: 'a' }, spec: { size: 3, items: [{ name: 'x' }] }, status: { started: '2025-01-01T11:00:00Z' } }, { now });
    assert.deepEqual(row.cells, ['a', 3, 'x', '60m']);
    assert.deepEqual(p.row({ metadata: { name: 'b' } }, { now }).cells, ['b', null, null, null]);
  });
  it('without printer columns: NAME and Age', () => {
    assert.deepEqual(customResourcePrinter([]).columns.map((c) => c.name), ['Name', 'Age']);
    assert.equal(jsonPathValue({ a: { b: 1 } }, '{.a.b}'), 1);
  });
});

describe('establishing and serving', () => {
  it('serves every served version from one storage prefix and cleans up on delete', async () => {
    const backend = openSqliteBackend(':memory:', { compactIntervalMs: 0, logger: silentLogger });
    const registry = new Registry(backend, realClock);
    const controller = new CRDController(registry, silentLogger);
    try {
      await registry.namespaces.create(undefined, { metadata: { name: 'default' } });
      await controller.start();
      const crds = registry.store('apiextensions.k8s.io', 'v1', 'customresourcedefinitions')!;
      const { status: _s, ...body } = crd('widgets', 'Widget');
      await crds.create(undefined, body);
      const v1 = await eventually(async () => registry.store('example.com', 'v1', 'widgets'), 10_000, 'widgets served');
      const established = await crds.get(undefined, 'widgets.example.com');
      assert.deepEqual(established.status.conditions.map((c: any) => `${c.type}=${c.status}`), ['NamesAccepted=True', 'Established=True']);
      assert.deepEqual(established.status.acceptedNames, { plural: 'widgets', kind: 'Widget', singular: 'widget', listKind: 'WidgetList' });
      const created = await v1.create('default', { metadata: { name: 'w' }, spec: {} });
      assert.deepEqual(created.spec, { size: 1 });
      const v2 = registry.store('example.com', 'v2', 'widgets')!;
      assert.equal((await v2.get('default', 'w')).apiVersion, 'example.com/v2');
      const viaV2 = await v2.update('default', 'w', { ...(await v2.get('default', 'w')), spec: { size: 5 } });
      assert.equal(viaV2.apiVersion, 'example.com/v2');
      assert.equal((await v1.get('default', 'w')).spec.size, 5);
      assert.ok(registry.resources().some((r) => r.group === 'example.com' && r.version === 'v2'));

      // Served again only when the spec changes (its generation): a label or a status write keeps the
      // stores, so a 1 MB CRD is not compiled again for each of its own status writes.
      const labeled = await crds.update(undefined, 'widgets.example.com', { ...(await crds.get(undefined, 'widgets.example.com')), metadata: { ...established.metadata, resourceVersion: undefined, labels: { a: 'b' } } });
      assert.equal(labeled.metadata.generation, established.metadata.generation);
      await new Promise((r) => setTimeout(r, 200));
      assert.equal(registry.store('example.com', 'v1', 'widgets'), v1, 'a label change serves the same stores');
      const current = await crds.get(undefined, 'widgets.example.com');
      current.spec.versions[0].additionalPrinterColumns = [{ name: 'Size', type: 'integer', jsonPath: '.spec.size' }];
      await crds.update(undefined, 'widgets.example.com', current);
      await eventually(async () => registry.store('example.com', 'v1', 'widgets') !== v1, 10_000, 'served again after a spec change');

      await crds.delete(undefined, 'widgets.example.com');
      await eventually(async () => !registry.store('example.com', 'v1', 'widgets'), 10_000, 'widgets no longer served');
      await assert.rejects(crds.get(undefined, 'widgets.example.com'), (e: any) => e.code === 404);
      assert.equal((await backend.list('/registry/example.com/widgets/', {})).kvs.length, 0);
    } finally {
      controller.close();
      await backend.close();
    }
  });
});
