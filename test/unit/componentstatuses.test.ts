import { test } from 'node:test';
import assert from 'node:assert/strict';
import { leaseProblem } from '../../src/apiserver/componentstatuses.js';

test('a component is healthy while its leader renews its Lease within leaseDurationSeconds', () => {
  const now = new Date('2026-12-01T19:00:30Z');
  const lease = (renewTime: string | undefined, holderIdentity: string | undefined = 'a') =>
    ({ spec: { holderIdentity, leaseDurationSeconds: 15, renewTime } });
  assert.equal(leaseProblem(lease('2026-12-01T19:00:20.000000Z'), now), undefined);
  assert.equal(leaseProblem(lease('2026-12-01T19:00:15.000000Z'), now), undefined);
  assert.equal(leaseProblem(lease('2026-12-01T19:00:14.000000Z'), now), 'its leader a has not renewed its lease for 15s');
  assert.equal(leaseProblem(lease('2026-12-01T19:00:20Z', ''), now), 'no leader holds its lease');
  assert.equal(leaseProblem(undefined, now), 'no leader holds its lease');
  assert.equal(leaseProblem(lease(undefined), now), 'its leader a has not renewed its lease for 15s');
});
