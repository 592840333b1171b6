/** The CSR controllers' pure rules: recognizers, signer checks, cleanup, signing profile; and the request check. */
import { strict as assert } from 'node:assert';
import { test } from 'node:test';
import { generateKeyPairSync } from 'node:crypto';
import type { CertificateSigningRequest } from 'kubernetes-types/certificates/v1.js';
import { isNodeClientCert, isSelfNodeClientCert, recognizers, subjectAccessReviewFor } from '../../src/controllers/certificates/approver-rules.js';
import { checkRequestForSigner } from '../../src/controllers/certificates/signer-rules.js';
import { cleanupReason } from '../../src/controllers/certificates/cleaner-rules.js';
import type { RequestedSubject } from '../../src/api/csr.js';
import { checkCertificateRequest, createCA, createCertificateRequest, generateKeyPair, issueCertificate, signingDurationMs, signingProfile } from '../../src/pki/index.js';

const nodeReq = (over: Partial<RequestedSubject> = {}): RequestedSubject => ({
  commonName: 'system:node:n1', organizations: ['system:nodes'], dnsNames: [], ipAddresses: [], emailAddresses: [], uris: [], ...over,
});
const csrOf = (spec: Partial<CertificateSigningRequest['spec']>, status: CertificateSigningRequest['status'] = {}): CertificateSigningRequest => ({
  metadata: { name: 'c', creationTimestamp: '2026-01-01T00:00:00Z' },
  spec: { request: '', signerName: 'kubernetes.io/kube-apiserver-client-kubelet', usages: ['digital signature', 'client auth'], ...spec }, status,
});

const nodeClientCases: [string, Partial<CertificateSigningRequest['spec']>, Partial<RequestedSubject>, boolean][] = [
  ['kubelet ECDSA usages', {}, {}, true],
  ['kubelet RSA usages', { usages: ['digital signature', 'key encipherment', 'client auth'] }, {}, true],
  ['usage order does not matter', { usages: ['client auth', 'digital signature'] }, {}, true],
  ['other signer', { signerName: 'kubernetes.io/kube-apiserver-client' }, {}, false],
  ['server auth usage', { usages: ['digital signature', 'client auth', 'server auth'] }, {}, false],
  ['missing digital signature', { usages: ['client auth'] }, {}, false],
  ['two organizations', {}, { organizations: ['system:nodes', 'x'] }, false],
  ['not a node CN', {}, { commonName: 'jane' }, false],
  ['DNS SAN', {}, { dnsNames: ['n1'] }, false],
  ['IP SAN', {}, { ipAddresses: ['10.0.0.1'] }, false],
];
for (const [name, spec, req, want] of nodeClientCases) test(`isNodeClientCert: ${name}`, () => assert.equal(isNodeClientCert(csrOf(spec), nodeReq(req)), want));

test('isSelfNodeClientCert: the requester is the node the certificate names', () => {
  assert.equal(isSelfNodeClientCert(csrOf({ username: 'system:node:n1' }), nodeReq()), true);
  assert.equal(isSelfNodeClientCert(csrOf({ username: 'system:bootstrap:abcdef' }), nodeReq()), false);
  assert.equal(isSelfNodeClientCert(csrOf({ username: 'system:node:n2' }), nodeReq()), false);
  assert.deepEqual(recognizers.map((r) => r.subresource), ['selfnodeclient', 'nodeclient']);
});

test('the SubjectAccessReview asks for create on certificatesigningrequests/<subresource> as the requester', () => {
  const sar: any = subjectAccessReviewFor(csrOf({ username: 'system:bootstrap:abcdef', uid: 'u', groups: ['system:bootstrappers'], extra: { k: ['v'] } }), 'nodeclient');
  assert.deepEqual(sar.spec, {
    user: 'system:bootstrap:abcdef', uid: 'u', groups: ['system:bootstrappers'], extra: { k: ['v'] },
    resourceAttributes: { group: 'certificates.k8s.io', resource: 'certificatesigningrequests', verb: 'create', subresource: 'nodeclient', version: '*' },
  });
});

const signerCases: [string, string, Partial<RequestedSubject>, string[], ReturnType<typeof checkRequestForSigner>][] = [
  ['kube-apiserver-client', 'kubernetes.io/kube-apiserver-client', { organizations: [] }, ['client auth'], { recognized: true, error: undefined }],
  ['kube-apiserver-client server auth', 'kubernetes.io/kube-apiserver-client', {}, ['client auth', 'server auth'], { recognized: true, error: 'invalid usage for client certificate: server auth' }],
  ['kube-apiserver-client no client auth', 'kubernetes.io/kube-apiserver-client', {}, ['digital signature'], { recognized: true, error: 'missing required usage for client certificate: client auth' }],
  ['kubelet client wrong O', 'kubernetes.io/kube-apiserver-client-kubelet', { organizations: ['devs'] }, ['digital signature', 'client auth'], { recognized: true, error: 'subject organization is not system:nodes' }],
  ['kubelet client wrong usages', 'kubernetes.io/kube-apiserver-client-kubelet', {}, ['client auth'], { recognized: true, error: 'usages did not match [client auth digital signature key encipherment]' }],
  ['kubelet serving', 'kubernetes.io/kubelet-serving', { dnsNames: ['n1'] }, ['digital signature', 'server auth'], { recognized: true, error: undefined }],
  ['kubelet serving without SAN', 'kubernetes.io/kubelet-serving', {}, ['digital signature', 'server auth'], { recognized: true, error: 'DNS or IP subjectAltName is required' }],
  ['other signer', 'example.com/signer', {}, ['client auth'], { recognized: false }],
];
for (const [name, signer, req, usages, want] of signerCases) test(`checkRequestForSigner: ${name}`, () => assert.deepEqual(checkRequestForSigner(signer, nodeReq(req), usages), want));

