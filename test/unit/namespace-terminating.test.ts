/**
 * isNamespaceTerminating recognises upstream's NamespaceLifecycle refusal by its
 * StatusCause. A cause's type is serialised as `reason` (metav1.StatusCause:
 * `Type CauseType json:"reason"`); the check used to read a `type` field that
 * no API server sends, and so relied on the message alone.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ApiError, isNamespaceTerminating } from '../../src/client/index.js';

describe('isNamespaceTerminating', () => {
  it('matches the NamespaceTerminating cause as kube-apiserver sends it, whatever the message', () => {
    const status = {
      kind: 'Status', apiVersion: 'v1', status: 'Failure', reason: 'Forbidden', code: 403,
      details: { name: 'web-x', kind: 'pods', causes: [{ reason: 'NamespaceTerminating', message: 'namespace ns is being terminated', field: 'metadata.namespace' }] },
    };
    assert.equal(isNamespaceTerminating(new ApiError(403, 'Forbidden', 'pods "web-x" is forbidden', status)), true);
  });
  it('matches the message namespace admission uses', () => {
    const msg = 'pods "x" is forbidden: unable to create new content in namespace ns because it is being terminated';
    assert.equal(isNamespaceTerminating(new ApiError(403, 'Forbidden', msg)), true);
  });
  it('does not match another Forbidden or another cause', () => {
    const status = { details: { causes: [{ reason: 'FieldValueInvalid', field: 'metadata.namespace' }] } };
    assert.equal(isNamespaceTerminating(new ApiError(403, 'Forbidden', 'pods "x" is forbidden: quota', status)), false);
    assert.equal(isNamespaceTerminating(undefined), false);
  });
});
