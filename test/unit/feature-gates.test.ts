import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseFeatureGates } from '../../src/cli/feature-gates.js';
import { PostStartHooks, postStartHookNames } from '../../src/apiserver/post-start-hooks.js';

test('--feature-gates: NAME=BOOL pairs over the defaults, in component-base\'s words for bad entries', () => {
  assert.deepEqual(parseFeatureGates(''), { APIServerIdentity: true });
  assert.deepEqual(parseFeatureGates('APIServerIdentity=false'), { APIServerIdentity: false });
  assert.deepEqual(parseFeatureGates(' APIServerIdentity = F ,'), { APIServerIdentity: false });
  assert.throws(() => parseFeatureGates('APIServerIdentity'), { message: 'missing bool value for APIServerIdentity' });
  assert.throws(() => parseFeatureGates('APIServerIdentity=no'), { message: 'invalid value of APIServerIdentity=no, err: strconv.ParseBool: parsing "no": invalid syntax' });
  assert.throws(() => parseFeatureGates('Foo=true'), { message: 'unrecognized feature gate: Foo' });
});

test('post-start hooks behind a gate that is off are not listed', () => {
  const hooks = new PostStartHooks(['start-kube-apiserver-identity-lease-controller', 'start-kube-apiserver-identity-lease-garbage-collector']);
  const names = hooks.checks().map((c) => c.name);
  assert.equal(names.length, postStartHookNames.length - 2);
  assert.ok(!names.some((n) => n.includes('identity-lease')));
});
