/**
 * Nesting limits at decode time (upstream: encoding/json and go-yaml refuse
 * past 10,000 levels; k8ts refuses past maxNestingDepth, see
 * docs/design-notes.md), content types a body may have, and the algorithms
 * an accepted object meets surviving the deepest one allowed.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { jsonTextTooDeep, maxNestingDepth, valueTooDeep } from '../../src/api/nesting.js';
import { decodeBody } from '../../src/apiserver/body.js';
import { applyPatch } from '../../src/api/patch/index.js';
import { StatusError } from '../../src/api/status.js';
import { deepEqual } from '../../src/api/validation/util.js';

const L = maxNestingDepth;
/** An object nested `depth` levels: {"a":{"a":...{}}}. */
const nest = (depth: number): any => {
  let v: any = {};
  for (let i = 1; i < depth; i++) v = { a: v };
  return v;
};
const jsonText = (depth: number) => '{"a":'.repeat(depth - 1) + '{}' + '}'.repeat(depth - 1);

function status(f: () => unknown): { code: number; reason?: string; message?: string } {
  try {
    f();
  } catch (e) {
    assert.ok(e instanceof StatusError, `expected a StatusError, got ${String(e)}`);
    return { code: e.status.code, reason: e.status.reason, message: e.status.message };
  }
  return { code: 0 };
}

