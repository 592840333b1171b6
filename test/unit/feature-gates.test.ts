import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseFeatureGates } from '../../src/cli/feature-gates.js';
import { PostStartHooks, postStartHookNames } from '../../src/apiserver/post-start-hooks.js';
import { featureGates } from '../../src/api/feature-gates.js';
import { featureEnabledText } from '../../src/kubelet/server/metrics.js';
import { createMetrics } from '../../src/apiserver/metrics.js';

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

test('kubernetes_feature_enabled: 1.32\'s gates with their stage, overridden by --feature-gates, as the kubelet\'s /metrics prints them', () => {
  const gates = featureGates({ APIServerIdentity: false });
  assert.deepEqual(gates.find((g) => g.name === 'APIServerIdentity'), { name: 'APIServerIdentity', stage: 'BETA', enabled: false });
  assert.deepEqual(gates.map((g) => g.name), [...gates.map((g) => g.name)].sort());
  const text = featureEnabledText(featureGates());
  assert.match(text, /^# HELP kubernetes_feature_enabled \[BETA\] This metric records the data about the stage and enablement of a k8s feature\.\n# TYPE kubernetes_feature_enabled gauge\n/);
  assert.match(text, /\nkubernetes_feature_enabled\{name="SidecarContainers",stage="BETA"\} 1\n/);
  assert.match(text, /\nkubernetes_feature_enabled\{name="PodSchedulingReadiness",stage=""\} 1\n/);
});

test('the API server\'s registry has the gauge, with the server\'s gates', async () => {
  const metrics = createMetrics({ deferDefaultMetrics: true, featureGates: featureGates({ APIServerIdentity: false }) });
  const text = await metrics.registry.metrics();
  assert.match(text, /\nkubernetes_feature_enabled\{name="APIServerIdentity",stage="BETA"\} 0\n/);
  assert.match(text, /\nkubernetes_feature_enabled\{name="SidecarContainers",stage="BETA"\} 1\n/);
});
