/**
 * Using sysctls in a Kubernetes Cluster, "Enabling Unsafe Sysctls": the page
 * starts the kubelet with `--allowed-unsafe-sysctls 'kernel.msg*,net.core.somaxconn'`,
 * and then its sysctl-example pod (one safe and two unsafe sysctls) runs on
 * that node. `k8ts up` takes the flag for its nodes, as `k8ts agent` and the
 * KubeletConfiguration's allowedUnsafeSysctls do. Without it the node
 * refuses the pod (SysctlForbidden: up-tutorials-pages16). A pattern the
 * kubelet would refuse stops the start in the kubelet's words, before any
 * server or node starts. Every wait polls a condition with a generous
 * deadline; nothing is timed.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cliPath, eventually } from './harness.js';
import { startUp, type UpCluster } from './up-cluster.js';
import { sysctlExample } from './up-tutorials-pages16-manifests.js';

/** `k8ts up ARGS` on a fresh data directory: its exit code, stderr and whether it made the directory. */
function upFails(args: string[]): Promise<{ code: number | null; stderr: string; madeDataDir: boolean }> {
  const dir = mkdtempSync(join(tmpdir(), 'k8ts-unsafe-sysctls-'));
  const dataDir = join(dir, 'data');
  return new Promise((resolve) => {
    execFile(process.execPath, [cliPath, 'up', '--data-dir', dataDir, '--port', '0', ...args], { timeout: 120_000 }, (err, _stdout, stderr) => {
      const madeDataDir = existsSync(dataDir);
      rmSync(dir, { recursive: true, force: true });
      resolve({ code: err ? (typeof err.code === 'number' ? err.code : null) : 0, stderr, madeDataDir });
    });
  });
}

describe('k8ts up --allowed-unsafe-sysctls', () => {
  it('a sysctl the kernel does not namespace, or a malformed pattern, stops the start in the kubelet\'s words', async () => {
    const panic = await upFails(['--allowed-unsafe-sysctls', 'kernel.msg*,kernel.panic']);
    assert.deepEqual(panic, { code: 1, stderr: 'Error: failed to run Kubelet: failed to create kubelet: the sysctls "kernel.panic" are not known to be namespaced\n', madeDataDir: false });
    const prefix = await upFails(['--allowed-unsafe-sysctls', 'vm.*']);
    assert.equal(prefix.stderr, 'Error: failed to run Kubelet: failed to create kubelet: the sysctls "vm." are not known to be namespaced\n');
    const bad = await upFails(['--allowed-unsafe-sysctls', 'Net.core.somaxconn']);
    assert.equal(bad.code, 1);
    assert.equal(bad.stderr, 'Error: failed to run Kubelet: failed to create kubelet: sysctl "Net.core.somaxconn" must have at most 253 characters and match regex '
      + '([a-z0-9]([-_a-z0-9]*[a-z0-9])?[\\./])*([a-z0-9][-_a-z0-9]*)?[a-z0-9*]\n');
  });

  describe('on a cluster whose nodes allow the page\'s unsafe sysctls', () => {
    let c: UpCluster;
    let dir: string;
    before(async () => {
      c = await startUp('k8ts-unsafe-sysctls-up-', ['--workers', '1', '--allowed-unsafe-sysctls', 'kernel.msg*,net.core.somaxconn']);
      dir = mkdtempSync(join(tmpdir(), 'k8ts-unsafe-sysctls-files-'));
    });
    after(async () => {
      await c?.close();
      if (dir) rmSync(dir, { recursive: true, force: true });
    });

    it('the page\'s sysctl-example pod runs; a sysctl outside both lists is still refused', async () => {
      const file = join(dir, 'sysctl-example.yaml');
      writeFileSync(file, sysctlExample);
      assert.equal((await c.kubectl(['apply', '-f', file])).stdout, 'pod/sysctl-example created\n');
      await c.kubectl(['wait', '--for=condition=Ready', 'pod/sysctl-example', '--timeout=120s']);
      assert.match((await c.kubectl(['get', 'pod', 'sysctl-example'])).stdout, /\nsysctl-example\s+1\/1\s+Running\s+0\s+\S+\n$/);
      // net.ipv4.tcp_max_syn_backlog is namespaced but on neither list.
      const other = join(dir, 'other.yaml');
      writeFileSync(other, sysctlExample.replace('name: sysctl-example\nspec', 'name: sysctl-other\nspec').replace('net.core.somaxconn', 'net.ipv4.tcp_max_syn_backlog'));
      assert.equal((await c.kubectl(['apply', '-f', other])).stdout, 'pod/sysctl-other created\n');
      await eventually(async () => /\nsysctl-other\s+0\/1\s+SysctlForbidden\s+0\s+\S+\n/.test((await c.kubectl(['get', 'pods'])).stdout), 120_000, 'sysctl-other rejected');
      const message = (await c.kubectl(['get', 'pod', 'sysctl-other', '-o', 'jsonpath={.status.message}'])).stdout;
      assert.equal(message, 'Pod was rejected: forbidden sysctl: "net.ipv4.tcp_max_syn_backlog" not allowlisted');
    });
  });
});
