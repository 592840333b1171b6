/** A kubelet's refusal of an exec or attach as a v5 caller reads it (src/apiserver/handlers/stream-refusal.ts). */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { KubeletRefusal } from '../../src/apiserver/kubelet-client/client.js';
import { translatedRefusalStatus } from '../../src/apiserver/handlers/stream-refusal.js';

describe('stream refusal', () => {
  it('a plain-text refusal is client-go\'s upgrade error wrapped as an internal error, as kube-apiserver\'s StreamTranslatorHandler writes it', () => {
    const body = 'container bb not found in pod bb_default';
    assert.deepEqual(JSON.stringify(translatedRefusalStatus(new KubeletRefusal(500, `${body}\n`))), JSON.stringify({
      metadata: {}, status: 'Failure', message: `Internal error occurred: unable to upgrade connection: ${body}`,
      reason: 'InternalError', details: { causes: [{ message: `unable to upgrade connection: ${body}` }] }, code: 500,
    }));
  });

  it('a refusal whose body is a Status is that Status', () => {
    const status = { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'forbidden', reason: 'Forbidden', code: 403 };
    assert.deepEqual(translatedRefusalStatus(new KubeletRefusal(403, JSON.stringify(status), 'application/json')), status);
  });
});
