/**
 * Requests per daemon pod start, counted by the server itself (apiserver_request_total,
 * every verb): the whole system (`k8ts server --controllers all`: DaemonSet controller and
 * scheduler) and simulated nodes whose kubelets record their Events, a DaemonSet rolled out
 * to them. What upstream sends for one daemon pod, and so the most this may send:
 *  - the DaemonSet controller's create (POST pods) and, per pod, at most one
 *    SuccessfulCreate Event (its recorder's spam filter keeps far fewer at scale);
 *  - the scheduler's binding (POST pods/binding) and its Scheduled Event;
 *  - the kubelet's status update(s): its status manager writes when the pod starts and again
 *    when it turns Ready if that is a separate sync, so at most two;
 *  - the kubelet's Pulled, Created and Started Events for the one container;
 *  - DaemonSet status writes: once per sync whose numbers changed, never more than the
 *    pod changes that wake a sync (created, bound, Ready);
 *  - no reads: controllers, scheduler and kubelets read their informers' caches, so no
 *    GET or LIST of pods, nodes or DaemonSets and no new watch, per pod or at all.
 * Lease renewals and node status (the nodes' heartbeats, not the pods') are left out,
 * as is this test's own polling of the DaemonSet.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startCluster, eventually, type Cluster } from './harness.js';
import { requestCounts } from '../../bench/lib/request-counts.js';
import { Clientset, loadKubeconfig } from '../../src/client/index.js';
import { NodeSimulator } from '../../src/kubelet/index.js';
import { silentLogger } from '../../src/util/log.js';
import type { DaemonSet } from 'kubernetes-types/apps/v1.js';
import type { Event } from 'kubernetes-types/core/v1.js';

const nodes = 8;

/** apiserver_request_total by "VERB resource[/subresource]", summed over codes. */
const countsByVerb = (clients: Clientset) => requestCounts(clients);

const since = (a: Map<string, number>, b: Map<string, number>) => new Map([...b].map(([k, v]) => [k, v - (a.get(k) ?? 0)] as const).filter(([, v]) => v > 0));

