/**
 * The kernel's OOM-kill lines as /dev/kmsg gives them: the killed task's
 * memory cgroup names the container, on cgroupfs and systemd layouts.
 * (The real device is read by test/e2e/cri-resources.test.ts, whose
 * OOMKilled container depends on it when containerd misses the event.)
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { appendFileSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KernelOOMLog } from '../../src/kubelet/runtime/cri/kernel-oom.js';

const a = '8b5bbc490c8e31d7fe40bb94ec0ccb2eeffbdcf552b556717f6f433b2a208158';
const b = 'c'.repeat(64);
const c = 'd'.repeat(64);
const kill = (seq: number, oomMemcg: string, taskMemcg: string) =>
  `3,${seq},35363419491,-;oom-kill:constraint=CONSTRAINT_MEMCG,nodemask=(null),cpuset=${a},mems_allowed=0,oom_memcg=${oomMemcg},task_memcg=${taskMemcg},task=sh,pid=11553,uid=0\n`;

test('a kill names the container of the killed task, read again after more records arrive', () => {
  const dir = mkdtempSync(join(tmpdir(), 'kmsg-'));
  const file = join(dir, 'kmsg');
  writeFileSync(file, `6,1,1,-;k8ts0: port 4(veth1e1c10e5) entered blocking state\n${kill(2, `/k8s.io/${a}`, `/k8s.io/${a}`)}` +
    `6,3,3,-;Memory cgroup out of memory: Killed process 11553 (sh) total-vm:26852kB, anon-rss:16100kB\n`);
  const log = new KernelOOMLog(file);
  assert.equal(log.oomKilled(a), true);
  assert.equal(log.oomKilled(b), false);
  // The pod's limit was hit (oom_memcg is the pod), the task was in container b (systemd layout).
  appendFileSync(file, kill(4, '/kubepods.slice/kubepods-pod1.slice', `/kubepods.slice/kubepods-pod1.slice/cri-containerd-${b}.scope`));
  assert.equal(log.oomKilled(b), true);
  assert.equal(log.oomKilled(c), false, 'a container no task_memcg names was not killed');
  log.close();
});

test('an unreadable log gives no kills and no error', () => {
  const log = new KernelOOMLog('/nonexistent/kmsg');
  assert.equal(log.oomKilled(a), false);
  assert.equal(log.oomKilled(a), false);
  log.close();
});
