/**
 * Leader election judged as client-go judges it, against a real `k8ts server`:
 * a Lease is expired when this candidate has seen its record unchanged for
 * leaseDurationSeconds of its own clock, whatever renewTime says. The holder
 * here is the test, writing renewTimes from a clock an hour off in either
 * direction (a control plane on a host whose clock is wrong).
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Lease } from 'kubernetes-types/coordination/v1.js';
import { startCluster, eventually } from './harness.js';
import type { Cluster } from './harness.js';
import { Clientset, LeaderElector, loadKubeconfig } from '../../src/client/index.js';

const hour = 3_600_000;
const microTime = (ms: number) => new Date(ms).toISOString().replace('Z', '000Z');

describe('leader election (e2e)', { timeout: 90_000 }, () => {
  let cluster: Cluster;
  let clients: Clientset;

  before(async () => {
    cluster = await startCluster();
    clients = new Clientset(loadKubeconfig(cluster.kubeconfig));
  });
  after(async () => {
    clients?.close();
    await cluster?.cleanup();
  });

  /** Creates the Lease as held by `holder`, renewed at `renewMs` (another host's clock). */
  async function holdLease(name: string, holder: string, renewMs: number, leaseDurationSeconds = 1): Promise<void> {
    await clients.leases.create('default', {
      apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', metadata: { name, namespace: 'default' },
      spec: { holderIdentity: holder, leaseDurationSeconds, acquireTime: microTime(renewMs), renewTime: microTime(renewMs), leaseTransitions: 0 },
    } satisfies Lease);
  }

  function candidate(name: string, identity: string) {
    const events: string[] = [];
    const elector = new LeaderElector(clients, {
      namespace: 'default', name, identity, leaseDurationSeconds: 1, renewDeadlineMs: 800, retryPeriodMs: 100,
      onStartedLeading: () => events.push('started'), onStoppedLeading: () => events.push('stopped'),
    });
    return { elector, events };
  }

  it('does not take a Lease from a live holder whose clock is an hour slow', async () => {
    // A 5 s lease renewed every 200 ms: only a stall of seconds could let a correct candidate in.
    await holdLease('slow-holder', 'slow', Date.now() - hour, 5);
    let renewals = 0;
    let renewing = true;
    const renew = async () => {
      while (renewing) {
        const lease = await clients.leases.get('default', 'slow-holder') as Lease;
        if (lease.spec?.holderIdentity !== 'slow') break;
        renewals++;
        await clients.leases.update({ ...lease, spec: { ...lease.spec, renewTime: microTime(Date.now() - hour + renewals) } })
          .catch(() => undefined);
        await new Promise((r) => setTimeout(r, 200));
      }
    };
    const holderLoop = renew();
    const { elector, events } = candidate('slow-holder', 'other');
    elector.start();
    try {
      // A candidate reading renewTime against its own clock takes this Lease at its first try.
      await new Promise((r) => setTimeout(r, 3_000));
      assert.ok(renewals >= 3, `the holder renewed (${renewals} times)`);
      assert.equal(events.join(','), '', 'the candidate did not lead while the holder renewed');
      assert.equal(((await clients.leases.get('default', 'slow-holder')) as Lease).spec?.holderIdentity, 'slow');
      // The holder dies: its record stops changing, and after a lease duration the candidate takes over.
      renewing = false;
      await holderLoop;
      await eventually(async () => events.includes('started'), 20_000, 'the candidate leads after the holder stopped renewing');
      const lease = (await clients.leases.get('default', 'slow-holder')) as Lease;
      assert.equal(lease.spec?.holderIdentity, 'other');
      assert.equal(lease.spec?.leaseTransitions, 1);
    } finally {
      renewing = false;
      elector.stop();
    }
  });

  it('takes over from a dead holder whose clock was an hour fast, after one lease duration of silence', async () => {
    await holdLease('fast-holder', 'fast', Date.now() + hour);
    const { elector, events } = candidate('fast-holder', 'other');
    const started = Date.now();
    elector.start();
    try {
      await eventually(async () => events.includes('started'), 20_000, 'the candidate leads although renewTime is in its future');
      assert.ok(Date.now() - started >= 1_000, 'not before it saw the record unchanged for leaseDurationSeconds');
      assert.equal(((await clients.leases.get('default', 'fast-holder')) as Lease).spec?.holderIdentity, 'other');
    } finally {
      elector.stop();
    }
  });

  it('takes a released Lease (no holder) at once', async () => {
    await holdLease('released', '', Date.now() + hour);
    const { elector, events } = candidate('released', 'other');
    elector.start();
    try {
      await eventually(async () => events.includes('started'), 10_000, 'the candidate leads a released Lease');
    } finally {
      elector.stop();
    }
  });

  it('a stop while an acquire is in flight starts no term and leaves the Lease unheld (k8ts up once hung on SIGTERM: its scheduler led again after stopping)', async () => {
    const { elector, events } = candidate('stopped-mid-acquire', 'quitter');
    elector.start(); // its first acquire (a create of the Lease) is on the wire now
    await elector.stop();
    await new Promise((r) => setTimeout(r, 500)); // past the retry period: a tick that survived the stop would have run
    assert.deepEqual(events, [], 'onStartedLeading after stop()');
    assert.equal(elector.isLeader, false);
    const lease = await clients.leases.get('default', 'stopped-mid-acquire').catch(() => undefined) as Lease | undefined;
    assert.notEqual(lease?.spec?.holderIdentity, 'quitter', 'the Lease the in-flight create took is given up');
  });

  it('a stop during a renewal starts no second term and gives the Lease up', async () => {
    const { elector, events } = candidate('stopped-mid-renew', 'renewer');
    elector.start();
    await eventually(async () => events.includes('started'), 10_000, 'the candidate leads');
    // Renewals every 100 ms: stop at once after one is sent, so it lands after stop() began.
    const renewed = async () => ((await clients.leases.get('default', 'stopped-mid-renew')) as Lease).spec?.renewTime;
    const first = await renewed();
    await eventually(async () => (await renewed()) !== first, 5_000, 'a renewal');
    await elector.stop();
    await new Promise((r) => setTimeout(r, 500));
    assert.deepEqual(events, ['started'], 'one term, and no start after stop()');
    assert.equal(((await clients.leases.get('default', 'stopped-mid-renew')) as Lease).spec?.holderIdentity, '');
  });
});
