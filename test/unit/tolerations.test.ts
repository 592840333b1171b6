/**
 * Toleration matching in upstream's rule order, and the helpers the
 * scheduler, DaemonSet controller and taint-eviction controller share.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import {
  addOrUpdateToleration, findMatchingUntoleratedTaint, getMatchingTolerations, matchToleration, minTolerationSeconds,
  tolerationsTolerateTaint, toleratesTaint,
} from '../../src/api/tolerations.js';
import type { Taint, Toleration } from '../../src/api/tolerations.js';

const NoSchedule = 'NoSchedule';
const NoExecute = 'NoExecute';
const PreferNoSchedule = 'PreferNoSchedule';

// [description, toleration, taint, tolerated]
const table: [string, Toleration, Taint, boolean][] = [
  // rule 1: effect
  ['empty effect matches NoSchedule', { key: 'k', operator: 'Exists' }, { key: 'k', effect: NoSchedule }, true],
  ['empty effect matches NoExecute', { key: 'k', operator: 'Exists' }, { key: 'k', effect: NoExecute }, true],
  ['empty effect matches PreferNoSchedule', { key: 'k', operator: 'Exists' }, { key: 'k', effect: PreferNoSchedule }, true],
  ['equal effects match', { key: 'k', operator: 'Exists', effect: NoExecute }, { key: 'k', effect: NoExecute }, true],
  ['different effects do not', { key: 'k', operator: 'Exists', effect: NoSchedule }, { key: 'k', effect: NoExecute }, false],
  ['NoSchedule does not tolerate PreferNoSchedule', { key: 'k', operator: 'Exists', effect: NoSchedule }, { key: 'k', effect: PreferNoSchedule }, false],
  ['the effect is checked before the key', { operator: 'Exists', effect: NoSchedule }, { key: 'any', effect: NoExecute }, false],
  // rule 2: key
  ['empty key with Exists tolerates every taint', { operator: 'Exists' }, { key: 'anything', value: 'v', effect: NoExecute }, true],
  ['empty key with Exists tolerates a taint without value', { operator: 'Exists' }, { key: 'node.kubernetes.io/unreachable', effect: NoExecute }, true],
  ['empty key and Exists and an effect tolerates all keys of that effect', { operator: 'Exists', effect: NoSchedule }, { key: 'x', effect: NoSchedule }, true],
  ['different keys do not match', { key: 'a', operator: 'Exists' }, { key: 'b', effect: NoSchedule }, false],
  ['keys are case sensitive', { key: 'Dedicated', operator: 'Equal', value: 'gpu' }, { key: 'dedicated', value: 'gpu', effect: NoSchedule }, false],
  ['empty key with Equal matches a taint whose value equals (no validation here)', { operator: 'Equal', value: 'v' }, { key: 'k', value: 'v', effect: NoSchedule }, true],
  ['empty key with Equal and empty value matches an empty-valued taint', { operator: 'Equal' }, { key: 'k', effect: NoSchedule }, true],
  // rule 3: Exists
  ['Exists ignores the taint value', { key: 'k', operator: 'Exists' }, { key: 'k', value: 'anything', effect: NoSchedule }, true],
  ['Exists with a value still matches (upstream ignores it; validation forbids it)', { key: 'k', operator: 'Exists', value: 'other' }, { key: 'k', value: 'v', effect: NoSchedule }, true],
  // rule 4: Equal / empty operator
  ['Equal with equal values', { key: 'k', operator: 'Equal', value: 'v' }, { key: 'k', value: 'v', effect: NoSchedule }, true],
  ['Equal with different values', { key: 'k', operator: 'Equal', value: 'v' }, { key: 'k', value: 'w', effect: NoSchedule }, false],
  ['Equal with empty values on both sides', { key: 'k', operator: 'Equal', value: '' }, { key: 'k', effect: NoSchedule }, true],
  ['Equal with absent values on both sides', { key: 'k', operator: 'Equal' }, { key: 'k', value: '', effect: NoSchedule }, true],
  ['Equal with an empty toleration value against a valued taint', { key: 'k', operator: 'Equal' }, { key: 'k', value: 'v', effect: NoSchedule }, false],
  ['Equal with a value against an empty-valued taint', { key: 'k', operator: 'Equal', value: 'v' }, { key: 'k', effect: NoSchedule }, false],
  ['the empty operator means Equal', { key: 'k', value: 'v' }, { key: 'k', value: 'v', effect: NoSchedule }, true],
  ['the empty operator means Equal: values must match', { key: 'k' }, { key: 'k', value: 'v', effect: NoSchedule }, false],
  ['values are case sensitive', { key: 'k', operator: 'Equal', value: 'GPU' }, { key: 'k', value: 'gpu', effect: NoSchedule }, false],
  // rule 5: other operators
  ['an unknown operator matches nothing', { key: 'k', operator: 'Gt', value: '1' }, { key: 'k', value: '2', effect: NoSchedule }, false],
  ['operators are case sensitive', { key: 'k', operator: 'exists' }, { key: 'k', effect: NoSchedule }, false],
  ['an unknown operator with an empty key matches nothing', { operator: 'In' }, { key: 'k', effect: NoSchedule }, false],
  // well-known tolerations
  ['DaemonSet not-ready toleration', { key: 'node.kubernetes.io/not-ready', operator: 'Exists', effect: NoExecute }, { key: 'node.kubernetes.io/not-ready', effect: NoExecute, timeAdded: '2024-01-01T00:00:00Z' }, true],
  ['DefaultTolerationSeconds unreachable toleration', { key: 'node.kubernetes.io/unreachable', operator: 'Exists', effect: NoExecute, tolerationSeconds: 300 }, { key: 'node.kubernetes.io/unreachable', effect: NoExecute }, true],
  ['unschedulable toleration does not cover not-ready', { key: 'node.kubernetes.io/unschedulable', operator: 'Exists', effect: NoSchedule }, { key: 'node.kubernetes.io/not-ready', effect: NoSchedule }, false],
  ['control-plane toleration', { key: 'node-role.kubernetes.io/control-plane', operator: 'Exists', effect: NoSchedule }, { key: 'node-role.kubernetes.io/control-plane', effect: NoSchedule }, true],
  ['tolerationSeconds does not affect matching', { key: 'k', operator: 'Exists', effect: NoExecute, tolerationSeconds: 0 }, { key: 'k', effect: NoExecute }, true],
];

describe('toleratesTaint', () => {
  for (const [name, toleration, taint, want] of table) {
    it(`${name} → ${want}`, () => assert.equal(toleratesTaint(toleration, taint), want));
  }
});

describe('tolerationsTolerateTaint', () => {
  const taint: Taint = { key: 'k', value: 'v', effect: NoSchedule };
  it('no tolerations tolerate nothing', () => {
    assert.equal(tolerationsTolerateTaint([], taint), false);
    assert.equal(tolerationsTolerateTaint(undefined, taint), false);
  });
  it('any one toleration suffices', () => assert.equal(tolerationsTolerateTaint([{ key: 'x', operator: 'Exists' }, { key: 'k', value: 'v' }], taint), true));
  it('none matching', () => assert.equal(tolerationsTolerateTaint([{ key: 'x', operator: 'Exists' }, { key: 'k', value: 'w' }], taint), false));
});

describe('findMatchingUntoleratedTaint', () => {
  const taints: Taint[] = [
    { key: 'soft', effect: PreferNoSchedule },
    { key: 'a', value: '1', effect: NoSchedule },
    { key: 'b', effect: NoExecute },
  ];
  const noScheduleOrExecute = (t: Taint) => t.effect === NoSchedule || t.effect === NoExecute;
  it('returns the first untolerated taint', () => assert.deepEqual(findMatchingUntoleratedTaint(taints, []), taints[0]));
  it('the filter skips PreferNoSchedule as the scheduler does', () => assert.deepEqual(findMatchingUntoleratedTaint(taints, [], noScheduleOrExecute), taints[1]));
  it('undefined when all filtered taints are tolerated', () => {
    assert.equal(findMatchingUntoleratedTaint(taints, [{ key: 'a', value: '1' }, { key: 'b', operator: 'Exists' }], noScheduleOrExecute), undefined);
  });
  it('reports the remaining untolerated one', () => {
    assert.deepEqual(findMatchingUntoleratedTaint(taints, [{ key: 'a', value: '1' }], noScheduleOrExecute), taints[2]);
  });
  it('tolerate-everything toleration', () => assert.equal(findMatchingUntoleratedTaint(taints, [{ operator: 'Exists' }]), undefined));
  it('no taints', () => {
    assert.equal(findMatchingUntoleratedTaint([], []), undefined);
    assert.equal(findMatchingUntoleratedTaint(undefined, undefined), undefined);
  });
});

describe('getMatchingTolerations', () => {
  const t1: Toleration = { key: 'a', operator: 'Exists', effect: NoExecute, tolerationSeconds: 30 };
  const t2: Toleration = { operator: 'Exists' };
  it('no taints: tolerated with none used', () => assert.deepEqual(getMatchingTolerations([], [t1]), { tolerated: true, tolerations: [] }));
  it('taints and no tolerations: not tolerated', () => assert.deepEqual(getMatchingTolerations([{ key: 'a', effect: NoExecute }], []), { tolerated: false, tolerations: [] }));
  it('the first toleration for each taint, in taint order', () => {
    assert.deepEqual(getMatchingTolerations([{ key: 'b', effect: NoExecute }, { key: 'a', effect: NoExecute }], [t1, t2]), { tolerated: true, tolerations: [t2, t1] });
  });
  it('one untolerated taint makes it not tolerated', () => {
    assert.deepEqual(getMatchingTolerations([{ key: 'a', effect: NoExecute }, { key: 'c', effect: NoExecute }], [t1]), { tolerated: false, tolerations: [] });
  });
});

describe('minTolerationSeconds (taint eviction)', () => {
  const table: [string, Toleration[], number | undefined][] = [
    ['no tolerations: evict now', [], 0],
    ['no tolerationSeconds: forever', [{ operator: 'Exists' }], undefined],
    ['the smallest wins', [{ tolerationSeconds: 300 }, { tolerationSeconds: 30 }, { operator: 'Exists' }], 30],
    ['zero means now', [{ tolerationSeconds: 300 }, { tolerationSeconds: 0 }], 0],
    ['negative means now', [{ tolerationSeconds: -5 }], 0],
  ];
  for (const [name, tolerations, want] of table) it(name, () => assert.equal(minTolerationSeconds(tolerations), want));
});

describe('matchToleration and addOrUpdateToleration', () => {
  it('matchToleration ignores tolerationSeconds and defaults', () => {
    assert.equal(matchToleration({ key: 'a', operator: 'Exists', effect: NoExecute, tolerationSeconds: 1 }, { key: 'a', operator: 'Exists', effect: NoExecute }), true);
    assert.equal(matchToleration({ key: 'a' }, { key: 'a', value: '' }), true);
    assert.equal(matchToleration({ key: 'a', operator: 'Equal' }, { key: 'a' }), false);
  });
  it('appends a new toleration', () => {
    const r = addOrUpdateToleration([{ key: 'x', operator: 'Exists' }], { key: 'node.kubernetes.io/not-ready', operator: 'Exists', effect: NoExecute });
    assert.equal(r.changed, true);
    assert.equal(r.tolerations.length, 2);
  });
  it('an identical toleration changes nothing', () => {
    const existing = [{ key: 'a', operator: 'Exists', effect: NoExecute, tolerationSeconds: 300 }];
    const r = addOrUpdateToleration(existing, { key: 'a', operator: 'Exists', effect: NoExecute, tolerationSeconds: 300 });
    assert.deepEqual(r, { tolerations: existing, changed: false });
  });
  it('a matching toleration with other seconds is replaced in place', () => {
    const r = addOrUpdateToleration([{ key: 'a', operator: 'Exists', effect: NoExecute, tolerationSeconds: 300 }, { key: 'b' }], { key: 'a', operator: 'Exists', effect: NoExecute });
    assert.deepEqual(r, { tolerations: [{ key: 'a', operator: 'Exists', effect: NoExecute }, { key: 'b' }], changed: true });
  });
  it('does not modify its input', () => {
    const input = [{ key: 'a' }];
    addOrUpdateToleration(input, { key: 'b' });
    assert.deepEqual(input, [{ key: 'a' }]);
  });
});
