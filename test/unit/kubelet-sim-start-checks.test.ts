/**
 * The simulated runtime holds a pod whose ConfigMaps and Secrets are missing
 * (start-checks.ts), as the kubelet does: a volume keeps the whole pod from
 * starting (a FailedMount event each try), an env reference keeps its
 * container in CreateContainerConfigError; both start once the object exists.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { ConfigMap, Pod } from 'kubernetes-types/core/v1.js';
import { SimulatedRuntime } from '../../src/kubelet/runtime/simulated/runtime.js';
import { FakeTimers } from '../../src/kubelet/timers.js';
import type { PodObjectGetter } from '../../src/kubelet/volumes/objects.js';
import { startRetryMs } from '../../src/kubelet/runtime/simulated/start-checks.js';

const notFound = () => Promise.reject(Object.assign(new Error('not found'), { code: 404 }));

function cluster() {
  const configMaps = new Map<string, ConfigMap>();
  const events: string[] = [];
  const reads: string[] = [];
  const objects: PodObjectGetter = {
    claim: notFound, volume: notFound, secret: notFound,
    configMap: async (_ns, name) => { reads.push(name); return configMaps.get(name) ?? notFound(); },
  };
  const timers = new FakeTimers();
  const rt = new SimulatedRuntime({ podCIDR: '10.244.9.0/24', hostIP: '172.16.0.9', timers, nodeName: 'n', objects, recorder: { event: (_o, type, reason, message) => { events.push(`${type} ${reason} ${message}`); } } });
  return { rt, timers, events, configMaps, reads };
}

const settle = async () => { for (let i = 0; i < 20; i++) await new Promise((r) => setImmediate(r)); };

let seq = 0;
const pod = (spec: Pod['spec']): Pod => ({ metadata: { name: `p${++seq}`, namespace: 'default', uid: `uid-start-checks-${seq}` }, spec, status: { phase: 'Pending' } });

describe('simulated runtime: a pod waits for the ConfigMaps it names', () => {
  it('an env reference: CreateContainerConfigError with the kubelet\'s message, then running once the ConfigMap exists', async () => {
    const { rt, timers, configMaps } = cluster();
    const p = pod({ nodeName: 'n', containers: [{ name: 'c', image: 'busybox', env: [{ name: 'X', valueFrom: { configMapKeyRef: { name: 'cfg', key: 'k' } } }] }, { name: 'side', image: 'nginx' }] });
    rt.syncPod(p);
    await settle();
    const held = rt.status(p.metadata!.uid!)!;
    assert.deepEqual(held.containers.map((c) => [c.name, c.state, c.reason, c.message]), [['c', 'waiting', 'CreateContainerConfigError', 'configmap "cfg" not found'], ['side', 'running', undefined, undefined]]);
    assert.ok(held.sandbox?.ip, 'the sandbox runs');
    configMaps.set('cfg', { metadata: { name: 'cfg', namespace: 'default' }, data: { other: 'v' } });
    timers.advance(startRetryMs);
    await settle();
    // The ConfigMap exists now, the key does not.
    assert.equal(rt.status(p.metadata!.uid!)!.containers[0]!.message, "couldn't find key k in ConfigMap default/cfg");
    configMaps.set('cfg', { metadata: { name: 'cfg', namespace: 'default' }, data: { k: 'v' } });
    timers.advance(startRetryMs);
    await settle();
    assert.deepEqual(rt.status(p.metadata!.uid!)!.containers.map((c) => c.state), ['running', 'running']);
    await rt.close();
  });

  it('a volume: nothing starts and each try is a FailedMount event, until the ConfigMap exists; an optional one starts at once', async () => {
    const { rt, timers, events, configMaps } = cluster();
    const mounted = (optional: boolean) => pod({ nodeName: 'n', containers: [{ name: 'c', image: 'busybox', volumeMounts: [{ name: 'v', mountPath: '/etc/config' }] }], volumes: [{ name: 'v', configMap: { name: 'cfg', optional } }] });
    const optional = mounted(true);
    rt.syncPod(optional);
    await settle();
    assert.equal(rt.status(optional.metadata!.uid!)!.containers[0]!.state, 'running');
    const p = mounted(false);
    rt.syncPod(p);
    await settle();
    timers.advance(startRetryMs);
    await settle();
    assert.deepEqual(rt.status(p.metadata!.uid!)!.containers, []);
    assert.deepEqual(events, Array(2).fill('Warning FailedMount MountVolume.SetUp failed for volume "v" : configmap "cfg" not found'));
    configMaps.set('cfg', { metadata: { name: 'cfg', namespace: 'default' }, data: { k: 'v' } });
    timers.advance(startRetryMs);
    await settle();
    assert.equal(rt.status(p.metadata!.uid!)!.containers[0]!.state, 'running');
    await rt.close();
  });

  it('a pod start reads each ConfigMap its environment names once: the check\'s read is the environment the container starts with', async () => {
    const { rt, timers, configMaps, reads } = cluster();
    configMaps.set('cfg', { metadata: { name: 'cfg', namespace: 'default' }, data: { k: 'v1' } });
    configMaps.set('all', { metadata: { name: 'all', namespace: 'default' }, data: { A: 'a' } });
    const p = pod({ nodeName: 'n', containers: [{ name: 'c', image: 'busybox', env: [{ name: 'X', valueFrom: { configMapKeyRef: { name: 'cfg', key: 'k' } } }], envFrom: [{ configMapRef: { name: 'all' } }] }] });
    rt.syncPod(p);
    await settle();
    timers.advance(startRetryMs);
    await settle();
    assert.equal(rt.status(p.metadata!.uid!)!.containers[0]!.state, 'running');
    assert.deepEqual(reads.sort(), ['all', 'cfg']);
    await rt.close();
  });
});