describe('requests per daemon pod start (whole system)', () => {
  let cluster: Cluster;
  let clients: Clientset;
  let sim: NodeSimulator;

  before(async () => {
    cluster = await startCluster({ controllers: 'all' });
    clients = new Clientset(loadKubeconfig(cluster.kubeconfig));
    sim = new NodeSimulator(clients, { count: nodes, namePrefix: 'req-node-', renewIntervalMs: 10_000, events: true, logger: silentLogger });
    await sim.start();
    // The nodes' own start-up (the node controller's RegisteredNode, the kubelets' Starting Events) settles first.
    const reasons = async () => ((await clients.events.list('default')).items as Event[]).map((e) => e.reason);
    await eventually(async () => {
      const seen = await reasons();
      // The kubelets' node condition Events too: under load they can still be on their way when the count starts.
      return ['RegisteredNode', 'Starting', 'NodeHasSufficientMemory', 'NodeHasNoDiskPressure', 'NodeHasSufficientPID']
        .every((r) => seen.filter((x) => x === r).length === nodes);
    }, 30_000, 'the nodes registered', async () => JSON.stringify(await reasons()));
    // The server counts a request when its answer has been written, which under load can be
    // after another client already lists the Event it created: wait until the count of Event
    // writes stands still, so that none of the start-up's is counted in the window.
    let last = -1;
    await eventually(async () => {
      await new Promise((r) => setTimeout(r, 400));
      const c = await countsByVerb(clients);
      const now = (c.get('POST events') ?? 0) + (c.get('PATCH events') ?? 0);
      const settled = now === last;
      last = now;
      return settled;
    }, 30_000, 'the start-up Event writes counted');
  });

  after(async () => {
    await sim?.close();
    clients?.close();
    await cluster?.cleanup();
  });

  it('sends at most what upstream sends for each pod: one create, one binding, two status writes, five Events, no reads', async () => {
    const startedAt = Date.now();
    const before = await countsByVerb(clients);
    await clients.daemonsets.create('default', {
      apiVersion: 'apps/v1', kind: 'DaemonSet', metadata: { name: 'req-ds' },
      spec: { selector: { matchLabels: { app: 'req-ds' } }, template: { metadata: { labels: { app: 'req-ds' } }, spec: { containers: [{ name: 'c', image: 'gasbugs/http-go' }] } } },
    });
    await eventually(async () => {
      const ds: DaemonSet = await clients.daemonsets.get('default', 'req-ds');
      return ds.status?.numberReady === nodes && ds.status.desiredNumberScheduled === nodes;
    }, 30_000, `${nodes} daemon pods Ready`);
    // The Events are written behind the pods' progress: wait for the last ones before counting.
    await eventually(async () => {
      const evs: Event[] = (await clients.events.list('default')).items;
      const about = (reason: string) => evs.filter((e) => e.reason === reason && e.involvedObject?.name?.startsWith('req-ds-')).length;
      return about('Scheduled') === nodes && about('Started') === nodes;
    }, 30_000, 'the Scheduled and Started Events');
    const after = await countsByVerb(clients);
    const heartbeats = (k: string) => k.endsWith(' leases') || / nodes(\/status)?$/.test(k);
    const mine = (k: string) => k === 'GET daemonsets' || k === 'LIST events' || k === 'GET ';
    const window = new Map([...since(before, after)].filter(([k]) => !heartbeats(k) && !mine(k)));
    const get = (k: string) => window.get(k) ?? 0;
    const shown = JSON.stringify(Object.fromEntries(window));

    assert.equal(get('POST pods'), nodes, `one create per pod: ${shown}`);
    assert.equal(get('POST pods/binding'), nodes, `one binding per pod: ${shown}`);
    const statusWrites = get('PUT pods/status') + get('PATCH pods/status');
    assert.ok(statusWrites >= nodes && statusWrites <= 2 * nodes, `one or two status writes per pod: ${shown}`);
    const eventWrites = get('POST events') + get('PATCH events');
    // Which Events the window wrote, by involved object and reason, to tell a flake's cause from a regression.
    const written = ((await clients.events.list('default')).items as Event[]).filter((e) => Date.parse(e.lastTimestamp ?? e.eventTime ?? e.metadata?.creationTimestamp ?? '') >= startedAt - 1000)
      .map((e) => `${e.involvedObject?.kind}/${e.involvedObject?.name} ${e.reason} x${e.count ?? 1}`).sort().join(', ');
    assert.ok(eventWrites <= 5 * nodes, `Scheduled, Pulled, Created, Started and at most one SuccessfulCreate per pod: ${shown}; Events: ${written}`);
    assert.ok(get('PUT daemonsets/status') <= 3 * nodes, `DaemonSet status at most once per pod change: ${shown}`);
    assert.equal(get('POST controllerrevisions'), 1, `one revision for the DaemonSet, none per pod: ${shown}`);
    const reads = [...window].filter(([k]) => /^(GET|LIST|WATCH) /.test(k));
    assert.deepEqual(reads, [], `no reads: the control loops and kubelets read their caches: ${shown}`);
    const expected = new Set(['POST pods', 'POST pods/binding', 'PUT pods/status', 'PATCH pods/status', 'POST events', 'PATCH events', 'PUT daemonsets/status', 'POST daemonsets', 'POST controllerrevisions']);
    // Nothing else about pods, Events, DaemonSets or revisions (other controllers' start-up work, such as ClusterRole aggregation, may still run).
    assert.deepEqual([...window.keys()].filter((k) => /\b(pods|events|daemonsets|controllerrevisions)\b/.test(k) && !expected.has(k)), [], `nothing else: ${shown}`);
    const total = [...expected].reduce((sum, k) => sum + get(k), 0) - get('POST daemonsets') - get('POST controllerrevisions');
    // 1 create + 1 binding + 2 status + 5 Events + the DaemonSet's status writes: upstream's most, 12 per pod.
    assert.ok(total / nodes <= 12, `${(total / nodes).toFixed(2)} requests per daemon pod start: ${shown}`);
  });
});
