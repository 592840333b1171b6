/**
 * The kubelet API's auth rules: upstream's attribute table (method → verb,
 * path → subresource), the expiring cache, and the review caches' TTLs
 * (tokens 2 m either way, allowed 5 m, refused 30 s, failures never cached).
 * The API server is stood in for by a recording reviewer; the e2e test
 * (test/e2e/kubelet-authz.test.ts) drives the real one.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { TokenReview } from 'kubernetes-types/authentication/v1.js';
import type { SubjectAccessReview } from 'kubernetes-types/authorization/v1.js';
import { describeAttributes, isSubpath, requestAttributes } from '../../src/kubelet/server/attributes.js';
import { ExpiringCache } from '../../src/kubelet/server/expiring-cache.js';
import { createWebhookAuthorizer, subjectAccessReviewSpec } from '../../src/kubelet/server/authz.js';
import { bearerToken, createTokenAuthenticator } from '../../src/kubelet/server/authn.js';
import type { KubeletReviewer } from '../../src/kubelet/server/reviews.js';
import type { IncomingMessage } from 'node:http';
import { ApiError } from '../../src/client/index.js';
import { defaultAuthWebhookRetryBackoff, shouldRetry, withBackoff } from '../../src/kubelet/server/retry.js';

const mallory = { name: 'mallory', groups: ['system:authenticated'] };

describe('request attributes (upstream nodeAuthorizerAttributesGetter)', () => {
  const table: [string, string, string, string][] = [
    ['GET', '/pods', 'get', 'proxy'],
    ['GET', '/healthz', 'get', 'proxy'],
    ['GET', '/containerLogs/default/web/web', 'get', 'proxy'],
    ['POST', '/exec/default/web/web', 'create', 'proxy'],
    ['GET', '/exec/default/web/web', 'get', 'proxy'],
    ['POST', '/portForward/default/web', 'create', 'proxy'],
    ['POST', '/run/default/web/web', 'create', 'proxy'],
    ['GET', '/stats/summary', 'get', 'stats'],
    ['GET', '/stats', 'get', 'stats'],
    ['GET', '/statsfoo', 'get', 'proxy'],
    ['GET', '/metrics', 'get', 'metrics'],
    ['GET', '/metrics/resource', 'get', 'metrics'],
    ['GET', '/metricsfoo', 'get', 'proxy'],
    ['GET', '/logs/', 'get', 'log'],
    ['GET', '/logs/syslog', 'get', 'log'],
    ['POST', '/checkpoint/default/web/web', 'create', 'checkpoint'],
    ['PUT', '/pods', 'update', 'proxy'],
    ['PATCH', '/pods', 'patch', 'proxy'],
    ['DELETE', '/pods', 'delete', 'proxy'],
    // Upstream maps no other method: the verb is empty, which only a `*` rule grants.
    ['HEAD', '/pods', '', 'proxy'],
    ['OPTIONS', '/stats/summary', '', 'stats'],
    ['GET', '/no-such-path', 'get', 'proxy'],
  ];
  for (const [method, path, verb, subresource] of table) {
    it(`${method} ${path} → verb "${verb}", nodes/${subresource}`, () => {
      assert.deepEqual(requestAttributes(mallory, method, path, 'n1'), { user: mallory, verb, nodeName: 'n1', subresource });
    });
  }
  it('isSubpath: the path itself or below it, trailing slash ignored', () => {
    assert.ok(isSubpath('/stats', '/stats/'));
    assert.ok(isSubpath('/stats/summary', '/stats/'));
    assert.ok(!isSubpath('/statsx', '/stats/'));
    assert.ok(!isSubpath('/', '/stats/'));
  });
  it('the words of upstream\'s 403', () => {
    assert.equal(`Forbidden ${describeAttributes(requestAttributes(mallory, 'GET', '/pods', 'n1'))}`,
      'Forbidden (user=mallory, verb=get, resource=nodes, subresource=proxy)');
  });
  it('the SubjectAccessReview names the caller and nodes/<subresource> of this node', () => {
    const user = { name: 'system:serviceaccount:default:r', uid: 'u1', groups: ['system:serviceaccounts'], extra: { k: ['v'] } };
    assert.deepEqual(subjectAccessReviewSpec(requestAttributes(user, 'GET', '/stats/summary', 'n1')), {
      user: user.name, uid: 'u1', groups: user.groups, extra: { k: ['v'] },
      resourceAttributes: { verb: 'get', version: 'v1', resource: 'nodes', subresource: 'stats', name: 'n1' },
    });
  });
});

describe('ExpiringCache', () => {
  it('an entry lives for its TTL', () => {
    let now = 0;
    const c = new ExpiringCache<string>(10, () => now);
    c.set('a', 'x', 1000);
    now = 999;
    assert.equal(c.get('a'), 'x');
    now = 1000;
    assert.equal(c.get('a'), undefined);
  });
  it('at capacity the least recently used entry goes', () => {
    const c = new ExpiringCache<number>(2);
    c.set('a', 1, 60_000);
    c.set('b', 2, 60_000);
    c.get('a');
    c.set('c', 3, 60_000);
    assert.deepEqual([c.get('a'), c.get('b'), c.get('c')], [1, undefined, 3]);
    assert.equal(c.size, 2);
  });
  it('concurrent loads of one key share one call; a failure is not cached', async () => {
    const c = new ExpiringCache<number>(10);
    let calls = 0;
    const load = async () => { calls++; await new Promise((r) => setTimeout(r, 5)); return 7; };
    assert.deepEqual(await Promise.all([c.getOrLoad('k', load, () => 1000), c.getOrLoad('k', load, () => 1000)]), [7, 7]);
    assert.equal(calls, 1);
    await assert.rejects(c.getOrLoad('e', async () => { throw new Error('down'); }, () => 1000), /down/);
    assert.equal(await c.getOrLoad('e', async () => 8, () => 1000), 8);
  });
});

/** A reviewer that answers from a table and counts what it was asked. */
function recordingReviewer(answers: { tokens?: Record<string, TokenReview['status']>; allowed?: (spec: SubjectAccessReview['spec']) => boolean; down?: () => boolean }) {
  const asked = { tokens: 0, access: 0 };
  const reviewer: KubeletReviewer = {
    tokenReview: async (r) => {
      asked.tokens++;
      if (answers.down?.()) throw new Error('connect ECONNREFUSED');
      return { ...r, status: answers.tokens?.[r.spec.token!] ?? { authenticated: false } };
    },
    subjectAccessReview: async (r) => {
      asked.access++;
      if (answers.down?.()) throw new Error('connect ECONNREFUSED');
      return { ...r, status: { allowed: answers.allowed?.(r.spec) ?? false } };
    },
  };
  return { reviewer, asked };
}

