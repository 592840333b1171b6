/**
 * Taints: identity, ToString, and `kubectl taint` spec parsing and
 * reorganisation with kubectl's messages.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import {
  checkIfTaintsAlreadyExist, deleteTaint, deleteTaintsByKey, matchTaint, parseTaint, parseTaintSpec, parseTaints,
  reorganizeTaints, taintExists, taintToString,
} from '../../src/api/taints.js';
import type { Taint } from '../../src/api/taints.js';

const qualifiedNameMsg = "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";

describe('parseTaintSpec', () => {
  const ok: [string, Taint, boolean][] = [
    ['dedicated=gpu:NoSchedule', { key: 'dedicated', value: 'gpu', effect: 'NoSchedule' }, false],
    ['dedicated:NoExecute', { key: 'dedicated', effect: 'NoExecute' }, false],
    ['dedicated=:PreferNoSchedule', { key: 'dedicated', effect: 'PreferNoSchedule' }, false],
    ['example.com/role=db:NoSchedule', { key: 'example.com/role', value: 'db', effect: 'NoSchedule' }, false],
    ['dedicated-', { key: 'dedicated', effect: '' }, true],
    ['dedicated:NoSchedule-', { key: 'dedicated', effect: 'NoSchedule' }, true],
    ['dedicated=gpu:NoSchedule-', { key: 'dedicated', effect: 'NoSchedule' }, true],
    ['node-role.kubernetes.io/control-plane:NoSchedule-', { key: 'node-role.kubernetes.io/control-plane', effect: 'NoSchedule' }, true],
  ];
  for (const [spec, taint, remove] of ok) {
    it(spec, () => assert.deepEqual(parseTaintSpec(spec), { taint, remove }));
  }

  const errors: [string, string][] = [
    ['dedicated', 'invalid taint spec: dedicated'],
    ['dedicated=gpu', `invalid taint spec: dedicated=gpu, ${qualifiedNameMsg}`],
    ['dedicated=gpu:Bogus', 'invalid taint effect: Bogus, unsupported taint effect'],
    ['dedicated:noschedule', 'invalid taint effect: noschedule, unsupported taint effect'],
    ['dedicated:', 'invalid taint effect: , unsupported taint effect'],
    ['a=b=c:NoSchedule', 'invalid taint spec: a=b=c:NoSchedule'],
    ['a:b:NoSchedule', 'invalid taint spec: a:b:NoSchedule'],
    ['a=b c:NoSchedule', "invalid taint spec: a=b c:NoSchedule, a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')"],
    [':NoSchedule', 'invalid taint spec: :NoSchedule, name part must be non-empty; ' + qualifiedNameMsg],
    ['-bad:NoSchedule', `invalid taint spec: -bad:NoSchedule, ${qualifiedNameMsg}`],
    ['bad:Bogus-', 'invalid taint effect: Bogus, unsupported taint effect'],
  ];
  for (const [spec, error] of errors) {
    it(`error: ${spec}`, () => assert.deepEqual(parseTaintSpec(spec), { error }));
  }
  it('parseTaint accepts a bare key (for removals)', () => assert.deepEqual(parseTaint('k'), { key: 'k', effect: '' }));
});

describe('parseTaints', () => {
  it('splits additions and removals', () => {
    assert.deepEqual(parseTaints(['a=1:NoSchedule', 'b-', 'c:NoExecute-', 'a=2:NoExecute']), {
      add: [{ key: 'a', value: '1', effect: 'NoSchedule' }, { key: 'a', value: '2', effect: 'NoExecute' }],
      remove: [{ key: 'b', effect: '' }, { key: 'c', effect: 'NoExecute' }],
    });
  });
  it('rejects the same key and effect twice', () => {
    assert.deepEqual(parseTaints(['a=1:NoSchedule', 'a=2:NoSchedule']), { error: 'duplicated taints with the same key and effect: {a 2 NoSchedule <nil>}' });
  });
  it('passes on the first parse error', () => assert.deepEqual(parseTaints(['a=1:NoSchedule', 'x']), { error: 'invalid taint spec: x' }));
});

describe('reorganizeTaints (kubectl taint)', () => {
  const node: Taint[] = [{ key: 'a', value: '1', effect: 'NoSchedule' }, { key: 'b', effect: 'NoExecute' }, { key: 'b', effect: 'NoSchedule' }];
  it('adding a new taint: tainted, new ones first', () => {
    assert.deepEqual(reorganizeTaints(node, false, [{ key: 'c', effect: 'NoSchedule' }], []), {
      operation: 'tainted', taints: [{ key: 'c', effect: 'NoSchedule' }, ...node], errors: [],
    });
  });
  it('overwriting an existing taint (same key and effect) with --overwrite: modified', () => {
    assert.deepEqual(reorganizeTaints(node, true, [{ key: 'a', value: '2', effect: 'NoSchedule' }], []), {
      operation: 'modified', taints: [{ key: 'a', value: '2', effect: 'NoSchedule' }, node[1], node[2]], errors: [],
    });
  });
  it('removing by key removes every effect: untainted', () => {
    assert.deepEqual(reorganizeTaints(node, false, [], [{ key: 'b', effect: '' }]), { operation: 'untainted', taints: [node[0]], errors: [] });
  });
  it('removing by key and effect', () => {
    assert.deepEqual(reorganizeTaints(node, false, [], [{ key: 'b', effect: 'NoSchedule' }]).taints, [node[0], node[1]]);
  });
  it('adding and removing at once: modified', () => {
    const r = reorganizeTaints(node, false, [{ key: 'c', effect: 'NoSchedule' }], [{ key: 'a', effect: 'NoSchedule' }]);
    assert.equal(r.operation, 'modified');
    assert.deepEqual(r.taints, [{ key: 'c', effect: 'NoSchedule' }, node[1], node[2]]);
  });
  it('removing a missing taint reports kubectl\'s error', () => {
    const r = reorganizeTaints(node, false, [], [{ key: 'zz', effect: 'NoExecute' }, { key: 'yy', effect: '' }]);
    assert.deepEqual(r.errors, ['taint "zz:NoExecute" not found', 'taint "yy" not found']);
    assert.deepEqual(r.taints, node);
  });
  it('removing the last taint leaves an empty list (kubectl then sends taints: null or [])', () => {
    assert.deepEqual(reorganizeTaints([{ key: 'a', effect: 'NoSchedule' }], false, [], [{ key: 'a', effect: '' }]).taints, []);
  });
  it('checkIfTaintsAlreadyExist lists the keys already present', () => {
    assert.equal(checkIfTaintsAlreadyExist(node, [{ key: 'a', effect: 'NoSchedule' }, { key: 'b', effect: 'NoExecute' }, { key: 'c', effect: 'NoSchedule' }]), 'a,b');
    assert.equal(checkIfTaintsAlreadyExist(undefined, [{ key: 'a', effect: 'NoSchedule' }]), '');
  });
});

describe('taint identity and printing', () => {
  const table: [Taint, string][] = [
    [{ key: 'k', value: 'v', effect: 'NoSchedule' }, 'k=v:NoSchedule'],
    [{ key: 'k', effect: 'NoExecute' }, 'k:NoExecute'],
    [{ key: 'k', value: 'v', effect: '' }, 'k=v:'],
    [{ key: 'k', effect: '' }, 'k'],
    [{ key: 'k', value: '', effect: '' }, 'k'],
  ];
  for (const [taint, str] of table) it(`taintToString → ${str}`, () => assert.equal(taintToString(taint), str));

  it('matchTaint compares key and effect only', () => {
    assert.equal(matchTaint({ key: 'k', value: 'a', effect: 'NoSchedule' }, { key: 'k', value: 'b', effect: 'NoSchedule' }), true);
    assert.equal(matchTaint({ key: 'k', effect: 'NoSchedule' }, { key: 'k', effect: 'NoExecute' }), false);
    assert.equal(matchTaint({ key: 'k', effect: '' }, { key: 'k', effect: '' }), true);
  });
  it('taintExists, deleteTaint, deleteTaintsByKey', () => {
    const taints: Taint[] = [{ key: 'a', effect: 'NoSchedule' }, { key: 'a', effect: 'NoExecute' }, { key: 'b', effect: 'NoSchedule' }];
    assert.equal(taintExists(taints, { key: 'a', effect: 'NoExecute' }), true);
    assert.equal(taintExists(taints, { key: 'b', effect: 'NoExecute' }), false);
    assert.deepEqual(deleteTaint(taints, { key: 'a', effect: 'NoExecute' }), { taints: [taints[0], taints[2]], deleted: true });
    assert.deepEqual(deleteTaint(taints, { key: 'c', effect: 'NoExecute' }), { taints, deleted: false });
    assert.deepEqual(deleteTaintsByKey(taints, 'a'), { taints: [taints[2]], deleted: true });
    assert.deepEqual(deleteTaintsByKey(undefined, 'a'), { taints: [], deleted: false });
  });
});
