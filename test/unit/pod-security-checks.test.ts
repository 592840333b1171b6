/**
 * The Pod Security checks' texts and order, on cases whose expected reason and
 * detail are those of upstream's pod-security-admission policy tests, and the
 * namespace-label parsing (defaults, fail-open/closed, warn following enforce).
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { PodSpec } from 'kubernetes-types/core/v1.js';
import { evaluatePod } from '../../src/apiserver/admission/podsecurity/checks.js';
import { latest, maxKnownVersion, policyToEvaluate } from '../../src/apiserver/admission/podsecurity/levels.js';

const run = (level: 'baseline' | 'restricted', spec: PodSpec, annotations?: Record<string, string>, version = latest) =>
  evaluatePod(level, version, maxKnownVersion, { annotations }, spec);

/** A restricted-compliant container named n, with `extra` security context fields. */
const good = (name: string, extra: Record<string, unknown> = {}) => ({
  name, image: 'x', securityContext: { allowPrivilegeEscalation: false, capabilities: { drop: ['ALL'] }, ...extra },
});
const goodPod = { runAsNonRoot: true, seccompProfile: { type: 'RuntimeDefault' } };

describe('Pod Security checks (upstream texts)', () => {
  it('seLinuxOptions: pod and containers, types sorted, user and role', () => {
    const r = run('baseline', {
      securityContext: { seLinuxOptions: { type: 'foo', user: 'bar', role: 'baz' } },
      containers: [
        { name: 'a', securityContext: { seLinuxOptions: { type: 'container_t' } } },
        { name: 'b', securityContext: { seLinuxOptions: { type: 'container_init_t' } } },
        { name: 'c', securityContext: { seLinuxOptions: { type: 'container_kvm_t' } } },
        { name: 'd', securityContext: { seLinuxOptions: { type: 'container_engine_t' } } },
        { name: 'e', securityContext: { seLinuxOptions: { type: 'bar' } } },
        { name: 'f', securityContext: { seLinuxOptions: { user: 'bar' } } },
        { name: 'g', securityContext: { seLinuxOptions: { role: 'baz' } } },
      ],
    });
    assert.equal(r.detail, 'seLinuxOptions (pod and containers "e", "f", "g" set forbidden securityContext.seLinuxOptions: types "bar", "foo"; user may not be set; role may not be set)');
  });

  it('capabilities (restricted): missing drop ALL and forbidden adds, sorted', () => {
    const r = run('restricted', {
      securityContext: goodPod,
      containers: [
        { name: 'a', image: 'x', securityContext: { allowPrivilegeEscalation: false, capabilities: { add: ['FOO', 'BAR'] } } },
        { name: 'b', image: 'x', securityContext: { allowPrivilegeEscalation: false, capabilities: { add: ['BAR', 'BAZ'] } } },
        { name: 'c', image: 'x', securityContext: { allowPrivilegeEscalation: false, capabilities: { drop: ['ALL'], add: ['NET_BIND_SERVICE', 'CHOWN'] } } },
      ],
    });
    assert.equal(r.detail, 'unrestricted capabilities (containers "a", "b" must set securityContext.capabilities.drop=["ALL"]; containers "a", "b", "c" must not include "BAR", "BAZ", "CHOWN", "FOO" in securityContext.capabilities.add)');
  });

  it('capabilities (baseline): only adds beyond the default set', () => {
    const r = run('baseline', { containers: [{ name: 'a', securityContext: { capabilities: { add: ['NET_ADMIN', 'CHOWN', 'SYS_TIME'] } } }] });
    assert.equal(r.detail, 'non-default capabilities (container "a" must not include "NET_ADMIN", "SYS_TIME" in securityContext.capabilities.add)');
  });

  it('AppArmor: field types and beta annotations', () => {
    assert.equal(run('baseline', { securityContext: { appArmorProfile: { type: 'Unconfined' } }, containers: [{ name: 'a' }] }).detail,
      'forbidden AppArmor profile (pod must not set AppArmor profile type to "Unconfined")');
    assert.equal(run('baseline', { containers: [{ name: 'foo', securityContext: { appArmorProfile: { type: 'Unconfined' } } }] }).detail,
      'forbidden AppArmor profile (container "foo" must not set AppArmor profile type to "Unconfined")');
    assert.equal(run('baseline', { containers: [{ name: 'a' }] }, { 'container.apparmor.security.beta.kubernetes.io/a': 'unconfined' }).detail,
      // joinQuote wraps without escaping: the annotation's own quotes stay as they are.
      'forbidden AppArmor profile (annotation must not set AppArmor profile type to "container.apparmor.security.beta.kubernetes.io/a="unconfined"")');
  });

  it('sysctls: the allowed list grows by version', () => {
    const spec: PodSpec = { securityContext: { sysctls: [{ name: 'net.ipv4.ip_local_reserved_ports', value: '1' }] }, containers: [{ name: 'a' }] };
    assert.equal(run('baseline', spec, undefined, 26).detail, 'forbidden sysctls (net.ipv4.ip_local_reserved_ports)');
    assert.ok(run('baseline', spec, undefined, 27).allowed);
    const tcp: PodSpec = { securityContext: { sysctls: [{ name: 'net.ipv4.tcp_rmem', value: '1' }, { name: 'a', value: '1' }, { name: 'b', value: '1' }] }, containers: [{ name: 'a' }] };
    assert.equal(run('baseline', tcp).detail, 'forbidden sysctls (a, b)');
  });

  it('restricted volume types: names and types, pluralised', () => {
    const r = run('restricted', {
      securityContext: goodPod,
      containers: [good('a')],
      volumes: [
        { name: 'ok', emptyDir: {} }, { name: 'h1', hostPath: { path: '/' } }, { name: 'n', nfs: { server: 's', path: '/' } },
        { name: 'h2', hostPath: { path: '/x' } },
      ],
    });
    assert.equal(r.detail, 'restricted volume types (volumes "h1", "n", "h2" use restricted volume types "hostPath", "nfs")');
  });

  it('seccomp: explicit Unconfined, and pod or containers unset under restricted; beta annotations under baseline before 1.19', () => {
    assert.equal(run('restricted', { securityContext: { runAsNonRoot: true }, containers: [good('a'), good('b', { seccompProfile: { type: 'Unconfined' } })] }).detail,
      'seccompProfile (container "b" must not set securityContext.seccompProfile.type to "Unconfined")');
    assert.equal(run('restricted', { securityContext: { runAsNonRoot: true }, containers: [good('a'), good('b')] }).detail,
      'seccompProfile (pod or containers "a", "b" must set securityContext.seccompProfile.type to "RuntimeDefault" or "Localhost")');
    assert.equal(run('baseline', { containers: [{ name: 'a' }] }, { 'seccomp.security.alpha.kubernetes.io/pod': 'unconfined' }, 18).detail,
      'seccompProfile (forbidden annotation seccomp.security.alpha.kubernetes.io/pod="unconfined")');
    assert.ok(run('baseline', { containers: [{ name: 'a' }] }, { 'seccomp.security.alpha.kubernetes.io/pod': 'unconfined' }, 19).allowed);
  });

  it('runAsNonRoot: explicit false before implicit, pod and containers', () => {
    assert.equal(run('restricted', { securityContext: { runAsNonRoot: false, seccompProfile: { type: 'RuntimeDefault' } }, containers: [good('a'), good('b', { runAsNonRoot: false })] }).detail,
      'runAsNonRoot != true (pod and container "b" must not set securityContext.runAsNonRoot=false)');
  });

  it('Windows pods skip the Linux-only restricted checks from 1.25', () => {
    const spec: PodSpec = { os: { name: 'windows' }, securityContext: { runAsNonRoot: true }, containers: [{ name: 'a', image: 'x' }] };
    assert.ok(run('restricted', spec).allowed);
    assert.match(run('restricted', spec, undefined, 24).detail, /^allowPrivilegeEscalation != false/);
  });

  it('restricted runs baseline checks first, in upstream order', () => {
    const r = run('restricted', { hostPID: true, containers: [{ name: 'c', image: 'x', securityContext: { privileged: true } }] });
    assert.deepEqual(r.reasons, ['host namespaces', 'privileged', 'allowPrivilegeEscalation != false', 'unrestricted capabilities', 'runAsNonRoot != true', 'seccompProfile']);
  });
});

describe('Pod Security namespace labels', () => {
  it('defaults to privileged; warn follows a stricter enforce with its version', () => {
    assert.equal(policyToEvaluate(undefined).policy.enforce.level, 'privileged');
    const { policy } = policyToEvaluate({ 'pod-security.kubernetes.io/enforce': 'restricted', 'pod-security.kubernetes.io/enforce-version': 'v1.25' });
    assert.deepEqual(policy.warn, { level: 'restricted', version: 25 });
  });

  it('an invalid enforce level fails closed (restricted), invalid audit/warn fail open', () => {
    const { policy, errors } = policyToEvaluate({ 'pod-security.kubernetes.io/enforce': 'x', 'pod-security.kubernetes.io/warn': 'y' });
    assert.equal(policy.enforce.level, 'restricted');
    assert.equal(policy.warn.level, 'privileged');
    assert.deepEqual(errors.map((e) => `${e.field}: ${String(e.value)}: ${e.detail}`), [
      'metadata.labels[pod-security.kubernetes.io/enforce]: x: must be one of privileged, baseline, restricted',
      'metadata.labels[pod-security.kubernetes.io/warn]: y: must be one of privileged, baseline, restricted',
    ]);
  });
});
