/**
 * busybox's ping in the simulated shell (the Job with Pod-to-Pod Communication
 * page), the pod resolver that follows EndpointSlice changes, and the fields
 * 1.32's API server drops while their feature gate is off (resizePolicy).
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Pod, Service } from 'kubernetes-types/core/v1.js';
import type { EndpointSlice } from 'kubernetes-types/discovery/v1.js';
import { ping } from '../../src/kubelet/runtime/simulated/ping.js';
import type { ShellContext } from '../../src/kubelet/runtime/simulated/shell.js';
import type { PodResolver } from '../../src/kubelet/runtime/simulated/nslookup.js';
import { podResolver } from '../../src/kubelet/runtime/simulated/pod-network.js';
import { dropDisabledFields } from '../../src/api/disabled-fields.js';

const context = (answers: Record<string, string[]>, slept: number[] = []): ShellContext => ({
  env: new Map(), hostname: 'example-job-0', image: 'bash:latest',
  readFile: () => undefined, listDir: () => undefined, now: () => new Date(0), write: () => undefined,
  sleep: async (ms) => { slept.push(ms); return true; },
  dns: async (): Promise<PodResolver> => ({ server: '10.96.0.10', search: ['default.svc.cluster.local', 'svc.cluster.local', 'cluster.local'], ndots: 5, query: async (name) => answers[name] ?? [] }),
});

async function run(args: string[], ctx: ShellContext) {
  let stdout = ''; let stderr = '';
  const code = await ping(args, ctx, (s, t) => { if (s === 'stdout') stdout += t; else stderr += t; });
  return { code, stdout, stderr };
}

describe('ping', () => {
  it('resolves through the search path and prints busybox\'s echo lines and statistics, a second apart', async () => {
    const slept: number[] = [];
    const r = await run(['-c', '2', 'example-job-1.headless-svc'], context({ 'example-job-1.headless-svc.default.svc.cluster.local': ['10.244.2.4'] }, slept));
    assert.deepEqual(r, {
      code: 0, stderr: '',
      stdout: 'PING example-job-1.headless-svc (10.244.2.4): 56 data bytes\n64 bytes from 10.244.2.4: seq=0 ttl=64 time=0.080 ms\n64 bytes from 10.244.2.4: seq=1 ttl=64 time=0.080 ms\n\n'
        + '--- example-job-1.headless-svc ping statistics ---\n2 packets transmitted, 2 packets received, 0% packet loss\nround-trip min/avg/max = 0.080/0.080/0.080 ms\n',
    });
    assert.deepEqual(slept, [1000]);
  });

  it('says bad address for a name without a record, and refuses a bad count', async () => {
    assert.deepEqual(await run(['-c', '1', 'example-job-2.headless-svc'], context({})), { code: 1, stdout: '', stderr: 'ping: bad address \'example-job-2.headless-svc\'\n' });
    assert.equal((await run(['-c', 'x', 'h'], context({}))).stderr, 'ping: invalid number \'x\'\n');
  });
});

describe('podResolver', () => {
  it('answers a pod\'s hostname once its endpoint is in the Service\'s slice, and no longer once it left', async () => {
    const svc: Service = { metadata: { name: 'headless-svc', namespace: 'default' }, spec: { clusterIP: 'None', selector: { 'job-name': 'example-job' } } };
    const kubeDNS: Service = { metadata: { name: 'kube-dns', namespace: 'kube-system' }, spec: { clusterIP: '10.96.0.10' } };
    const slice = (ready: boolean): EndpointSlice => ({
      addressType: 'IPv4', metadata: { name: 'headless-svc-abcde', namespace: 'default', labels: { 'kubernetes.io/service-name': 'headless-svc' } },
      endpoints: [{ addresses: ['10.244.1.2'], hostname: 'example-job-0', conditions: { ready } }],
    });
    let slices: EndpointSlice[] = [];
    const objects = {
      service: async (ns: string, name: string) => {
        const found = [svc, kubeDNS].find((s) => s.metadata!.namespace === ns && s.metadata!.name === name);
        if (!found) throw Object.assign(new Error('not found'), { code: 404 });
        return found;
      },
      endpointSlices: async (ns: string, name: string) => (ns === 'default' && name === 'headless-svc' ? slices : []),
    };
    const pod: Pod = { metadata: { name: 'example-job-1-xyz', namespace: 'default' }, spec: { containers: [] } };
    const r = await podResolver(pod, objects as never);
    const name = 'example-job-0.headless-svc.default.svc.cluster.local';
    assert.deepEqual(await r.query(name, 'A'), []);
    slices = [slice(true)];
    assert.deepEqual(await r.query(name, 'A'), ['10.244.1.2']);
    slices = [slice(false)];
    assert.deepEqual(await r.query(name, 'A'), []);
  });
});

describe('dropDisabledFields', () => {
  const policy = [{ resourceName: 'cpu', restartPolicy: 'NotRequired' }];
  it('drops the pod\'s own resources and volumes\' image sources (PodLevelResources, ImageVolume), unless the stored spec uses them', () => {
    const requirements = { requests: { cpu: '1' } };
    const volumes = () => [{ name: 'v', image: { reference: 'r' } }, { name: 'e', emptyDir: {} }];
    const pod = { spec: { containers: [], resources: requirements, volumes: volumes() } };
    dropDisabledFields('v1/Pod', pod);
    assert.deepEqual(pod.spec, { containers: [], volumes: [{ name: 'v' }, { name: 'e', emptyDir: {} }] });
    const deployment = { spec: { template: { spec: { containers: [], resources: requirements, volumes: volumes() } } } };
    dropDisabledFields('apps/v1/Deployment', deployment, { spec: { template: { spec: { containers: [], resources: requirements, volumes: volumes() } } } });
    assert.deepEqual(deployment.spec.template.spec, { containers: [], resources: requirements, volumes: volumes() });
  });

  it('drops containers\' resizePolicy from pods and templates, unless the stored object uses it', () => {
    const pod = { spec: { containers: [{ name: 'c', resizePolicy: policy }], initContainers: [{ name: 'i', resizePolicy: policy }] } };
    dropDisabledFields('v1/Pod', pod);
    assert.deepEqual(pod.spec, { containers: [{ name: 'c' }], initContainers: [{ name: 'i' }] });
    const cronJob = { spec: { jobTemplate: { spec: { template: { spec: { containers: [{ name: 'c', resizePolicy: policy }] } } } } } };
    dropDisabledFields('batch/v1/CronJob', cronJob);
    assert.deepEqual(cronJob.spec.jobTemplate.spec.template.spec.containers, [{ name: 'c' }]);
    const kept = { spec: { template: { spec: { containers: [{ name: 'c', resizePolicy: policy }] } } } };
    dropDisabledFields('apps/v1/Deployment', kept, { spec: { template: { spec: { containers: [{ name: 'c', resizePolicy: policy }] } } } });
    assert.deepEqual(kept.spec.template.spec.containers[0]!.resizePolicy, policy);
    const other = { spec: { containers: [{ resizePolicy: policy }] } };
    dropDisabledFields('v1/ConfigMap', other);
    assert.deepEqual(other.spec.containers[0]!.resizePolicy, policy);
  });
});
