/**
 * A cached object's JSON text is kept only while the object is recent (rendered-json.ts): a
 * write's seeded text or a renderedJSON rendering stays until forgetRenderedJSON (the cache's
 * ring dropped the object's event); objectJSON renders without keeping. The text is always
 * JSON.stringify's.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { forgetRenderedJSON, hasRenderedJSON, objectJSON, renderedJSON, seedRenderedJSON } from '../../src/registry/watch-cache/rendered-json.js';

test('objectJSON renders without keeping; renderedJSON keeps until forgotten; a seeded text is kept', () => {
  const obj = { metadata: { name: 'a', resourceVersion: '5' }, data: { k: 'v' } };
  assert.equal(objectJSON(obj), JSON.stringify(obj));
  assert.equal(hasRenderedJSON(obj), false);
  assert.equal(renderedJSON(obj), JSON.stringify(obj));
  assert.equal(hasRenderedJSON(obj), true);
  assert.equal(objectJSON(obj), JSON.stringify(obj));
  forgetRenderedJSON(obj);
  assert.equal(hasRenderedJSON(obj), false);
  assert.equal(objectJSON(obj), JSON.stringify(obj));

  const written = { metadata: { name: 'b', resourceVersion: '6' } };
  seedRenderedJSON(written, JSON.stringify(written));
  assert.equal(hasRenderedJSON(written), true);
  assert.equal(objectJSON(written), JSON.stringify(written));
  forgetRenderedJSON(written);
  assert.equal(hasRenderedJSON(written), false);
});
