import { test } from 'node:test';
import assert from 'node:assert/strict';
import { healthAnswer, type HealthCheck } from '../../src/apiserver/health.js';
import { PostStartHooks, postStartHookNames } from '../../src/apiserver/post-start-hooks.js';

const ok = (name: string): HealthCheck => ({ name, check: () => undefined });
const bad = (name: string): HealthCheck => ({ name, check: () => `${name} is down` });
const later = (name: string, reason: string | undefined): HealthCheck => ({ name, check: async () => reason });
const at = (path: string) => new URL(`https://x${path}`);

test('health endpoints answer as upstream\'s healthz handlers', async () => {
  const cases: { path: string; checks: HealthCheck[]; code?: number; body?: string; none?: true }[] = [
    { path: '/readyz', checks: [ok('ping'), ok('storage')], code: 200, body: 'ok' },
    { path: '/readyz?verbose', checks: [ok('ping'), ok('storage')], code: 200, body: '[+]ping ok\n[+]storage ok\nreadyz check passed\n' },
    { path: '/livez?verbose', checks: [ok('ping')], code: 200, body: '[+]ping ok\nlivez check passed\n' },
    { path: '/readyz', checks: [ok('ping'), bad('storage')], code: 500, body: '[+]ping ok\n[-]storage failed: reason withheld\nreadyz check failed\n' },
    { path: '/readyz?verbose&exclude=storage', checks: [ok('ping'), bad('storage')], code: 200, body: '[+]ping ok\n[+]storage excluded: ok\nreadyz check passed\n' },
    { path: '/readyz?verbose&exclude=etcd', checks: [ok('ping')], code: 200,
      body: '[+]ping ok\nwarn: some health checks cannot be excluded: no matches for "etcd"\nreadyz check passed\n' },
    { path: '/readyz/ping', checks: [ok('ping')], code: 200, body: 'ok' },
    { path: '/readyz/storage/', checks: [bad('storage')], code: 500, body: 'internal server error: storage is down\n' },
    { path: '/healthz/nope', checks: [ok('ping')], none: true },
    // A check named with slashes is asked for by its whole name, as upstream's paths.
    { path: '/readyz/poststarthook/rbac/bootstrap-roles', checks: [ok('ping'), ok('poststarthook/rbac/bootstrap-roles')], code: 200, body: 'ok' },
    { path: '/readyz/poststarthook/rbac', checks: [ok('poststarthook/rbac/bootstrap-roles')], none: true },
    // A probe that answers later (the etcd check) counts the same.
    { path: '/readyz?verbose', checks: [ok('ping'), later('etcd', 'error getting data from etcd: down')], code: 500,
      body: '[+]ping ok\n[-]etcd failed: reason withheld\nreadyz check failed\n' },
    { path: '/livez/etcd', checks: [later('etcd', 'error getting data from etcd: down')], code: 500, body: 'internal server error: error getting data from etcd: down\n' },
    { path: '/livez/etcd', checks: [later('etcd', undefined)], code: 200, body: 'ok' },
  ];
  for (const c of cases) {
    const endpoint = c.path.split(/[/?]/)[1] as 'readyz';
    const got = await healthAnswer(endpoint, c.checks, at(c.path));
    if (c.none) assert.equal(got, undefined, c.path);
    else assert.deepEqual(got, { code: c.code, body: c.body }, c.path);
  }
});

test('a post-start hook\'s check says `not finished` until its step has run, then passes', async () => {
  const hooks = new PostStartHooks();
  const checks = hooks.checks();
  assert.deepEqual(checks.map((c) => c.name), postStartHookNames.map((n) => `poststarthook/${n}`));
  assert.deepEqual(await healthAnswer('readyz', hooks.checks(), at('/readyz/poststarthook/bootstrap-controller')), { code: 500, body: 'internal server error: not finished\n' });
  hooks.finish('bootstrap-controller');
  assert.deepEqual(await healthAnswer('readyz', hooks.checks(), at('/readyz/poststarthook/bootstrap-controller')), { code: 200, body: 'ok' });
  // The others still hold /readyz back.
  assert.equal((await healthAnswer('readyz', hooks.checks(), at('/readyz')))?.code, 500);
  for (const name of postStartHookNames) hooks.finish(name);
  assert.deepEqual(await healthAnswer('readyz', hooks.checks(), at('/readyz')), { code: 200, body: 'ok' });
});
