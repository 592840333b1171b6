import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Secret } from 'kubernetes-types/core/v1.js';
import {
  bootstrapTokenFromSecret, bootstrapTokenToSecret, computeDetachedSignature, detachedTokenIsValid, generateBootstrapToken,
  isValidBootstrapToken, isValidBootstrapTokenID, newBootstrapTokenString, parseBootstrapToken, parseSecretName, signingToken,
  tokenExpiration, tokenGroups, validateBootstrapGroupName, validateBootstrapToken, validateUsages, type BootstrapToken,
} from '../../src/api/bootstraptoken/index.js';
import { fieldErrorMessage } from '../../src/api/field-errors.js';

// Upstream's vectors: k8s.io/cluster-bootstrap token/jws/jws_test.go.
const content = 'Hello from the other side. I must have called a thousand times.';
const secret = 'my voice is my passcode';
const id = 'joshua';

test('JWS: detached HS256 signatures equal upstream test vectors', () => {
  assert.equal(computeDetachedSignature(content, id, secret), 'eyJhbGciOiJIUzI1NiIsImtpZCI6Impvc2h1YSJ9..VShe2taLd-YTrmWuRkcL_8QTNDHYxQIEBsAYYiIj1_8');
  assert.equal(computeDetachedSignature('', id, secret), 'eyJhbGciOiJIUzI1NiIsImtpZCI6Impvc2h1YSJ9..7Ui1ALizW4jXphVUB7xUqC9vLYLL9RZeOFfVLoB7Tgk');
  assert.equal(computeDetachedSignature(content, id, ''), 'eyJhbGciOiJIUzI1NiIsImtpZCI6Impvc2h1YSJ9..UfkqvDGiIFxrMnFseDj9LYJOLNrvjW8aHhF71mvvAs8');
  const header = JSON.parse(Buffer.from(computeDetachedSignature(content, 'abcdef', 'x').split('.')[0]!, 'base64url').toString());
  assert.deepEqual(header, { alg: 'HS256', kid: 'abcdef' });
});

test('JWS: validation accepts the signature and refuses a changed one, content or key', () => {
  const sig = 'eyJhbGciOiJIUzI1NiIsImtpZCI6Impvc2h1YSJ9..VShe2taLd-YTrmWuRkcL_8QTNDHYxQIEBsAYYiIj1_8';
  assert.equal(detachedTokenIsValid(sig, content, id, secret), true);
  assert.equal(detachedTokenIsValid(`${sig}foo`, content, id, secret), false);
  assert.equal(detachedTokenIsValid(sig, `${content}!`, id, secret), false);
  assert.equal(detachedTokenIsValid(sig, content, id, 'another secret'), false);
  assert.equal(detachedTokenIsValid(sig, content, 'joshub', secret), false);
});

test('token format: generated tokens match [a-z0-9]{6}.[a-z0-9]{16} and differ', () => {
  const seen = new Set<string>();
  for (let i = 0; i < 200; i++) {
    const t = generateBootstrapToken();
    assert.match(t, /^[a-z0-9]{6}\.[a-z0-9]{16}$/);
    assert.equal(isValidBootstrapToken(t), true);
    seen.add(t);
  }
  assert.equal(seen.size, 200);
});

test('token format: parsing and the ids and Secret names', () => {
  const cases: Array<[string, boolean]> = [
    ['abcdef.0123456789abcdef', true], ['ABCDEF.0123456789abcdef', false], ['abcdef:0123456789abcdef', false],
    ['abcde.0123456789abcdef', false], ['abcdef.0123456789abcdeF', false], ['abcdef.0123456789abcde', false],
    ['abcdef.0123456789abcdef0', false], ['.abcdef.0123456789abcdef', false], ['', false],
  ];
  for (const [token, ok] of cases) {
    assert.equal(isValidBootstrapToken(token), ok, token);
    assert.equal(parseBootstrapToken(token) !== undefined, ok, token);
  }
  assert.deepEqual(parseBootstrapToken('abcdef.0123456789abcdef'), { id: 'abcdef', secret: '0123456789abcdef' });
  assert.equal(isValidBootstrapTokenID('abc123'), true);
  assert.equal(isValidBootstrapTokenID('abc12'), false);
  assert.equal(parseSecretName('bootstrap-token-abc123'), 'abc123');
  assert.equal(parseSecretName('bootstrap-token-abc1234'), undefined);
  assert.throws(() => newBootstrapTokenString('nope'), { message: 'the bootstrap token "nope" was not of the form "\\\\A([a-z0-9]{6})\\\\.([a-z0-9]{16})\\\\z"' });
});

