/**
 * The kube-proxy addon as `k8ts up` creates it (kubeadm's addon phase): the
 * kube-proxy DaemonSet with kubeadm's shape running `k8ts proxy` on the
 * k8ts image, one pod per node (tolerating every taint, so the control-plane
 * node too), simulated on the simulated nodes; the kubeadm:node-proxier
 * binding gives its service account upstream's system:node-proxier role and
 * nothing more. (Real nodes: test/e2e/up-cri.test.ts.)
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import type { DaemonSet } from 'kubernetes-types/apps/v1.js';
import type { ClusterRole, ClusterRoleBinding } from 'kubernetes-types/rbac/v1.js';
import type { ConfigMap } from 'kubernetes-types/core/v1.js';
import { parse } from 'yaml';
import { startUp, type UpCluster } from './up-cluster.js';

let up: UpCluster;

describe('the kube-proxy addon of k8ts up', () => {
  before(async () => { up = await startUp('k8ts-e2e-kube-proxy-addon-'); });
  after(async () => { await up.close(); });

  const getJSON = async <T>(args: string[]): Promise<T> => JSON.parse((await up.kubectl([...args, '-o', 'json'])).stdout) as T;

  it('creates the kube-proxy DaemonSet as kubeadm does, with k8ts proxy as its command', async () => {
    const ds = await getJSON<DaemonSet>(['get', 'daemonset', 'kube-proxy', '-n', 'kube-system']);
    assert.deepEqual(ds.metadata!.labels, { 'k8s-app': 'kube-proxy' });
    const pod = ds.spec!.template.spec!;
    assert.equal(pod.priorityClassName, 'system-node-critical');
    assert.equal(pod.serviceAccountName, 'kube-proxy');
    assert.equal(pod.hostNetwork, true);
    assert.deepEqual(pod.tolerations, [{ operator: 'Exists' }]);
    const c = pod.containers[0];
    assert.match(c.image!, /^k8ts\.local\/k8ts:\S+$/);
    // kubeadm's: the configuration comes from the kube-proxy ConfigMap mounted at /var/lib/kube-proxy.
    assert.deepEqual(c.command, ['k8ts', 'proxy', '--config=/var/lib/kube-proxy/config.conf', '--hostname-override=$(NODE_NAME)']);
    assert.deepEqual(c.volumeMounts, [{ name: 'kube-proxy', mountPath: '/var/lib/kube-proxy' }]);
    assert.deepEqual(pod.volumes, [{ name: 'kube-proxy', configMap: { name: 'kube-proxy', defaultMode: 420 } }]);
    assert.deepEqual(c.env!.find((e) => e.name === 'NODE_NAME')?.valueFrom, { fieldRef: { apiVersion: 'v1', fieldPath: 'spec.nodeName' } });
    assert.equal(c.env!.find((e) => e.name === 'KUBERNETES_SERVICE_HOST')?.value, '127.0.0.1');
  });

  it('stores kube-proxy\'s KubeProxyConfiguration in the kube-proxy ConfigMap (mode nftables, clusterCIDR), readable by joining nodes\' bootstrap tokens', async () => {
    const cm = await getJSON<ConfigMap>(['get', 'configmap', 'kube-proxy', '-n', 'kube-system']);
    const config = parse(cm.data!['config.conf']!) as Record<string, unknown>;
    assert.equal(config.apiVersion, 'kubeproxy.config.k8s.io/v1alpha1');
    assert.equal(config.kind, 'KubeProxyConfiguration');
    assert.equal(config.mode, 'nftables');
    assert.equal(config.clusterCIDR, '10.244.0.0/24');
    const can = async (name: string) => (await up.kubectl(['auth', 'can-i', 'get', `configmap/${name}`, '-n', 'kube-system', '--as=system:bootstrap:abcdef',
      '--as-group=system:bootstrappers:kubeadm:default-node-token'], undefined, true)).stdout.trim();
    assert.equal(await can('kube-proxy'), 'yes');
    assert.equal(await can('other'), 'no');
  });

  it('runs one Ready pod on each of the three nodes, the tainted control-plane node included', async () => {
    await up.kubectl(['rollout', 'status', 'daemonset/kube-proxy', '-n', 'kube-system', '--timeout=60s']);
    const r = await up.kubectl(['get', 'daemonset', 'kube-proxy', '-n', 'kube-system', '--no-headers']);
    assert.match(r.stdout, /^kube-proxy\s+3\s+3\s+3\s+3\s+3\s/);
    const nodes = (await up.kubectl(['get', 'pods', '-n', 'kube-system', '-l', 'k8s-app=kube-proxy', '-o', 'jsonpath={.items[*].spec.nodeName}'])).stdout.split(' ').sort();
    assert.deepEqual(nodes, ['control-plane', 'worker1', 'worker2']);
  });

  it('binds the kube-proxy service account to upstream\'s system:node-proxier, which may read Services, EndpointSlices and Nodes and nothing more', async () => {
    const binding = await getJSON<ClusterRoleBinding>(['get', 'clusterrolebinding', 'kubeadm:node-proxier']);
    assert.deepEqual(binding.roleRef, { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'system:node-proxier' });
    assert.deepEqual(binding.subjects, [{ kind: 'ServiceAccount', name: 'kube-proxy', namespace: 'kube-system' }]);
    const role = await getJSON<ClusterRole>(['get', 'clusterrole', 'system:node-proxier']);
    assert.equal(role.metadata!.labels?.['kubernetes.io/bootstrapping'], 'rbac-defaults');
    const can = async (...args: string[]) => (await up.kubectl(['auth', 'can-i', ...args, '--as=system:serviceaccount:kube-system:kube-proxy'], undefined, true)).stdout.trim();
    assert.equal(await can('watch', 'services', '-A'), 'yes');
    assert.equal(await can('list', 'endpointslices.discovery.k8s.io', '-A'), 'yes');
    assert.equal(await can('get', 'nodes'), 'yes');
    assert.equal(await can('create', 'events', '-n', 'default'), 'yes');
    assert.equal(await can('update', 'services', '-n', 'default'), 'no');
    assert.equal(await can('get', 'secrets', '-n', 'kube-system'), 'no');
    // Upstream's bootstrap binding for kube-proxy's own certificate user.
    assert.equal((await up.kubectl(['auth', 'can-i', 'list', 'endpointslices.discovery.k8s.io', '-A', '--as=system:kube-proxy'], undefined, true)).stdout.trim(), 'yes');
  });
  it('binds it also to k8ts:network-policy-agent: list and watch of pods, namespaces and NetworkPolicies, no more (the agent inside k8ts proxy)', async () => {
    const binding = await getJSON<ClusterRoleBinding>(['get', 'clusterrolebinding', 'k8ts:network-policy-agent']);
    assert.deepEqual(binding.subjects, [{ kind: 'ServiceAccount', name: 'kube-proxy', namespace: 'kube-system' }]);
    const can = async (...args: string[]) => (await up.kubectl(['auth', 'can-i', ...args, '--as=system:serviceaccount:kube-system:kube-proxy'], undefined, true)).stdout.trim();
    assert.equal(await can('watch', 'networkpolicies.networking.k8s.io', '-A'), 'yes');
    assert.equal(await can('list', 'pods', '-A'), 'yes');
    assert.equal(await can('watch', 'namespaces'), 'yes');
    assert.equal(await can('get', 'pods', '-n', 'default'), 'no');
    assert.equal(await can('update', 'networkpolicies.networking.k8s.io', '-n', 'default'), 'no');
  });
});
