/** Service-account tokens: JWT signing and verification, bound claims, TokenRequest rules, the token authenticator. */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createHash, createPublicKey, generateKeyPairSync, webcrypto } from 'node:crypto';
import type { TokenRequest } from 'kubernetes-types/authentication/v1.js';
import { generateKeyPair } from '../../src/pki/keys.js';
import {
  checkTokenTimes, createToken, keyIDFromPublicKey, parseJWT, serviceAccountKeys, signJWT, signingKey, tokenClaims, verifyJWT, verifyingKey,
  type ObjectGetter,
} from '../../src/apiserver/serviceaccount/index.js';
import { serviceAccountTokenAuthenticator } from '../../src/apiserver/auth/serviceaccount-token.js';
import { StatusError } from '../../src/api/status.js';

const issuer = 'https://kubernetes.default.svc.cluster.local';
const ec = generateKeyPair();
const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 });
const rsaPem = { keyPem: rsa.privateKey.export({ type: 'pkcs8', format: 'pem' }) as string, publicKeyPem: rsa.publicKey.export({ type: 'spki', format: 'pem' }) as string };

function world(now = new Date('2026-12-01T12:00:00Z')) {
  const objects = new Map<string, any>([
    ['serviceaccounts/ns/app', { metadata: { name: 'app', namespace: 'ns', uid: 'sa-uid' } }],
    ['pods/ns/web', { metadata: { name: 'web', namespace: 'ns', uid: 'pod-uid' }, spec: { serviceAccountName: 'app', nodeName: 'n1' } }],
    ['pods/ns/other', { metadata: { name: 'other', namespace: 'ns', uid: 'other-uid' }, spec: { serviceAccountName: 'default' } }],
    ['secrets/ns/s', { metadata: { name: 's', namespace: 'ns', uid: 'secret-uid' } }],
    ['nodes/-/n1', { metadata: { name: 'n1', uid: 'node-uid' } }],
  ]);
  const get: ObjectGetter = async (resource, namespace, name) => {
    const o = objects.get(`${resource}/${namespace ?? '-'}/${name}`);
    if (!o) throw new StatusError({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', code: 404, reason: 'NotFound', message: `${resource} "${name}" not found` });
    return o;
  };
  const keys = serviceAccountKeys(ec.keyPem, ec.publicKeyPem);
  let clock = now;
  const authenticate = serviceAccountTokenAuthenticator({ issuers: [issuer], audiences: [issuer], keys: keys.keys, get, now: () => clock });
  const request = (name: string, spec: Partial<TokenRequest['spec']> = {}, ns = 'ns') => createToken(keys.issuer, get, { namespace: ns, name, body: { spec } as TokenRequest, now: clock });
  return { objects, get, keys, authenticate, request, setNow: (d: Date) => { clock = d; } };
}

const payloadOf = (token: string) => parseJWT(token)!.payload as any;

describe('JWT signing', () => {
  it('kid is the base64url SHA-256 of the DER public key; EC keys sign ES256, RSA keys RS256', () => {
    const der = createPublicKey(ec.publicKeyPem).export({ type: 'spki', format: 'der' });
    const kid = createHash('sha256').update(der).digest('base64url');
    assert.equal(keyIDFromPublicKey(createPublicKey(ec.publicKeyPem)), kid);
    const t = signJWT({ a: 1 }, signingKey(ec.keyPem));
    assert.deepEqual(parseJWT(t)!.header, { alg: 'ES256', kid });
    assert.equal(parseJWT(signJWT({ a: 1 }, signingKey(rsaPem.keyPem)))!.header.alg, 'RS256');
  });

  it('an ES256 signature verifies with WebCrypto (raw r||s), an independent implementation', async () => {
    const t = signJWT({ sub: 'x' }, signingKey(ec.keyPem));
    const [h, p, s] = t.split('.');
    const key = await webcrypto.subtle.importKey('spki', createPublicKey(ec.publicKeyPem).export({ type: 'spki', format: 'der' }), { name: 'ECDSA', namedCurve: 'P-256' }, false, ['verify']);
    assert.equal(await webcrypto.subtle.verify({ name: 'ECDSA', hash: 'SHA-256' }, key, Buffer.from(s, 'base64url'), Buffer.from(`${h}.${p}`)), true);
  });

  it('an RS256 signature verifies with WebCrypto', async () => {
    const t = signJWT({ sub: 'x' }, signingKey(rsaPem.keyPem));
    const [h, p, s] = t.split('.');
    const key = await webcrypto.subtle.importKey('spki', createPublicKey(rsaPem.publicKeyPem).export({ type: 'spki', format: 'der' }), { name: 'RSASSA-PKCS1-v1_5', hash: 'SHA-256' }, false, ['verify']);
    assert.equal(await webcrypto.subtle.verify('RSASSA-PKCS1-v1_5', key, Buffer.from(s, 'base64url'), Buffer.from(`${h}.${p}`)), true);
  });

  it('verification needs the signing key, the header algorithm of that key, and an untouched payload', () => {
    const t = signJWT({ sub: 'x' }, signingKey(ec.keyPem));
    assert.equal(verifyJWT(parseJWT(t)!, [verifyingKey(ec.publicKeyPem)]), true);
    assert.equal(verifyJWT(parseJWT(t)!, [verifyingKey(generateKeyPair().publicKeyPem)]), false);
    assert.equal(verifyJWT(parseJWT(t)!, [verifyingKey(rsaPem.publicKeyPem)]), false);
    const [h, , s] = t.split('.');
    const forged = `${h}.${Buffer.from(JSON.stringify({ sub: 'admin' })).toString('base64url')}.${s}`;
    assert.equal(verifyJWT(parseJWT(forged)!, [verifyingKey(ec.publicKeyPem)]), false);
    const none = `${Buffer.from(JSON.stringify({ alg: 'none' })).toString('base64url')}.${Buffer.from('{}').toString('base64url')}.`;
    assert.equal(verifyJWT(parseJWT(none)!, [verifyingKey(ec.publicKeyPem)]), false);
    for (const bad of ['', 'a.b', 'a.b.c.d', 'not a token', 'x.y.z']) assert.equal(parseJWT(bad), undefined, bad);
  });
});

describe('claims', () => {
  const now = new Date('2026-12-01T12:00:00Z');
  const t0 = now.getTime() / 1000;
  it('public and kubernetes.io claims as upstream lays them out', () => {
    const c = tokenClaims({
      issuer, serviceAccount: { metadata: { name: 'app', namespace: 'ns', uid: 'u' } }, pod: { metadata: { name: 'p', uid: 'pu' } }, node: { metadata: { name: 'n', uid: 'nu' } },
      expirationSeconds: 600, warnAfterSeconds: 0, audiences: ['a'], now,
    });
    assert.deepEqual({ ...c, jti: undefined }, {
      aud: ['a'], exp: t0 + 600, iat: t0, iss: issuer, jti: undefined, nbf: t0, sub: 'system:serviceaccount:ns:app',
      'kubernetes.io': { namespace: 'ns', serviceaccount: { name: 'app', uid: 'u' }, pod: { name: 'p', uid: 'pu' }, node: { name: 'n', uid: 'nu' } },
    });
    assert.match(c.jti, /^[0-9a-f-]{36}$/);
  });
  it('a token binds to a secret or to a pod/node, not both', () => {
    assert.throws(() => tokenClaims({ issuer, serviceAccount: {}, secret: {}, pod: {}, expirationSeconds: 600, warnAfterSeconds: 0, audiences: [], now }), /only be bound to one object type/);
  });
  const cases: [string, object, number, string | undefined][] = [
    ['current', { exp: t0 + 10, nbf: t0, iat: t0 }, 0, undefined],
    ['expired within the leeway', { exp: t0 }, 60, undefined],
    ['expired past the leeway', { exp: t0 }, 61, 'service account token has expired'],
    ['not yet valid past the leeway', { nbf: t0 + 61, exp: t0 + 1000 }, 0, 'service account token is not valid yet'],
    ['issued in the future', { iat: t0 + 61, exp: t0 + 1000 }, 0, 'service account token is issued in the future'],
  ];
  for (const [name, claims, later, want] of cases) {
    it(`times: ${name}`, () => assert.equal(checkTokenTimes(claims, new Date(now.getTime() + later * 1000)), want));
  }
});

describe('TokenRequest', () => {
  it('defaults audiences to the issuer and expiry to an hour; status.expirationTimestamp is now + expirationSeconds', async () => {
    const w = world();
    const tr = await w.request('app');
    assert.deepEqual(tr.spec.audiences, [issuer]);
    assert.equal(tr.spec.expirationSeconds, 3600);
    assert.equal(tr.status!.expirationTimestamp, '2026-12-01T13:00:00Z');
    assert.equal(tr.metadata!.name, 'app');
    const p = payloadOf(tr.status!.token);
    assert.deepEqual(p['kubernetes.io'], { namespace: 'ns', serviceaccount: { name: 'app', uid: 'sa-uid' } });
    assert.equal(p.exp - p.iat, 3600);
  });

  it('refuses less than 10 minutes and more than 2^32 seconds with upstream words', async () => {
    const w = world();
    await assert.rejects(w.request('app', { expirationSeconds: 300 } as any), { message: 'TokenRequest.authentication.k8s.io "" is invalid: spec.expirationSeconds: Invalid value: 300: may not specify a duration less than 10 minutes' });
    await assert.rejects(w.request('app', { expirationSeconds: 2 ** 32 + 1 } as any), /may not specify a duration larger than 2\^32 seconds/);
    await assert.rejects(w.request('nope'), { message: 'serviceaccounts "nope" not found' });
  });

  it('binds to a pod (with its node), a secret or a node; checks the uid and the pod\'s service account', async () => {
    const w = world();
    const pod = payloadOf((await w.request('app', { boundObjectRef: { kind: 'Pod', apiVersion: 'v1', name: 'web', uid: 'pod-uid' } } as any)).status!.token);
    assert.deepEqual(pod['kubernetes.io'].pod, { name: 'web', uid: 'pod-uid' });
    assert.deepEqual(pod['kubernetes.io'].node, { name: 'n1', uid: 'node-uid' });
    const secret = payloadOf((await w.request('app', { boundObjectRef: { kind: 'Secret', apiVersion: 'v1', name: 's' } } as any)).status!.token);
    assert.deepEqual(secret['kubernetes.io'].secret, { name: 's', uid: 'secret-uid' });
    const node = payloadOf((await w.request('app', { boundObjectRef: { kind: 'Node', apiVersion: 'v1', name: 'n1' } } as any)).status!.token);
    assert.deepEqual(node['kubernetes.io'].node, { name: 'n1', uid: 'node-uid' });
    await assert.rejects(w.request('app', { boundObjectRef: { kind: 'Pod', apiVersion: 'v1', name: 'web', uid: 'old' } } as any),
      { message: 'Operation cannot be fulfilled on Pod "web": the UID in the bound object reference (old) does not match the UID in record. The object might have been deleted and then recreated' });
    await assert.rejects(w.request('app', { boundObjectRef: { kind: 'Pod', apiVersion: 'v1', name: 'other' } } as any),
      { message: 'cannot bind token for serviceaccount "app" to pod running with different serviceaccount name.' });
    await assert.rejects(w.request('app', { boundObjectRef: { kind: 'ConfigMap', apiVersion: 'v1', name: 'c' } } as any),
      { message: 'cannot bind token to object of type /v1, Kind=ConfigMap' });
    await assert.rejects(w.request('app', { boundObjectRef: { kind: 'Pod', apiVersion: 'v1', name: 'gone' } } as any), { message: 'pods "gone" not found' });
  });

  it('the kubelet\'s 3607 s pod-bound token lives a year with warnafter; other requests are not extended', async () => {
    const w = world();
    const ref = { kind: 'Pod', apiVersion: 'v1', name: 'web' };
    const tr = await w.request('app', { expirationSeconds: 3607, boundObjectRef: ref } as any);
    const p = payloadOf(tr.status!.token);
    assert.equal(p.exp - p.iat, 365 * 24 * 3600);
    assert.equal(p['kubernetes.io'].warnafter, p.iat + 3607);
    assert.equal(tr.status!.expirationTimestamp, '2026-12-01T13:00:07Z');
    const other = payloadOf((await w.request('app', { expirationSeconds: 3607, audiences: ['vault'], boundObjectRef: ref } as any)).status!.token);
    assert.equal(other.exp - other.iat, 3607);
    assert.equal(other['kubernetes.io'].warnafter, undefined);
  });
});

describe('service-account token authenticator', () => {
  it('authenticates as the service account with upstream groups and extra', async () => {
    const w = world();
    const tok = (await w.request('app', { boundObjectRef: { kind: 'Pod', apiVersion: 'v1', name: 'web' } } as any)).status!.token;
    const user = await w.authenticate(tok);
    const jti = payloadOf(tok).jti;
    assert.deepEqual(user, {
      name: 'system:serviceaccount:ns:app', uid: 'sa-uid', groups: ['system:serviceaccounts', 'system:serviceaccounts:ns'],
      extra: {
        'authentication.kubernetes.io/pod-name': ['web'], 'authentication.kubernetes.io/pod-uid': ['pod-uid'],
        'authentication.kubernetes.io/node-name': ['n1'], 'authentication.kubernetes.io/node-uid': ['node-uid'],
        'authentication.kubernetes.io/credential-id': [`JTI=${jti}`],
      },
    });
  });

  it('refuses tokens whose service account or bound object is gone, recreated, or deleted past the leeway', async () => {
    const w = world();
    const podTok = (await w.request('app', { boundObjectRef: { kind: 'Pod', apiVersion: 'v1', name: 'web' } } as any)).status!.token;
    const secretTok = (await w.request('app', { boundObjectRef: { kind: 'Secret', apiVersion: 'v1', name: 's' } } as any)).status!.token;
    const nodeTok = (await w.request('app', { boundObjectRef: { kind: 'Node', apiVersion: 'v1', name: 'n1' } } as any)).status!.token;
    const plain = (await w.request('app')).status!.token;
    w.objects.get('pods/ns/web').metadata.deletionTimestamp = '2026-12-01T11:59:30Z';
    assert.ok(await w.authenticate(podTok), 'terminating within the leeway still counts');
    w.objects.get('pods/ns/web').metadata.deletionTimestamp = '2026-12-01T11:58:30Z';
    assert.equal(await w.authenticate(podTok), undefined);
    w.objects.delete('secrets/ns/s');
    assert.equal(await w.authenticate(secretTok), undefined);
    w.objects.get('nodes/-/n1').metadata.uid = 'recreated';
    assert.equal(await w.authenticate(nodeTok), undefined);
    assert.ok(await w.authenticate(plain));
    w.objects.get('serviceaccounts/ns/app').metadata.uid = 'recreated';
    assert.equal(await w.authenticate(plain), undefined);
  });

  it('refuses expired tokens, other issuers, audiences and keys; leaves foreign tokens alone', async () => {
    const w = world();
    const tok = (await w.request('app', { expirationSeconds: 600 } as any)).status!.token;
    w.setNow(new Date('2026-12-01T12:11:00Z'));
    assert.ok(await w.authenticate(tok), 'within the minute of leeway');
    w.setNow(new Date('2026-12-01T12:11:01Z'));
    assert.equal(await w.authenticate(tok), undefined);
    w.setNow(new Date('2026-12-01T12:00:00Z'));
    const vault = (await w.request('app', { audiences: ['vault'] } as any)).status!.token;
    assert.equal(await w.authenticate(vault), undefined);
    const claims = payloadOf(tok);
    assert.equal(await w.authenticate(signJWT({ ...claims, iss: 'someone-else' }, w.keys.issuer.key)), undefined);
    assert.equal(await w.authenticate(signJWT(claims, signingKey(generateKeyPair().keyPem))), undefined);
    assert.equal(await w.authenticate('abcdef.0123456789abcdef'), undefined);
  });
});