describe('nesting depth', () => {
  it('counts brackets as Go\'s scanner does, ignoring those inside strings', () => {
    assert.equal(jsonTextTooDeep('{}', 1), -1);
    assert.equal(jsonTextTooDeep('{"a":[]}', 1), 5);
    assert.equal(jsonTextTooDeep('{"a":"[[[{{{\\"[[["}', 1), -1);
    assert.equal(jsonTextTooDeep(jsonText(L)), -1);
    assert.equal(jsonTextTooDeep(jsonText(L + 1)), 5 * L);
    assert.equal(valueTooDeep(nest(L)), false);
    assert.equal(valueTooDeep(nest(L + 1)), true);
  });

  it('finds the same without a scan when the text has no more opening brackets than the limit', () => {
    // At the limit (three brackets, depth 3) nothing is too deep; one more and the scan finds it.
    assert.equal(jsonTextTooDeep('[[{}]]', 3), -1);
    assert.equal(jsonTextTooDeep('{"a":[[{"b":{}}]]}', 3), 7);
    // Brackets inside strings count toward the pre-check, not the depth.
    assert.equal(jsonTextTooDeep('{"a":"{{{{[[[["}', 3), -1);
    // A text shorter than the limit, unclosed.
    assert.equal(jsonTextTooDeep('[[[', 3), -1);
    assert.equal(jsonTextTooDeep('[[[[', 3), 3);
  });

  it('decoded values: counts open objects and arrays', () => {
    assert.equal(valueTooDeep([[[1]]], 3), false);
    assert.equal(valueTooDeep([[[[]]]], 3), true);
    assert.equal(valueTooDeep(nest(1_000_000)), true);
  });

  for (const depth of [L + 1, 3000, 100_000]) {
    it(`refuses JSON nested ${depth} levels with encoding/json's words`, () => {
      assert.deepEqual(status(() => decodeBody(Buffer.from(jsonText(depth)), 'application/json')), {
        code: 400, reason: 'BadRequest', message: 'couldn\'t get version/kind; json parse error: invalid character \'{\' exceeded max depth',
      });
    });

    it(`refuses YAML nested ${depth} levels with go-yaml's words`, () => {
      const flow = 'a: ' + '['.repeat(depth - 1) + ']'.repeat(depth - 1) + '\n';
      const block = 'a:\n  ' + '- '.repeat(depth - 1) + '1\n';
      for (const text of [flow, block]) {
        const s = status(() => decodeBody(Buffer.from(text), 'application/yaml'));
        assert.equal(s.code, 400);
        assert.match(s.message!, new RegExp(`^error converting YAML to JSON: yaml: (line \\d+: )?exceeded max depth of ${L}$`));
      }
    });
  }

  it('accepts JSON and YAML at the limit', () => {
    assert.equal(valueTooDeep(decodeBody(Buffer.from(jsonText(L)), 'application/json'), L), false);
    let block = '';
    for (let i = 0; i < L; i++) block += `${' '.repeat(i)}a:\n`;
    const v = decodeBody(Buffer.from(block + ' '.repeat(L) + '1\n'), 'application/yaml');
    assert.equal(valueTooDeep(v, L), false);
    assert.equal(valueTooDeep(v, L - 1), true);
  });

  it('refuses YAML whose aliases nest deeper than the text', () => {
    const lines = ['a0: &a0 ' + '['.repeat(L - 10) + ']'.repeat(L - 10)];
    for (let i = 1; i <= 20; i++) lines.push(`a${i}: &a${i} [*a${i - 1}]`);
    const s = status(() => decodeBody(Buffer.from(lines.join('\n') + '\n'), 'application/yaml'));
    assert.deepEqual(s, { code: 400, reason: 'BadRequest', message: `error converting YAML to JSON: yaml: exceeded max depth of ${L}` });
  });

  it('refuses a patched object nested past the limit (422 on the field patch)', () => {
    const cur = { apiVersion: 'apps/v1', kind: 'ControllerRevision', data: nest(L - 1) };
    const add = [{ op: 'add', path: '/data' + '/a'.repeat(L - 2) + '/b', value: { c: {} } }];
    const copy = [{ op: 'copy', from: '/data', path: '/data' + '/a'.repeat(L - 2) }];
    for (const ops of [add, copy, [...Array(30)].map(() => copy[0])]) {
      const s = status(() => applyPatch('json', cur, ops, 'apps/v1/ControllerRevision'));
      assert.equal(s.code, 422);
      assert.match(s.message!, /^ "" is invalid: patch: Invalid value: "\{.*": couldn't get version\/kind; json parse error: invalid character '\{' exceeded max depth$/s);
    }
    assert.equal(status(() => applyPatch('json', cur, [{ op: 'add', path: '/data/b', value: nest(L - 2) }], 'apps/v1/ControllerRevision')).code, 0);
  });

  it('lets every patch type and helper work on an object at the limit', () => {
    const cur = { apiVersion: 'apps/v1', kind: 'ControllerRevision', metadata: { name: 'r' }, revision: 1, data: nest(L - 1) };
    const deepPatch = { data: nest(L - 1) };
    for (const [type, patch] of [['merge', deepPatch], ['strategic', deepPatch], ['json', [{ op: 'test', path: '/data', value: nest(L - 1) }, { op: 'copy', from: '/data/a', path: '/data' }]]] as const) {
      const out = applyPatch(type, cur, patch, 'apps/v1/ControllerRevision');
      assert.equal(valueTooDeep(out), false, type);
    }
    const both = [nest(L), nest(L)];
    assert.equal(deepEqual(both[0], both[1]), true);
    assert.equal(JSON.parse(JSON.stringify(structuredClone(both[0]))).a.a.a !== undefined, true);
  });
});

describe('body media types', () => {
  const cm = Buffer.from('{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"x"}}');
  for (const type of ['text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data', 'application/cbor', 'text/yaml']) {
    it(`refuses ${type} with 415`, () => {
      assert.deepEqual(status(() => decodeBody(cm, type)), {
        code: 415, reason: 'UnsupportedMediaType',
        message: 'the body of the request was in an unknown format - accepted media types include: application/json, application/yaml, application/vnd.kubernetes.protobuf',
      });
    });
  }
  it('decodes application/json and application/yaml', () => {
    assert.equal(decodeBody(cm, 'application/json').kind, 'ConfigMap');
    assert.equal(decodeBody(Buffer.from('kind: ConfigMap\n'), 'application/yaml').kind, 'ConfigMap');
  });
});
