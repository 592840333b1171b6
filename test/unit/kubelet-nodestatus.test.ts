/** Node registration and status setters (upstream kubelet_node_status.go and nodestatus/setters.go). */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import {
  initialNode, nodeStatus, nodeStatusHasChanged, nodeStatusPatch, reconcileDefaultLabels, defaultNodeLabels, type NodeConfig,
} from '../../src/kubelet/nodestatus.js';
import { nodeConfigFor } from '../../src/kubelet/agent.js';

const t0 = new Date('2025-01-01T00:00:00Z');
const t1 = new Date('2025-01-01T00:00:10Z');
const t2 = new Date('2025-01-01T00:05:10Z');
const healthy = { errors: [] };

function config(extra: Partial<Parameters<typeof nodeConfigFor>[0]> = {}): NodeConfig {
  return nodeConfigFor({ nodeName: 'worker1', internalIP: '172.16.0.10', podCIDR: '10.244.0.0/24', ...extra }, 'k8ts-sim://0.1.0');
}

const cond = (node: any, type: string) => node.status.conditions.find((c: any) => c.type === type);

describe('initialNode', () => {
  it('carries the default labels, user labels and the simulated annotation', () => {
    const n = initialNode(config({ labels: { zone: 'a' } }), healthy, t0);
    assert.equal(n.metadata.name, 'worker1');
    assert.equal(n.metadata.labels['kubernetes.io/hostname'], 'worker1');
    assert.equal(n.metadata.labels['kubernetes.io/os'], 'linux');
    assert.equal(n.metadata.labels['beta.kubernetes.io/os'], 'linux');
    assert.ok(['amd64', 'arm64'].includes(n.metadata.labels['kubernetes.io/arch']));
    assert.equal(n.metadata.labels.zone, 'a');
    assert.equal(n.metadata.annotations['k8ts.io/simulated'], 'true');
    assert.equal(n.metadata.annotations['volumes.kubernetes.io/controller-managed-attach-detach'], 'true');
    assert.deepEqual(n.spec, { podCIDR: '10.244.0.0/24', podCIDRs: ['10.244.0.0/24'] });
  });

  it('marks a control-plane node as kubeadm does: label and NoSchedule taint', () => {
    const n = initialNode(config({ controlPlane: true, taints: [{ key: 'dedicated', value: 'x', effect: 'NoExecute' }] }), healthy, t0);
    assert.equal(n.metadata.labels['node-role.kubernetes.io/control-plane'], '');
    assert.equal(n.metadata.labels['node.kubernetes.io/exclude-from-external-load-balancers'], '');
    assert.deepEqual(n.spec.taints, [
      { key: 'dedicated', value: 'x', effect: 'NoExecute' },
      { key: 'node-role.kubernetes.io/control-plane', effect: 'NoSchedule' },
    ]);
  });

  it('does not add the control-plane taint twice', () => {
    const n = initialNode(config({ controlPlane: true, taints: [{ key: 'node-role.kubernetes.io/control-plane', effect: 'NoSchedule' }] }), healthy, t0);
    assert.equal(n.spec.taints?.length, 1);
  });

  it('sets the instance-type label only when known', () => {
    assert.equal(initialNode(config(), healthy, t0).metadata.labels['node.kubernetes.io/instance-type'], undefined);
    assert.equal(initialNode(config({ instanceType: 'sim.large' }), healthy, t0).metadata.labels['node.kubernetes.io/instance-type'], 'sim.large');
  });

  it('reports capacity, allocatable, addresses, daemon endpoints and nodeInfo', () => {
    const s = initialNode(config({ cpu: '8', memory: '16Gi', pods: 50 }), healthy, t0).status;
    assert.deepEqual(s.capacity, { cpu: '8', 'ephemeral-storage': '100Gi', 'hugepages-1Gi': '0', 'hugepages-2Mi': '0', memory: '16Gi', pods: '50' });
    assert.deepEqual(s.allocatable, s.capacity);
    assert.deepEqual(s.addresses, [{ type: 'InternalIP', address: '172.16.0.10' }, { type: 'Hostname', address: 'worker1' }]);
    assert.deepEqual(s.daemonEndpoints, { kubeletEndpoint: { Port: 10250 } });
    assert.equal(s.nodeInfo.kubeletVersion, 'v1.32.0');
    assert.equal(s.nodeInfo.containerRuntimeVersion, 'k8ts-sim://0.1.0');
    assert.equal(s.nodeInfo.operatingSystem, 'linux');
    assert.match(s.nodeInfo.systemUUID, /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    assert.equal(s.nodeInfo.machineID.length, 32);
  });

  it('has the pressure conditions False and Ready True last, in upstream order and words', () => {
    const s = initialNode(config(), healthy, t0).status;
    assert.deepEqual(s.conditions.map((c: any) => [c.type, c.status, c.reason, c.message]), [
      ['MemoryPressure', 'False', 'KubeletHasSufficientMemory', 'kubelet has sufficient memory available'],
      ['DiskPressure', 'False', 'KubeletHasNoDiskPressure', 'kubelet has no disk pressure'],
      ['PIDPressure', 'False', 'KubeletHasSufficientPID', 'kubelet has sufficient PID available'],
      ['Ready', 'True', 'KubeletReady', 'kubelet is posting ready status'],
    ]);
    for (const c of s.conditions) {
      assert.equal(c.lastHeartbeatTime, '2025-01-01T00:00:00Z');
      assert.equal(c.lastTransitionTime, '2025-01-01T00:00:00Z');
    }
  });

  it('records the condition events a starting kubelet records', () => {
    const events: string[] = [];
    initialNode(config(), healthy, t0, (_t, r) => events.push(r));
    assert.deepEqual(events, ['NodeHasSufficientMemory', 'NodeHasNoDiskPressure', 'NodeHasSufficientPID']);
  });
});

describe('nodeStatus setters', () => {
  it('moves heartbeats and keeps transition times while nothing changes', () => {
    // One config: its bootID is per agent start (time-based), as a real boot ID is.
    const cfg = config();
    const n = initialNode(cfg, healthy, t0);
    const s = nodeStatus(n, cfg, healthy, t1);
    for (const c of s.conditions) {
      assert.equal(c.lastHeartbeatTime, '2025-01-01T00:00:10Z');
      assert.equal(c.lastTransitionTime, '2025-01-01T00:00:00Z');
    }
    assert.equal(nodeStatusHasChanged(n.status, s), false, 'only heartbeat times differ');
  });

  it('reports Ready False with KubeletNotReady and the errors, then True again, each a transition', () => {
    const cfg = config();
    const events: string[] = [];
    const n = initialNode(cfg, healthy, t0);
    const down = nodeStatus(n, cfg, { errors: ['container runtime is down', 'network not ready'] }, t1, (_t, r) => events.push(r));
    const ready = cond({ status: down }, 'Ready');
    assert.deepEqual([ready.status, ready.reason, ready.message, ready.lastTransitionTime], ['False', 'KubeletNotReady', 'container runtime is down,network not ready', '2025-01-01T00:00:10Z']);
    assert.ok(nodeStatusHasChanged(n.status, down));
    const up = nodeStatus({ ...n, status: down }, cfg, healthy, t2, (_t, r) => events.push(r));
    assert.equal(cond({ status: up }, 'Ready').lastTransitionTime, '2025-01-01T00:05:10Z');
    assert.deepEqual(events, ['NodeNotReady', 'NodeReady']);
  });

  it('takes Ready back from Unknown (set by the node lifecycle controller) with a new transition time', () => {
    const cfg = config();
    const n = initialNode(cfg, healthy, t0);
    n.status.conditions = n.status.conditions.map((c: any) => ({ ...c, status: 'Unknown', reason: 'NodeStatusUnknown', message: 'Kubelet stopped posting node status.' }));
    const s = nodeStatus(n, cfg, healthy, t2);
    assert.ok(s.conditions.every((c: any) => c.lastTransitionTime === '2025-01-01T00:05:10Z'));
    assert.equal(cond({ status: s }, 'MemoryPressure').status, 'False');
    assert.equal(cond({ status: s }, 'Ready').status, 'True');
  });

  it('is not Ready when a required capacity is missing', () => {
    const cfg = config();
    delete cfg.capacity['ephemeral-storage'];
    delete cfg.capacity.pods;
    const s = initialNode(cfg, healthy, t0).status;
    const ready = cond({ status: s }, 'Ready');
    assert.equal(ready.status, 'False');
    assert.equal(ready.message, 'Missing node capacity for resources: pods, ephemeral-storage');
  });

  it('keeps conditions it does not own (NetworkUnavailable) and does not mutate its input', () => {
    const cfg = config();
    const n = initialNode(cfg, healthy, t0);
    n.status.conditions.unshift({ type: 'NetworkUnavailable', status: 'False', reason: 'RouteCreated' });
    const before = structuredClone(n);
    const s = nodeStatus(n, cfg, healthy, t1);
    assert.deepEqual(n, before);
    assert.equal(s.conditions[0].type, 'NetworkUnavailable');
    assert.equal(s.conditions.at(-1)?.type, 'Ready');
  });

  it('keeps an extended resource advertised in capacity and makes it allocatable (Advertise Extended Resources for a Node)', () => {
    const cfg = config();
    const n = initialNode(cfg, healthy, t0);
    n.status.capacity['example.com/dongle'] = '4';
    const s = nodeStatus(n, cfg, healthy, t1);
    assert.equal(s.capacity['example.com/dongle'], '4');
    assert.equal(s.allocatable['example.com/dongle'], '4');
    assert.ok(nodeStatusHasChanged(n.status, s));
    assert.equal(nodeStatusHasChanged(s, nodeStatus({ ...n, status: s }, cfg, healthy, t2)), false);
  });

  it('drops an extended resource removed from capacity from allocatable, with null in the patch', () => {
    const cfg = config();
    const n = initialNode(cfg, healthy, t0);
    n.status.allocatable['example.com/dongle'] = '4';
    const s = nodeStatus(n, cfg, healthy, t1);
    assert.equal(s.allocatable['example.com/dongle'], undefined);
    assert.equal(nodeStatusPatch(s, n.status).status.allocatable!['example.com/dongle'], null);
    assert.equal('example.com/dongle' in nodeStatusPatch(s, s).status.allocatable!, false);
  });

  it('gives each capacity entry the reserved allocatable where the node has one', () => {
    const cfg = { ...config(), allocatable: { memory: '7Gi' } };
    const n = initialNode(cfg, healthy, t0);
    n.status.capacity['example.com/dongle'] = '2';
    const s = nodeStatus(n, cfg, healthy, t1);
    assert.equal(s.allocatable.memory, '7Gi');
    assert.equal(s.allocatable.cpu, '4');
    assert.equal(s.allocatable['example.com/dongle'], '2');
  });

  it('patches only the kubelet-owned fields', () => {
    const s = initialNode(config(), healthy, t0).status;
    assert.deepEqual(Object.keys(nodeStatusPatch({ ...s, images: [], volumesAttached: [] }).status).sort(),
      ['addresses', 'allocatable', 'capacity', 'conditions', 'daemonEndpoints', 'nodeInfo']);
  });
});

describe('reconcileDefaultLabels', () => {
  it('patches only default labels that differ, never user labels', () => {
    const cfg = config({ labels: { team: 'x' } });
    const existing = { metadata: { labels: { ...defaultNodeLabels(cfg), 'kubernetes.io/os': 'windows', team: 'y' } } };
    assert.deepEqual(reconcileDefaultLabels(existing, cfg), { 'kubernetes.io/os': 'linux' });
    assert.equal(reconcileDefaultLabels({ metadata: { labels: defaultNodeLabels(cfg) } }, cfg), undefined);
  });
});