const now = new Date('2026-12-01T10:00:00Z');
const token = (over: Partial<BootstrapToken> = {}): BootstrapToken => ({
  token: { id: 'abcdef', secret: '0123456789abcdef' }, usages: ['signing', 'authentication'],
  groups: ['system:bootstrappers:kubeadm:default-node-token'], ttlMs: 24 * 3_600_000, ...over,
});
const data = (s: Secret) => Object.fromEntries(Object.entries(s.data ?? {}).map(([k, v]) => [k, Buffer.from(v, 'base64').toString()]));

test('Secret codec: kubeadm\'s layout, expiration from the TTL, and back', () => {
  const s = bootstrapTokenToSecret(token({ description: 'for workers' }), now);
  assert.equal(s.metadata?.name, 'bootstrap-token-abcdef');
  assert.equal(s.metadata?.namespace, 'kube-system');
  assert.equal(s.type, 'bootstrap.kubernetes.io/token');
  assert.deepEqual(data(s), {
    'token-id': 'abcdef', 'token-secret': '0123456789abcdef', description: 'for workers', expiration: '2026-12-02T10:00:00Z',
    'usage-bootstrap-signing': 'true', 'usage-bootstrap-authentication': 'true',
    'auth-extra-groups': 'system:bootstrappers:kubeadm:default-node-token',
  });
  const back = bootstrapTokenFromSecret(s);
  assert.deepEqual(back, {
    token: { id: 'abcdef', secret: '0123456789abcdef' }, description: 'for workers', expires: new Date('2026-12-02T10:00:00Z'),
    usages: ['authentication', 'signing'], groups: ['system:bootstrappers:kubeadm:default-node-token'],
  });
  assert.equal(data(bootstrapTokenToSecret(token({ ttlMs: 0 }), now)).expiration, undefined, 'TTL 0 never expires');
  assert.equal(data(bootstrapTokenToSecret(token({ expires: new Date('2030-01-01T00:00:00Z') }), now)).expiration, '2030-01-01T00:00:00Z');
});

