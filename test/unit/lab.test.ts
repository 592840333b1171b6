/** k8ts lab's pure parts: machine names, the join line read from init's output, and exec's completion of k8ts verbs. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { checkNames, defaultNames, joinCommand } from '../../src/cli/lab/up.js';
import { machineCommand } from '../../src/cli/lab/exec.js';
import type { LabMachine } from '../../src/cli/lab/state.js';

test('default names are the seed notes\' master, worker1, ...', () => {
  assert.deepEqual(defaultNames(3), ['master', 'worker1', 'worker2']);
});

test('machine names must be distinct RFC 1123 labels, 1 to 253 of them', () => {
  for (const [names, want] of [
    [['master', 'worker1'], undefined],
    [[], '--nodes must be between 1 and 253, got 0'],
    [['Master'], 'invalid machine name "Master": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or \'-\', and must start and end with an alphanumeric character'],
    [['a-'], 'invalid machine name "a-": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or \'-\', and must start and end with an alphanumeric character'],
    [['a', 'a'], 'machine names must be distinct'],
  ] as const) assert.equal(checkNames([...names]), want, JSON.stringify(names));
});

test('the join line is read from init\'s two-line output', () => {
  const out = 'Then you can join ...:\n\nk8ts join 10.77.0.1:6443 --token abcdef.0123456789abcdef \\\n\t--discovery-token-ca-cert-hash sha256:00ff \n';
  assert.equal(joinCommand(out), 'k8ts join 10.77.0.1:6443 --token abcdef.0123456789abcdef --discovery-token-ca-cert-hash sha256:00ff');
  assert.equal(joinCommand('no join here'), undefined);
});

test('exec completes k8ts init/join/reset with the machine\'s --prefix and --cri-socket, token with --kubeconfig, unless given', () => {
  const m: LabMachine = { name: 'worker1', netns: 'ns', address: '10.77.0.2', prefix: '/lab/worker1', podSubnet: '10.244.1.0/24', containerdDir: '/lab/worker1/containerd', criSocket: 'unix:///lab/worker1/containerd/containerd.sock' };
  const tail = (argv: string[]) => machineCommand(m, argv).slice(2);
  assert.deepEqual(tail(['k8ts', 'join', '10.77.0.1:6443']), ['join', '10.77.0.1:6443', '--prefix', '/lab/worker1', '--cri-socket', m.criSocket]);
  assert.deepEqual(tail(['k8ts', 'reset', '--prefix=/elsewhere']), ['reset', '--prefix=/elsewhere', '--cri-socket', m.criSocket]);
  assert.deepEqual(tail(['k8ts', 'token', 'list']), ['token', 'list', '--kubeconfig', '/lab/worker1/etc/kubernetes/admin.conf']);
  assert.deepEqual(tail(['k8ts', 'etcd', 'snapshot', 'save', 's.db']), ['etcd', 'snapshot', 'save', 's.db', '--prefix', '/lab/worker1']);
  assert.deepEqual(tail(['k8ts', 'version']), ['version']);
  assert.equal(machineCommand(m, ['k8ts'])[0], process.execPath);
  assert.deepEqual(machineCommand(m, ['kubectl', 'get', 'nodes']), ['kubectl', 'get', 'nodes']);
});