describe('webhook authorizer cache', () => {
  it('allowed for 5 minutes, refused for 30 seconds, failures never cached', async () => {
    let now = 0;
    let grant = false;
    let down = false;
    const { reviewer, asked } = recordingReviewer({ allowed: () => grant, down: () => down });
    const authorize = createWebhookAuthorizer(reviewer, () => now);
    const a = requestAttributes(mallory, 'GET', '/pods', 'n1');
    assert.equal(await authorize(a), false);
    grant = true;
    now = 29_999;
    assert.equal(await authorize(a), false, 'refusal cached for 30 s');
    now = 30_000;
    assert.equal(await authorize(a), true);
    assert.equal(asked.access, 2);
    grant = false;
    now = 30_000 + 299_999;
    assert.equal(await authorize(a), true, 'allow cached for 5 m');
    now = 30_000 + 300_000;
    down = true;
    await assert.rejects(authorize(a), /ECONNREFUSED/);
    await assert.rejects(authorize(a), /ECONNREFUSED/);
    assert.equal(asked.access, 4);
    // Another subresource or node is another review.
    down = false;
    await authorize(requestAttributes(mallory, 'GET', '/stats/summary', 'n1'));
    await authorize(requestAttributes(mallory, 'GET', '/pods', 'n2'));
    assert.equal(asked.access, 6);
  });
});

describe('token authenticator', () => {
  it('TokenReview answers are cached for 2 minutes, authenticated or not; failures are not', async () => {
    let now = 0;
    let down = false;
    const tokens: Record<string, TokenReview['status']> = {
      good: { authenticated: true, user: { username: 'system:serviceaccount:default:r', uid: 'u1', groups: ['system:serviceaccounts', 'system:authenticated'] } },
    };
    const { reviewer, asked } = recordingReviewer({ tokens, down: () => down });
    const authenticate = createTokenAuthenticator(reviewer, () => now);
    assert.deepEqual(await authenticate('good'), { name: 'system:serviceaccount:default:r', uid: 'u1', groups: ['system:serviceaccounts', 'system:authenticated'] });
    assert.equal(await authenticate('bad'), undefined);
    now = 119_999;
    await authenticate('good');
    await authenticate('bad');
    assert.equal(asked.tokens, 2);
    now = 120_000;
    down = true;
    await assert.rejects(authenticate('good'), /ECONNREFUSED/);
    down = false;
    assert.equal((await authenticate('good'))?.name, 'system:serviceaccount:default:r');
    assert.equal(asked.tokens, 4);
  });
  it('Authorization: Bearer, scheme case-insensitive', () => {
    const req = (authorization?: string) => ({ headers: authorization ? { authorization } : {} }) as IncomingMessage;
    assert.equal(bearerToken(req('Bearer abc')), 'abc');
    assert.equal(bearerToken(req('bearer abc')), 'abc');
    assert.equal(bearerToken(req('Basic abc')), undefined);
    assert.equal(bearerToken(req('Bearer ')), undefined);
    assert.equal(bearerToken(req()), undefined);
  });
});

describe('webhook retry (upstream DefaultShouldRetry, DefaultAuthWebhookRetryBackoff)', () => {
  const reset = Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' });
  const refused = Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' });
  const table: [string, unknown, boolean][] = [
    ['connection reset', reset, true],
    ['429 TooManyRequests', new ApiError(429, 'TooManyRequests', 'slow down'), true],
    ['500 InternalError', new ApiError(500, 'InternalError', 'oops'), true],
    ['504 Timeout', new ApiError(504, 'Timeout', 'timeout'), true],
    ['connection refused', refused, false],
    ['403 Forbidden', new ApiError(403, 'Forbidden', 'no'), false],
  ];
  for (const [name, err, retried] of table) it(`${name}: ${retried ? 'retried' : 'fails at once'}`, () => assert.equal(shouldRetry(err), retried));

  it('5 tries at most, 500 ms apart first and 1.5 times longer each time', async () => {
    const slept: number[] = [];
    let calls = 0;
    await assert.rejects(withBackoff(async () => { calls++; throw reset; }, defaultAuthWebhookRetryBackoff, async (ms) => { slept.push(ms); }, () => 0), /socket hang up/);
    assert.equal(calls, 5);
    assert.deepEqual(slept, [500, 750, 1125, 1687.5]);
    calls = 0;
    assert.equal(await withBackoff(async () => { if (++calls < 3) throw reset; return 'ok'; }, defaultAuthWebhookRetryBackoff, async () => {}), 'ok');
    calls = 0;
    await assert.rejects(withBackoff(async () => { calls++; throw refused; }, defaultAuthWebhookRetryBackoff, async () => {}), /ECONNREFUSED/);
    assert.equal(calls, 1);
  });
});
