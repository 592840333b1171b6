/**
 * The CSR strategy through a real registry: create clears requester fields
 * and status; an update of the object keeps spec and status; /status keeps
 * Approved/Denied; /approval keeps the certificate and other conditions;
 * condition timestamps are filled in.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Registry } from '../../src/registry/registry.js';
import { openSqliteBackend } from '../../src/storage/sqlite/index.js';
import { realClock } from '../../src/util/clock.js';
import { createCA, createCertificateRequest, generateKeyPair } from '../../src/pki/index.js';

test('CSR strategy: create, update, /status and /approval keep what upstream keeps', async () => {
  const backend = openSqliteBackend(':memory:', { compactIntervalMs: 0, logger: { info() {}, error() {} } });
  try {
    const store = new Registry(backend, realClock).store('certificates.k8s.io', 'v1', 'certificatesigningrequests')!;
    const request = Buffer.from(await createCertificateRequest({ keyPem: generateKeyPair().keyPem, commonName: 'x' })).toString('base64');
    const created = await store.create(undefined, {
      metadata: { name: 'c' },
      spec: { request, signerName: 'example.com/s', usages: ['client auth'], username: 'forged', groups: ['system:masters'] },
      status: { conditions: [{ type: 'Approved', status: 'True' }] },
    });
    assert.equal(created.spec.username, undefined);
    assert.equal(created.spec.groups, undefined);
    assert.deepEqual(created.status, {});

    const updated = await store.update(undefined, 'c', { ...created, spec: { ...created.spec, usages: ['server auth'] }, status: { certificate: 'eA==' } });
    assert.deepEqual(updated.spec.usages, ['client auth']);
    assert.deepEqual(updated.status, {});

    const approved = await store.update(undefined, 'c', { ...updated, status: { conditions: [{ type: 'Approved', status: 'True', reason: 'R' }, { type: 'Extra', status: 'True' }] } }, { subresource: 'approval' });
    assert.deepEqual(approved.status.conditions.map((c: any) => c.type), ['Approved']);
    assert.ok(approved.status.conditions[0].lastUpdateTime && approved.status.conditions[0].lastTransitionTime);

    const ca = await createCA({ commonName: 'ca', days: 1 });
    const certificate = Buffer.from(ca.certPem).toString('base64');
    // /status may set the certificate and add Failed; the Approved condition it sends back changed is the stored one.
    const issued = await store.update(undefined, 'c', {
      ...approved, status: { certificate, conditions: [{ ...approved.status.conditions[0], reason: 'Changed' }, { type: 'Failed', status: 'True' }] },
    }, { subresource: 'status' });
    assert.equal(issued.status.certificate, certificate);
    assert.deepEqual(issued.status.conditions.map((c: any) => [c.type, c.reason]), [['Approved', 'R'], ['Failed', undefined]]);

    // /approval keeps the certificate and the Failed condition.
    const again = await store.update(undefined, 'c', { ...issued, status: { conditions: [issued.status.conditions[0]] } }, { subresource: 'approval' });
    assert.equal(again.status.certificate, certificate);
    assert.deepEqual(again.status.conditions.map((c: any) => c.type), ['Approved', 'Failed']);
  } finally {
    await backend.close();
  }
});