test('Secret codec: malformed Secrets give kubeadm\'s errors', () => {
  const enc = (o: Record<string, string>) => Object.fromEntries(Object.entries(o).map(([k, v]) => [k, Buffer.from(v).toString('base64')]));
  const mk = (name: string, d: Record<string, string>): Secret => ({ metadata: { name, namespace: 'kube-system' }, type: 'bootstrap.kubernetes.io/token', data: enc(d) });
  assert.throws(() => bootstrapTokenFromSecret(mk('bootstrap-token-abcdef', {})), { message: 'bootstrap Token Secret has no token-id data: bootstrap-token-abcdef' });
  assert.throws(() => bootstrapTokenFromSecret(mk('bootstrap-token-x', { 'token-id': 'abcdef' })),
    { message: 'bootstrap token name is not of the form \'bootstrap-token-(token-id)\'. Actual: "bootstrap-token-x". Expected: "bootstrap-token-abcdef"' });
  assert.throws(() => bootstrapTokenFromSecret(mk('bootstrap-token-abcdef', { 'token-id': 'abcdef' })), { message: 'bootstrap Token Secret has no token-secret data: bootstrap-token-abcdef' });
  assert.throws(() => bootstrapTokenFromSecret(mk('bootstrap-token-abcdef', { 'token-id': 'abcdef', 'token-secret': 'short' })),
    /^Error: bootstrap Token Secret is invalid and couldn't be parsed: the bootstrap token "abcdef.short" was not of the form/);
});

test('expiration: none never expires, past or unparseable has expired', () => {
  const mk = (expiration?: string): Secret => ({ data: expiration === undefined ? {} : { expiration: Buffer.from(expiration).toString('base64') } });
  assert.deepEqual(tokenExpiration(mk(), now), { expired: false });
  assert.deepEqual(tokenExpiration(mk('2026-12-01T10:00:30Z'), now), { expired: false, remainingMs: 30_000 });
  assert.deepEqual(tokenExpiration(mk('2026-12-01T10:00:00Z'), now), { expired: true });
  assert.deepEqual(tokenExpiration(mk('2026-12-01T12:00:00+02:00'), now), { expired: true });
  assert.deepEqual(tokenExpiration(mk('tomorrow'), now), { expired: true });
  assert.deepEqual(tokenExpiration(mk('2026-12-02'), now), { expired: true });
});

test('groups: system:bootstrappers plus valid extra groups, sorted and unique', () => {
  const mk = (g: string): Secret => ({ data: { 'auth-extra-groups': Buffer.from(g).toString('base64') } });
  assert.deepEqual(tokenGroups({}), { groups: ['system:bootstrappers'] });
  assert.deepEqual(tokenGroups(mk('system:bootstrappers:z,system:bootstrappers:a,system:bootstrappers:z')),
    { groups: ['system:bootstrappers', 'system:bootstrappers:a', 'system:bootstrappers:z'] });
  assert.deepEqual(tokenGroups(mk('system:masters')),
    { error: 'bootstrap group "system:masters" is invalid (must match \\Asystem:bootstrappers:[a-z0-9:-]{0,255}[a-z0-9]\\z)' });
});

test('validation: kubeadm\'s messages for usages, groups and the token', () => {
  assert.equal(validateUsages(['signing', 'authentication']), undefined);
  assert.equal(validateUsages(['foo', 'signing', 'bar']), 'invalid bootstrap token usage string: bar,foo, valid usage options: signing,authentication');
  assert.equal(validateBootstrapGroupName('system:bootstrappers:kubeadm:default-node-token'), undefined);
  assert.deepEqual(validateBootstrapToken(token()), []);
  const msgs = (bt: BootstrapToken) => validateBootstrapToken(bt).map(fieldErrorMessage);
  assert.deepEqual(msgs(token({ usages: ['foo'] })), [
    'bootstrapTokens.0.usages: Invalid value: []string{"foo"}: invalid bootstrap token usage string: foo, valid usage options: signing,authentication',
    'bootstrapTokens.0.groups: Invalid value: []string{"system:bootstrappers:kubeadm:default-node-token"}: token groups cannot be specified unless --usages includes "authentication"',
  ]);
  assert.deepEqual(msgs(token({ groups: ['bad'] })), [
    'bootstrapTokens.0.groups: Invalid value: []string{"bad"}: bootstrap group "bad" is invalid (must match \\Asystem:bootstrappers:[a-z0-9:-]{0,255}[a-z0-9]\\z)',
  ]);
});

test('signing: only well-named, unexpired tokens with usage-bootstrap-signing=true sign', () => {
  const s = bootstrapTokenToSecret(token(), now);
  assert.deepEqual(signingToken(s, now), { id: 'abcdef', secret: '0123456789abcdef' });
  assert.equal(signingToken(s, new Date('2026-12-03T00:00:00Z')), undefined, 'expired');
  assert.equal(signingToken(bootstrapTokenToSecret(token({ usages: ['authentication'] }), now), now), undefined, 'no signing usage');
  assert.equal(signingToken({ ...s, metadata: { ...s.metadata, name: 'bootstrap-token-zzzzzz' } }, now), undefined, 'name and id differ');
  assert.equal(signingToken({ ...s, type: 'Opaque' }, now), undefined, 'not a token Secret');
});