test('cleanupReason: upstream\'s deadlines', async () => {
  const now = Date.parse('2026-01-02T12:00:00Z');
  const at = (msAgo: number) => new Date(now - msAgo).toISOString();
  const H = 3600_000;
  const ca = await createCA({ commonName: 'ca', days: 1 });
  const live = Buffer.from((await issueCertificate({ ca, commonName: 'x', usages: ['client'], days: 1 })).certPem).toString('base64');
  const expired = Buffer.from((await issueCertificate({ ca, commonName: 'x', usages: ['client'], days: 0.001 })).certPem).toString('base64');
  const cases: [string, CertificateSigningRequest, boolean][] = [
    ['pending a day', { ...csrOf({}), metadata: { name: 'c', creationTimestamp: at(25 * H) } }, true],
    ['pending an hour', { ...csrOf({}), metadata: { name: 'c', creationTimestamp: at(H) } }, false],
    ['denied 2 h ago', csrOf({}, { conditions: [{ type: 'Denied', status: 'True', lastUpdateTime: at(2 * H) }] }), true],
    ['denied just now', csrOf({}, { conditions: [{ type: 'Denied', status: 'True', lastUpdateTime: at(60_000) }] }), false],
    ['failed 2 h ago', csrOf({}, { conditions: [{ type: 'Approved', status: 'True', lastUpdateTime: at(3 * H) }, { type: 'Failed', status: 'True', lastUpdateTime: at(2 * H) }] }), true],
    ['approved 2 h ago, not issued', csrOf({}, { conditions: [{ type: 'Approved', status: 'True', lastUpdateTime: at(2 * H) }] }), false],
    ['issued, approved 2 h ago', csrOf({}, { certificate: live, conditions: [{ type: 'Approved', status: 'True', lastUpdateTime: at(2 * H) }] }), true],
    ['issued just now', csrOf({}, { certificate: live, conditions: [{ type: 'Approved', status: 'True', lastUpdateTime: at(60_000) }] }), false],
  ];
  for (const [name, csr, want] of cases) assert.equal(cleanupReason(csr, now) !== undefined, want, name);
  const issuedExpired = csrOf({}, { certificate: expired, conditions: [{ type: 'Approved', status: 'True', lastUpdateTime: new Date(Date.now() + 2 * H - 60_000).toISOString() }] });
  assert.equal(cleanupReason(issuedExpired, Date.now() + 2 * H), 'its certificate has expired');
});

test('signing profile: usages, upstream\'s duration and backdating', () => {
  const now = 1_000_000_000_000;
  const p = signingProfile(['digital signature', 'key encipherment', 'client auth'], 3600_000, now);
  assert.deepEqual(p, { keyUsage: 1 | 4, extKeyUsages: ['1.3.6.1.5.5.7.3.2'], notBeforeMs: now - 300_000, notAfterMs: now + 3600_000 });
  const long = signingProfile(['client auth'], 8760 * 3600_000, now);
  assert.equal('notAfterMs' in long && long.notAfterMs, now + 8760 * 3600_000 - 5 * 60_000);
  assert.deepEqual(signingProfile(['client auth', 'fly'], 1, now), { error: 'unrecognized usage values: ["fly"]' });
  assert.equal(signingDurationMs(8760 * 3600_000, undefined), 8760 * 3600_000);
  assert.equal(signingDurationMs(8760 * 3600_000, 3600), 3600_000);
  assert.equal(signingDurationMs(3600_000, 7200), 3600_000);
  assert.equal(signingDurationMs(3600_000, 60), 600_000);
});

test('checkCertificateRequest: PEM type, structure and self-signature (ECDSA, RSA, Ed25519)', async () => {
  const ec = await createCertificateRequest({ keyPem: generateKeyPair().keyPem, commonName: 'a' });
  assert.equal(checkCertificateRequest(ec), undefined);
  const rsaKey = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ type: 'pkcs8', format: 'pem' }) as string;
  const rsa = await createCertificateRequest({ keyPem: rsaKey, commonName: 'a' });
  assert.equal(checkCertificateRequest(rsa), undefined);
  const flip = (pem: string) => {
    const der = Buffer.from(pem.replace(/-----[^-]+-----/g, '').replace(/\s+/g, ''), 'base64');
    der[der.length - 3] ^= 1;
    return `-----BEGIN CERTIFICATE REQUEST-----\n${der.toString('base64')}\n-----END CERTIFICATE REQUEST-----\n`;
  };
  assert.equal(checkCertificateRequest(flip(ec)), 'x509: ECDSA verification failure');
  assert.equal(checkCertificateRequest(flip(rsa)), 'crypto/rsa: verification error');
  assert.equal(checkCertificateRequest('-----BEGIN CERTIFICATE-----\nMAA=\n-----END CERTIFICATE-----\n'), 'PEM block type must be CERTIFICATE REQUEST');
  assert.equal(checkCertificateRequest('-----BEGIN CERTIFICATE REQUEST-----\nAgA=\n-----END CERTIFICATE REQUEST-----\n'), "asn1: structure error: tags don't match");
  assert.equal(checkCertificateRequest(''), 'PEM block type must be CERTIFICATE REQUEST');
});
