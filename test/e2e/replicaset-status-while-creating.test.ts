/**
 * A ReplicaSet's status keeps up with its pods while other ReplicaSets' creates hold
 * the controller's workers (src/controllers/replicaset/creation-slots.ts).
 *
 * A real `k8ts server` with the replicaset controller (4 workers) and the scheduler, the
 * real kubectl, simulated nodes. A validating webhook never answers for pods labelled
 * app=slow, so each create of those hangs until the API server gives up on the webhook
 * (timeoutSeconds 30, failurePolicy Fail) and the sync that sent it writes a ReplicaFailure
 * condition. `fast` (2 replicas) has its pods created while there is no node yet; then four
 * slow ReplicaSets start creating, and only then do nodes come, so fast's pods become Ready
 * while the slow creates hang. Upstream's queue then had all four workers waiting in the
 * slow creates: fast's next sync (the one counting its Ready pods) came only after a slow
 * create failed, i.e. after a slow ReplicaSet's ReplicaFailure was written. With at most
 * workers - 1 syncs creating, fast's readyReplicas reaches 2 while no slow create has failed
 * yet: the order of the two writes is what is asserted, not a time.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import type { ReplicaSet } from 'kubernetes-types/apps/v1.js';
import { startCluster, eventually, type Cluster } from './harness.js';
import { startWebhookServer, type WebhookServer } from './webhook-server.js';
import { Clientset, loadKubeconfig } from '../../src/client/index.js';
import { NodeSimulator } from '../../src/kubelet/index.js';
import { silentLogger } from '../../src/util/log.js';

const timeout = 60_000;

const replicaSet = (name: string, replicas: number, app: string): ReplicaSet => ({
  apiVersion: 'apps/v1', kind: 'ReplicaSet', metadata: { name },
  spec: {
    replicas, selector: { matchLabels: { rs: name } },
    template: { metadata: { labels: { rs: name, app } }, spec: { containers: [{ name: 'c', image: 'registry.k8s.io/pause:3.10' }] } },
  },
});

describe('ReplicaSet status while other ReplicaSets\' creates hold the workers', () => {
  let cluster: Cluster;
  let clients: Clientset;
  let hooks: WebhookServer;
  let sim: NodeSimulator | undefined;

  before(async () => {
    cluster = await startCluster({ controllers: 'replicaset,scheduler' });
    clients = new Clientset(loadKubeconfig(cluster.kubeconfig));
    // Never answers: the API server waits out timeoutSeconds, then fails the create.
    hooks = await startWebhookServer(() => undefined);
    await cluster.kubectl(['create', '-f', '-'], { input: JSON.stringify({
      apiVersion: 'admissionregistration.k8s.io/v1', kind: 'ValidatingWebhookConfiguration', metadata: { name: 'hold-slow-pods' },
      webhooks: [{
        name: 'hold.slow.example.com', admissionReviewVersions: ['v1'], sideEffects: 'None', timeoutSeconds: 30, failurePolicy: 'Fail',
        clientConfig: { url: hooks.url('/hold'), caBundle: hooks.caBundle },
        objectSelector: { matchLabels: { app: 'slow' } },
        rules: [{ operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['pods'] }],
      }],
    }) });
  });

  after(async () => {
    await sim?.close();
    clients?.close();
    await hooks?.close();
    await cluster?.cleanup();
  });

  it('counts its Ready pods before any of the held creates has failed', async () => {
    const rs = clients.resource('replicasets');
    await rs.create('default', replicaSet('fast', 2, 'fast'));
    await eventually(async () => (await clients.pods.list('default', { labelSelector: 'rs=fast' })).items.length === 2, timeout, 'fast\'s 2 pods created');
    for (let i = 0; i < 4; i++) await rs.create('default', replicaSet(`slow-${i}`, 3, 'slow'));
    // Three syncs hold a create each (the fourth slow ReplicaSet waits for a slot; upstream's queue: all four).
    await eventually(async () => (hooks.reviews.get('/hold')?.length ?? 0) >= 3, timeout, 'three slow creates held by the webhook');
    sim = new NodeSimulator(clients, { count: 2, renewIntervalMs: 1000, logger: silentLogger });
    await sim.start();
    const fast = await eventually(async () => {
      const got = await rs.get('default', 'fast') as ReplicaSet;
      return got.status?.readyReplicas === 2 && got;
    }, timeout, 'fast\'s readyReplicas 2');
    assert.equal(fast.status?.replicas, 2);
    const slow = (await rs.list('default')).items.filter((r: ReplicaSet) => r.metadata!.name!.startsWith('slow-')) as ReplicaSet[];
    const failed = slow.filter((r) => r.status?.conditions?.some((c) => c.type === 'ReplicaFailure'));
    assert.deepEqual(failed.map((r) => r.metadata!.name), [], 'a held create had already failed when fast\'s status counted its Ready pods');
    // The slow pods never came: the webhook still holds (or has just failed) their creates.
    assert.equal((await clients.pods.list('default', { labelSelector: 'app=slow' })).items.length, 0);
  });
});
