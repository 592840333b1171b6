/** Secret-based service-account tokens: the tokens controller's plan and the legacy token authenticator (upstream tokens_controller.go, legacy.go). */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Secret, ServiceAccount } from 'kubernetes-types/core/v1.js';
import { generateKeyPair } from '../../src/pki/keys.js';
import { parseJWT, serviceAccountKeys, signJWT, signingKey, type ObjectGetter } from '../../src/apiserver/serviceaccount/index.js';
import { legacyServiceAccountTokenAuthenticator } from '../../src/apiserver/auth/legacy-serviceaccount-token.js';
import { legacyTokenClaims } from '../../src/api/legacy-serviceaccount-token.js';
import { planTokenSecret } from '../../src/controllers/serviceaccount/plan.js';
import { StatusError } from '../../src/api/status.js';

const pair = generateKeyPair();
const key = signingKey(pair.keyPem);
const sign = (sa: ServiceAccount, secret: Secret) => signJWT(legacyTokenClaims(sa, secret), key);
const sa: ServiceAccount = { metadata: { name: 'build-robot', namespace: 'default', uid: 'sa-uid' } };
const secret = (annotations: Record<string, string>, data?: Record<string, string>): Secret => ({
  metadata: { name: 'build-robot-secret', namespace: 'default', uid: 's-uid', annotations }, type: 'kubernetes.io/service-account-token', ...(data ? { data } : {}),
});
const b64 = (s: string) => Buffer.from(s).toString('base64');

describe('tokens controller plan', () => {
  it('fills in token, ca.crt, namespace and the uid annotation; the token names the Secret and the ServiceAccount', () => {
    const action = planTokenSecret(secret({ 'kubernetes.io/service-account.name': 'build-robot' }), sa, 'CA', sign);
    assert.ok(action && 'update' in action);
    const next = action.update;
    assert.equal(next.data!['ca.crt'], b64('CA'));
    assert.equal(next.data!.namespace, b64('default'));
    assert.equal(next.metadata!.annotations!['kubernetes.io/service-account.uid'], 'sa-uid');
    assert.deepEqual(Object.keys(parseJWT(Buffer.from(next.data!.token!, 'base64').toString())!.payload), [
      'iss', 'kubernetes.io/serviceaccount/namespace', 'kubernetes.io/serviceaccount/secret.name',
      'kubernetes.io/serviceaccount/service-account.name', 'kubernetes.io/serviceaccount/service-account.uid', 'sub',
    ]);
  });

  it('table: what is written for each Secret', () => {
    const full = { token: b64('t'), 'ca.crt': b64('CA'), namespace: b64('default') };
    const named = { 'kubernetes.io/service-account.name': 'build-robot' };
    const table: [string, Secret, ServiceAccount | undefined, string][] = [
      ['complete: nothing', secret({ ...named, 'kubernetes.io/service-account.uid': 'sa-uid' }, full), sa, 'none'],
      ['no ServiceAccount: deleted', secret(named, full), undefined, 'delete'],
      ['another uid: deleted', secret({ ...named, 'kubernetes.io/service-account.uid': 'old' }, full), sa, 'delete'],
      ['another name: deleted', secret({ 'kubernetes.io/service-account.name': 'x' }, full), sa, 'delete'],
      ['a changed CA: put back, the token kept', secret({ ...named, 'kubernetes.io/service-account.uid': 'sa-uid' }, { ...full, 'ca.crt': b64('old') }), sa, 'update'],
    ];
    for (const [name, s, account, want] of table) {
      const action = planTokenSecret(s, account, 'CA', sign);
      assert.equal(action === undefined ? 'none' : 'delete' in action ? 'delete' : 'update', want, name);
      if (action && 'update' in action) assert.equal(action.update.data!.token, full.token, name);
    }
  });
});

describe('legacy token authenticator', () => {
  const keys = serviceAccountKeys(pair.keyPem, pair.publicKeyPem);
  const token = sign(sa, secret({}));
  const world = (stored: Record<string, unknown>) => {
    const get: ObjectGetter = async (resource, namespace, name) => {
      const o = stored[`${resource}/${namespace}/${name}`];
      if (!o) throw new StatusError({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', code: 404, reason: 'NotFound', message: 'not found' });
      return o;
    };
    return legacyServiceAccountTokenAuthenticator({ keys: keys.keys, get });
  };
  const stored = { 'secrets/default/build-robot-secret': { metadata: { uid: 's-uid' }, data: { token: b64(token) } }, 'serviceaccounts/default/build-robot': sa };

  it('authenticates as the ServiceAccount while its Secret holds the token', async () => {
    assert.deepEqual(await world(stored)(token), {
      name: 'system:serviceaccount:default:build-robot', uid: 'sa-uid', groups: ['system:serviceaccounts', 'system:serviceaccounts:default'],
    });
  });

  it('refuses: Secret gone, deleting or holding another token; ServiceAccount gone or recreated; another signer', async () => {
    const other = signJWT(legacyTokenClaims(sa, secret({})), signingKey(generateKeyPair().keyPem));
    const cases: [string, Record<string, unknown>, string][] = [
      ['secret gone', { 'serviceaccounts/default/build-robot': sa }, token],
      ['secret deleting', { ...stored, 'secrets/default/build-robot-secret': { metadata: { deletionTimestamp: '2026-01-01T00:00:00Z' }, data: { token: b64(token) } } }, token],
      ['another token', { ...stored, 'secrets/default/build-robot-secret': { metadata: {}, data: { token: b64('x') } } }, token],
      ['service account gone', { 'secrets/default/build-robot-secret': stored['secrets/default/build-robot-secret'] }, token],
      ['service account recreated', { ...stored, 'serviceaccounts/default/build-robot': { metadata: { name: 'build-robot', uid: 'new' } } }, token],
      ['another signer', stored, other],
      ['not a JWT', stored, 'abc'],
    ];
    for (const [name, s, t] of cases) assert.equal(await world(s)(t), undefined, name);
  });
});
