/** apimachinery's CompareKubeAwareVersionStrings, table-driven: the order discovery lists a custom resource group's versions in. */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { compareKubeAwareVersions } from '../../src/api/version-priority.js';

describe('compareKubeAwareVersions', () => {
  const sorted: [string[], string[]][] = [
    // Upstream's own example (the APIService versionPriority documentation).
    [['foo10', 'v1', 'v12alpha1', 'v2', 'v11beta2', 'foo1', 'v3beta1', 'v10', 'v11alpha2', 'v10beta3'],
      ['v10', 'v2', 'v1', 'v11beta2', 'v10beta3', 'v3beta1', 'v12alpha1', 'v11alpha2', 'foo1', 'foo10']],
    [['v1beta1', 'v1'], ['v1', 'v1beta1']],
    [['v1alpha1', 'v1beta1', 'v1beta2'], ['v1beta2', 'v1beta1', 'v1alpha1']],
    [['v1', 'v2beta1'], ['v1', 'v2beta1']],
  ];
  for (const [input, want] of sorted) {
    it(`${input.join(',')} → ${want.join(',')}`, () => assert.deepEqual([...input].sort(compareKubeAwareVersions), want));
  }
});
