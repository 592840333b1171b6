/** Pieces of `k8ts init/join/reset`: preflight reporting, the service IP, --controllers, the agent's flags. */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { runChecks, parseIgnored, fileAvailable, PreflightError } from '../../src/cli/kubeadm/preflight.js';
import { serviceIPOf } from '../../src/cli/kubeadm/common.js';
import { agentArgs } from '../../src/cli/kubeadm/kubelet-start.js';
import { nodeLayout } from '../../src/cli/kubeadm/layout.js';
import { parseControllersFlag } from '../../src/cli/controller-manager.js';
import { controllerFactories } from '../../src/cli/controller-list.js';

describe('kubeadm preflight', () => {
  const failing = { name: 'Port-6443', run: () => 'Port 6443 is in use' };
  it('collects every failure into kubeadm\'s message', async () => {
    await assert.rejects(runChecks([failing, { name: 'IsPrivilegedUser', run: () => 'user is not running as root' }], parseIgnored(undefined), () => {}),
      (e: Error) => e instanceof PreflightError && e.message === '[preflight] Some fatal errors occurred:\n\t[ERROR Port-6443]: Port 6443 is in use\n'
        + '\t[ERROR IsPrivilegedUser]: user is not running as root\n[preflight] If you know what you are doing, you can make a check non-fatal with `--ignore-preflight-errors=...`');
  });
  it('--ignore-preflight-errors (case-insensitive, or all) turns errors into warnings', async () => {
    const lines: string[] = [];
    await runChecks([failing], parseIgnored('port-6443'), (l) => lines.push(l));
    await runChecks([failing], parseIgnored('all'), (l) => lines.push(l));
    assert.deepEqual(lines, ['\t[WARNING Port-6443]: Port 6443 is in use', '\t[WARNING Port-6443]: Port 6443 is in use']);
  });
  it('names a file check after its path', () => {
    assert.equal(fileAvailable('/etc/kubernetes/manifests/kube-apiserver.yaml').name, 'FileAvailable--etc-kubernetes-manifests-kube-apiserver.yaml');
  });
});

describe('kubeadm helpers', () => {
  it('the service IP is the first address of the service CIDR', () => {
    assert.equal(serviceIPOf('10.96.0.0/12'), '10.96.0.1');
    assert.equal(serviceIPOf('10.100.7.0/16'), '10.100.0.1');
    assert.throws(() => serviceIPOf('10.96.0.0'), /couldn't parse service CIDR/);
  });
  it('--controllers reads all, *, names and -name as kube-controller-manager does', () => {
    assert.deepEqual(parseControllersFlag('all'), { controllers: undefined, scheduler: true });
    const allButScheduler = parseControllersFlag('*,-scheduler');
    assert.equal(allButScheduler.scheduler, false);
    assert.deepEqual(allButScheduler.controllers, Object.keys(controllerFactories));
    assert.deepEqual(parseControllersFlag('*,-daemonset').controllers, Object.keys(controllerFactories).filter((n) => n !== 'daemonset'));
    assert.deepEqual(parseControllersFlag('scheduler'), { controllers: [], scheduler: true });
    assert.deepEqual(parseControllersFlag('daemonset,podgc'), { controllers: ['daemonset', 'podgc'], scheduler: false });
  });
  it('the agent runs with the node\'s kubeconfig, address, port and directories under the prefix', () => {
    const args = agentArgs({ layout: nodeLayout('/tmp/n1'), nodeName: 'worker1', nodeIP: '127.0.0.2', kubeletPort: 10250, runtime: 'simulated', bootstrap: true });
    assert.deepEqual(args, ['agent', '--kubeconfig=/tmp/n1/etc/kubernetes/kubelet.conf', '--bootstrap-kubeconfig=/tmp/n1/etc/kubernetes/bootstrap-kubelet.conf',
      '--node-name=worker1', '--node-ip=127.0.0.2', '--address=127.0.0.2', '--kubelet-port=10250', '--runtime=simulated',
      '--root-dir=/tmp/n1/var/lib/kubelet', '--pod-logs-dir=/tmp/n1/var/log/pods']);
  });
});
