/**
 * PodSecurity admission through the real kubectl, as the Kubernetes tutorial
 * "Enforce Pod Security Standards with Namespace Labels" walks it: labels on
 * a namespace choose the level; enforce refuses pods with upstream's 403 text,
 * warn lets them in with a Warning kubectl prints, workloads are warned about
 * only, invalid labels are refused, and a stricter enforce level names the
 * existing pods it would refuse.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { startCluster } from './harness.js';
import type { Cluster } from './harness.js';

const restrictedMessage = 'violates PodSecurity "restricted:latest": allowPrivilegeEscalation != false (container "nginx" must set securityContext.allowPrivilegeEscalation=false), '
  + 'unrestricted capabilities (container "nginx" must set securityContext.capabilities.drop=["ALL"]), '
  + 'runAsNonRoot != true (pod or container "nginx" must set securityContext.runAsNonRoot=true), '
  + 'seccompProfile (pod or container "nginx" must set securityContext.seccompProfile.type to "RuntimeDefault" or "Localhost")';

const compliantPod = (name: string) => `apiVersion: v1
kind: Pod
metadata: {name: ${name}}
spec:
  securityContext:
    runAsNonRoot: true
    runAsUser: 1000
    seccompProfile: {type: RuntimeDefault}
  containers:
  - name: app
    image: busybox
    securityContext:
      allowPrivilegeEscalation: false
      capabilities: {drop: [ALL]}
`;

const privilegedPod = (name: string) => `apiVersion: v1
kind: Pod
metadata: {name: ${name}}
spec:
  hostNetwork: true
  containers:
  - name: c
    image: busybox
    securityContext: {privileged: true}
    ports: [{containerPort: 8080, hostPort: 8080}]
`;

describe('PodSecurity admission (e2e, kubectl)', { timeout: 120_000 }, () => {
  let cluster: Cluster;
  const kubectl = (args: string[], input?: string) => cluster.kubectl(args, { input, allowFail: true });

  before(async () => { cluster = await startCluster(); });
  after(async () => { await cluster?.cleanup(); });

  it('enforce=restricted refuses kubectl run nginx with upstream\'s message, and admits a compliant pod', async () => {
    await kubectl(['create', 'namespace', 'psa-restricted']);
    const l = await kubectl(['label', 'namespace', 'psa-restricted', 'pod-security.kubernetes.io/enforce=restricted']);
    assert.equal(l.code, 0, l.stderr);
    const r = await kubectl(['run', 'nginx', '--image=nginx', '-n', 'psa-restricted']);
    assert.notEqual(r.code, 0);
    assert.equal(r.stderr.trim(), `Error from server (Forbidden): pods "nginx" is forbidden: ${restrictedMessage}`);
    assert.equal((await kubectl(['get', 'pod', 'nginx', '-n', 'psa-restricted'])).code, 1, 'nothing was written');
    const ok = await kubectl(['apply', '-n', 'psa-restricted', '-f', '-'], compliantPod('ok'));
    assert.equal(ok.code, 0, ok.stderr);
    assert.doesNotMatch(ok.stderr, /Warning/);
  });

  it('enforce=baseline names each baseline violation; a version label selects older checks', async () => {
    await kubectl(['create', 'namespace', 'psa-baseline']);
    await kubectl(['label', 'namespace', 'psa-baseline', 'pod-security.kubernetes.io/enforce=baseline']);
    const r = await kubectl(['apply', '-n', 'psa-baseline', '-f', '-'], privilegedPod('priv'));
    assert.notEqual(r.code, 0);
    assert.match(r.stderr, /pods "priv" is forbidden: violates PodSecurity "baseline:latest": host namespaces \(hostNetwork=true\), hostPort \(container "c" uses hostPort 8080\), privileged \(container "c" must not set securityContext.privileged=true\)/);
    // runAsUser=0 is refused by restricted from v1.23 on, not by v1.22.
    await kubectl(['create', 'namespace', 'psa-v122']);
    await kubectl(['label', 'namespace', 'psa-v122', 'pod-security.kubernetes.io/enforce=restricted', 'pod-security.kubernetes.io/enforce-version=v1.22']);
    const root = compliantPod('root').replace('runAsUser: 1000', 'runAsUser: 0');
    const old = await kubectl(['apply', '-n', 'psa-v122', '-f', '-'], root);
    assert.equal(old.code, 0, old.stderr);
    await kubectl(['label', '--overwrite', 'namespace', 'psa-v122', 'pod-security.kubernetes.io/enforce-version=v1.23']);
    const newer = await kubectl(['apply', '-n', 'psa-v122', '-f', '-'], root.replace('name: root', 'name: root2'));
    assert.match(newer.stderr, /violates PodSecurity "restricted:v1.23": runAsUser=0 \(pod must not set runAsUser=0\)/);
  });

  it('warn=baseline lets the pod in with kubectl\'s Warning line; a Deployment is warned about, not refused', async () => {
    await kubectl(['create', 'namespace', 'psa-warn']);
    await kubectl(['label', 'namespace', 'psa-warn', 'pod-security.kubernetes.io/warn=baseline']);
    const r = await kubectl(['apply', '-n', 'psa-warn', '-f', '-'], privilegedPod('priv'));
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stderr, /Warning: would violate PodSecurity "baseline:latest": host namespaces \(hostNetwork=true\), hostPort \(container "c" uses hostPort 8080\), privileged \(container "c" must not set securityContext.privileged=true\)/);
    assert.match(r.stdout, /pod\/priv created/);
    // Workloads: enforce=restricted still only warns (their pods are what is refused).
    await kubectl(['label', 'namespace', 'psa-warn', 'pod-security.kubernetes.io/enforce=restricted', 'pod-security.kubernetes.io/warn=restricted', '--overwrite']);
    const d = await kubectl(['create', 'deployment', 'web', '--image=nginx', '-n', 'psa-warn']);
    assert.equal(d.code, 0, d.stderr);
    assert.match(d.stderr, /Warning: would violate PodSecurity "restricted:latest": allowPrivilegeEscalation != false \(container "nginx" must set securityContext.allowPrivilegeEscalation=false\)/);
  });

  it('an invalid level label is refused with upstream\'s field error', async () => {
    await kubectl(['create', 'namespace', 'psa-bad']);
    const r = await kubectl(['label', 'namespace', 'psa-bad', 'pod-security.kubernetes.io/enforce=strict']);
    assert.notEqual(r.code, 0);
    assert.match(r.stderr, /The Namespace "psa-bad" is invalid: metadata.labels\[pod-security.kubernetes.io\/enforce\]: Invalid value: "strict": must be one of privileged, baseline, restricted/);
    const v = await kubectl(['label', 'namespace', 'psa-bad', 'pod-security.kubernetes.io/enforce-version=1.30']);
    assert.match(v.stderr, /Invalid value: "1.30": must be "latest" or "v1.x"/);
  });

  it('a stricter enforce level (server dry run, as the tutorial checks first) names the existing pods it would refuse', async () => {
    await kubectl(['create', 'namespace', 'psa-existing']);
    for (const n of ['a1', 'a2', 'a3']) await kubectl(['run', n, '--image=nginx', '-n', 'psa-existing']);
    await kubectl(['apply', '-n', 'psa-existing', '-f', '-'], privilegedPod('host'));
    const r = await kubectl(['label', '--dry-run=server', '--overwrite', 'namespace', 'psa-existing', 'pod-security.kubernetes.io/enforce=baseline']);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stderr, /Warning: existing pods in namespace "psa-existing" violate the new PodSecurity enforce level "baseline:latest"/);
    assert.match(r.stderr, /Warning: host: host namespaces, hostPort, privileged/);
    assert.doesNotMatch(r.stderr, /a1/);
    const strict = await kubectl(['label', '--dry-run=server', '--overwrite', 'namespace', 'psa-existing', 'pod-security.kubernetes.io/enforce=restricted']);
    assert.match(strict.stderr, /Warning: a1 \(and 2 other pods\): allowPrivilegeEscalation != false, unrestricted capabilities, runAsNonRoot != true, seccompProfile/);
    const ns = JSON.parse((await kubectl(['get', 'namespace', 'psa-existing', '-o', 'json'])).stdout);
    assert.equal(ns.metadata.labels?.['pod-security.kubernetes.io/enforce'], undefined, 'the dry run changed nothing');
  });
});
