/**
 * `k8ts server --enable-admission-plugins/--disable-admission-plugins` with
 * upstream's plugin names: unknown names and overlaps stop the server with
 * kube-apiserver's words; ServiceAccount turned off leaves a pod without a
 * service account and token volume (upstream's kubectl suite starts its
 * server with --disable-admission-plugins=ServiceAccount); the
 * ValidatingAdmissionPolicy plugin turned off leaves policies unenforced.
 */
import { describe, test, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cliPath, startCluster, Cluster } from './harness.js';

const serverExit = (flags: string[]) => {
  const dataDir = mkdtempSync(join(tmpdir(), 'k8ts-plugins-'));
  try {
    return spawnSync(process.execPath, [cliPath, 'server', '--data-dir', dataDir, '--port', '0', ...flags], { encoding: 'utf8', timeout: 60_000 });
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
};

describe('admission plugin flags', () => {
  test('an unknown name fails start with upstream\'s message', () => {
    const r = serverExit(['--enable-admission-plugins=NodeRestriction,NoSuchPlugin']);
    assert.equal(r.status, 1);
    assert.equal(r.stderr, 'Error: enable-admission-plugins plugin "NoSuchPlugin" is unknown\n');
    const d = serverExit(['--disable-admission-plugins=Bogus']);
    assert.equal(d.stderr, 'Error: disable-admission-plugins plugin "Bogus" is unknown\n');
  });

  test('a name in both lists fails start', () => {
    const r = serverExit(['--enable-admission-plugins=ServiceAccount', '--disable-admission-plugins=ServiceAccount,LimitRanger']);
    assert.equal(r.status, 1);
    assert.equal(r.stderr, 'Error: [ServiceAccount] in enable-admission-plugins and disable-admission-plugins overlapped\n');
  });

  describe('--disable-admission-plugins=ServiceAccount,ValidatingAdmissionPolicy', () => {
    let cluster: Cluster;
    after(async () => { await cluster?.cleanup(); });

    test('a pod gets no service account nor token volume; a policy is not enforced', async () => {
      cluster = await startCluster({ extraArgs: ['--disable-admission-plugins=ServiceAccount,ValidatingAdmissionPolicy'] });
      // No service-account controller runs (controllers none): with the plugin on, this create would wait for `default` and fail.
      const r = await cluster.kubectl(['run', 'bare', '--image=k8ts.local/pause:1', '--restart=Never']);
      assert.equal(r.stdout, 'pod/bare created\n');
      const pod = JSON.parse((await cluster.kubectl(['get', 'pod', 'bare', '-o', 'json'])).stdout);
      assert.equal(pod.spec.serviceAccountName, undefined);
      assert.equal(pod.spec.volumes, undefined);
      assert.deepEqual(pod.spec.containers[0].volumeMounts, undefined);
      await cluster.kubectl(['apply', '-f', '-'], { input: `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata:
  name: no-pods
spec:
  matchConstraints:
    resourceRules:
    - apiGroups: [""]
      apiVersions: ["v1"]
      operations: ["CREATE"]
      resources: ["pods"]
  validations:
  - expression: "false"
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata:
  name: no-pods
spec:
  policyName: no-pods
  validationActions: [Deny]
` });
      const second = await cluster.kubectl(['run', 'second', '--image=k8ts.local/pause:1', '--restart=Never']);
      assert.equal(second.stdout, 'pod/second created\n');
    });
  });
});
