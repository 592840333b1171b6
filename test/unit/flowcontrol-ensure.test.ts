/**
 * The APF configuration producer's decision for one stored bootstrap object
 * (k8s.io/apiserver's flowcontrol ensurer): mandatory specs always come back,
 * suggested ones while autoupdate-spec says so (or generation is 1), and the
 * annotation follows the decision; dropped objects go only when annotated "true".
 */
import { strict as assert } from 'node:assert';
import { describe, it } from 'node:test';
import type { PriorityLevelConfiguration } from 'kubernetes-types/flowcontrol/v1.js';
import { autoUpdateAnnotation, mandatoryPriorityLevels, suggestedPriorityLevels } from '../../src/api/flowcontrol/bootstrap.js';
import { isUnwanted, reviseIfNeeded } from '../../src/api/flowcontrol/ensure.js';

const level = (name: string, pls: PriorityLevelConfiguration[]) => structuredClone(pls.find((p) => p.metadata!.name === name)!);
const stored = (boot: PriorityLevelConfiguration, generation: number, annotation: string | undefined, shares?: number): PriorityLevelConfiguration => {
  const o = structuredClone(boot);
  o.metadata = { name: boot.metadata!.name, generation, resourceVersion: '7', annotations: annotation === undefined ? {} : { [autoUpdateAnnotation]: annotation } };
  if (shares !== undefined) o.spec!.limited!.nominalConcurrencyShares = shares;
  return o;
};

describe('reviseIfNeeded (suggested)', () => {
  const boot = level('global-default', suggestedPriorityLevels());
  it('an untouched object needs no write', () => {
    assert.equal(reviseIfNeeded(stored(boot, 1, 'true'), boot, false), undefined);
  });
  it('a changed spec still marked "true" gets the bootstrap spec back, metadata kept', () => {
    const r = reviseIfNeeded(stored(boot, 2, 'true', 99), boot, false)!;
    assert.equal(r.spec!.limited!.nominalConcurrencyShares, 20);
    assert.equal(r.metadata!.resourceVersion, '7');
    assert.equal(r.metadata!.annotations![autoUpdateAnnotation], 'true');
  });
  it('"false" keeps the operator\'s spec; "False" too (strconv.ParseBool)', () => {
    assert.equal(reviseIfNeeded(stored(boot, 2, 'false', 99), boot, false), undefined);
    assert.equal(reviseIfNeeded(stored(boot, 2, 'False', 99), boot, false), undefined);
  });
  it('without a valid annotation: generation 1 means nobody changed it (updated, annotated "true")', () => {
    const r = reviseIfNeeded(stored(boot, 1, undefined), boot, false)!;
    assert.equal(r.metadata!.annotations![autoUpdateAnnotation], 'true');
  });
  it('without a valid annotation and a later generation: the spec is kept, annotated "false"', () => {
    const r = reviseIfNeeded(stored(boot, 3, 'maybe', 99), boot, false)!;
    assert.equal(r.spec!.limited!.nominalConcurrencyShares, 99);
    assert.equal(r.metadata!.annotations![autoUpdateAnnotation], 'false');
  });
});

describe('reviseIfNeeded (mandatory)', () => {
  it('"false" does not protect a mandatory object: spec and annotation come back', () => {
    const boot = level('catch-all', mandatoryPriorityLevels());
    const r = reviseIfNeeded(stored(boot, 4, 'false', 50), boot, true)!;
    assert.equal(r.spec!.limited!.nominalConcurrencyShares, 5);
    assert.equal(r.metadata!.annotations![autoUpdateAnnotation], 'true');
  });
  it('the exempt level\'s shares and lendable percent are the operator\'s', () => {
    const boot = level('exempt', mandatoryPriorityLevels());
    const o = stored(boot, 2, 'true');
    o.spec!.exempt = { nominalConcurrencyShares: 10, lendablePercent: 20 };
    assert.equal(reviseIfNeeded(o, boot, true), undefined);
  });
});

describe('isUnwanted', () => {
  const names = new Set(['global-default']);
  const fs = (name: string, annotation?: string) => ({ metadata: { name, annotations: annotation === undefined ? undefined : { [autoUpdateAnnotation]: annotation } } });
  it('only objects annotated "true" that the bootstrap no longer names', () => {
    assert.equal(isUnwanted(fs('dropped', 'true'), names), true);
    assert.equal(isUnwanted(fs('mine'), names), false);
    assert.equal(isUnwanted(fs('mine', 'false'), names), false);
    assert.equal(isUnwanted(fs('global-default', 'true'), names), false);
  });
});
