/**
 * The scheduler's bindings in flight follow the answers (scheduler/bind-window.ts), against a
 * real `k8ts server` (no controllers) with the Scheduler in this process. A validating webhook
 * on pods/binding (a real HTTPS webhook server) answers slowly, then at once: slow answers halve
 * the window, at most once per round trip; fast ones grow it back. Every pod is bound either way.
 * Counts only: the window's size and the most reviews the webhook held at once.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import type { Node, Pod } from 'kubernetes-types/core/v1.js';
import { startCluster, eventually } from './harness.js';
import type { Cluster } from './harness.js';
import { startWebhookServer, type WebhookServer } from './webhook-server.js';
import { Clientset, loadKubeconfig } from '../../src/client/index.js';
import type { Scheduler } from '../../src/scheduler/scheduler.js';
import { runScheduler, type RunningScheduler } from './scheduler-in-process.js';

const maxInFlight = 32;
/** Far above the window's target, so that every slow answer is late whatever the machine's load. */
const slowMs = 1500;
const targetMs = 400;

const worker: Node = {
  apiVersion: 'v1', kind: 'Node',
  metadata: { name: 'worker', labels: { 'kubernetes.io/hostname': 'worker' } },
  status: {
    capacity: { cpu: '64', memory: '64Gi', pods: '500' }, allocatable: { cpu: '64', memory: '64Gi', pods: '500' },
    conditions: [{ type: 'Ready', status: 'True', reason: 'KubeletReady', message: 'kubelet is posting ready status' }],
  },
};

const pod = (name: string): Pod => ({
  apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace: 'default' },
  spec: { containers: [{ name: 'app', image: 'registry.k8s.io/pause:3.10' }] },
});

describe('the scheduler\'s bindings in flight against slow and fast answers', () => {
  let cluster: Cluster;
  let clients: Clientset;
  let running: RunningScheduler;
  let scheduler: Scheduler;
  let hooks: WebhookServer;
  let slow = true;
  /** Binding reviews the webhook holds now, and the most it held at once since `peak` was reset. */
  let holding = 0;
  let peak = 0;

  before(async () => {
    hooks = await startWebhookServer(() => ({ allowed: true }), {
      delayMs: () => {
        holding++;
        peak = Math.max(peak, holding);
        const ms = slow ? slowMs : 0;
        setTimeout(() => holding--, ms);
        return ms;
      },
    });
    cluster = await startCluster();
    clients = new Clientset(loadKubeconfig(cluster.kubeconfig), { qps: 0, userAgent: 'k8ts-bind-window-e2e' });
    await cluster.kubectl(['create', '-f', '-'], { input: JSON.stringify({
      apiVersion: 'admissionregistration.k8s.io/v1', kind: 'ValidatingWebhookConfiguration', metadata: { name: 'slow-bindings' },
      webhooks: [{
        name: 'slow-bindings.example.com', admissionReviewVersions: ['v1'], sideEffects: 'None', failurePolicy: 'Fail', timeoutSeconds: 10,
        clientConfig: { url: hooks.url('/bindings'), caBundle: hooks.caBundle },
        rules: [{ operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['pods/binding'] }],
      }],
    }) });
    await clients.nodes.create(undefined, worker);
    running = runScheduler(clients, { maxInFlightBinds: maxInFlight, bindWindow: { min: 2, targetMs } });
    scheduler = running.scheduler;
  });

  after(async () => {
    running?.stop();
    clients?.close();
    await cluster?.cleanup();
    await hooks?.close();
  });

  const windowSize = () => scheduler.pending.bindWindow;
  const createAndBind = async (prefix: string, n: number) => {
    const before = scheduler.stats.bound;
    await Promise.all(Array.from({ length: n }, (_, i) => clients.pods.create('default', pod(`${prefix}-${i}`))));
    await eventually(async () => (scheduler.stats.bound - before >= n ? true : undefined), 120_000, `${n} ${prefix} pods bound`);
  };

  let slowWindow = 0;

  it('halves the window while answers are slow, and binds every pod', async () => {
    assert.equal(windowSize(), maxInFlight);
    await createAndBind('slow', 48);
    // The first bindings went out together; their late answers cut the window once (to 16), those
    // sent after that cut cut it again (to 8; to 4 if the creates came slowly enough to make three
    // round trips): one cut per round trip. One cut per late answer would have reached the minimum, 2.
    const afterSlow = windowSize();
    assert.ok(afterSlow === 8 || afterSlow === 4, `window ${afterSlow}`);
    assert.equal(hooks.reviews.get('/bindings')?.length, 48);
    // Now at most the window is in flight: the webhook never holds more reviews at once.
    peak = 0;
    await createAndBind('still-slow', 8);
    assert.ok(peak <= afterSlow, `the webhook held ${peak} reviews at once, the window was ${afterSlow}`);
    slowWindow = windowSize();
    assert.ok(slowWindow < afterSlow, `window ${slowWindow}`);
  });

  it('grows the window back while answers are fast', async () => {
    slow = false;
    await createAndBind('fast', 64);
    assert.ok(windowSize() > slowWindow, `window ${windowSize()}, was ${slowWindow}`);
    const bound = (await clients.pods.list('default')).items.filter((p: Pod) => p.spec?.nodeName === 'worker').length;
    assert.equal(bound, 48 + 8 + 64);
  });
});
