/** reset's unmount of the kubelet directory: which mount points, in which order (kubeadm's unmountKubeletDirectory). */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mountsUnder } from '../../src/cli/kubeadm/unmount.js';
import { klogLine } from '../../src/cli/kubeadm/klog.js';

const mountinfo = [
  '22 1 8:1 / / rw,relatime shared:1 - ext4 /dev/sda1 rw',
  '90 22 0:50 / /var/lib/kubelet/pods/u1/volumes/kubernetes.io~projected/kube-api-access-x rw,relatime - tmpfs tmpfs rw',
  '91 22 0:51 / /var/lib/kubelet/pods/u1/volumes/kubernetes.io~secret/with\\040space rw,relatime - tmpfs tmpfs rw',
  '92 22 0:52 / /var/lib/kubelet rw,relatime - tmpfs tmpfs rw',
  '93 22 0:53 / /var/lib/kubelet-other/x rw,relatime - tmpfs tmpfs rw',
  '94 90 0:54 / /var/lib/kubelet/pods/u1/volumes/kubernetes.io~projected/kube-api-access-x/deeper rw - tmpfs tmpfs rw',
].join('\n');

describe('mountsUnder', () => {
  it('the mount points strictly under the directory, deepest first, with octal escapes decoded', () => {
    assert.deepEqual(mountsUnder('/var/lib/kubelet', mountinfo), [
      '/var/lib/kubelet/pods/u1/volumes/kubernetes.io~projected/kube-api-access-x/deeper',
      '/var/lib/kubelet/pods/u1/volumes/kubernetes.io~projected/kube-api-access-x',
      '/var/lib/kubelet/pods/u1/volumes/kubernetes.io~secret/with space',
    ]);
  });
});

describe('klogLine', () => {
  it('has klog\'s header: severity, mmdd, time with microseconds, pid padded to 7, file:line', () => {
    const line = klogLine('W', '[reset] hello', new Date(2026, 11, 2, 8, 5, 9, 42));
    assert.match(line, new RegExp(`^W1202 08:05:09\\.042000 ${String(process.pid).padStart(7)} [\\w.-]+\\.ts:\\d+\\] \\[reset\\] hello$`));
  });
});
