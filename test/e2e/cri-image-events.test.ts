/**
 * The kubelet's image events on a real containerd node (issue #22), in
 * upstream's reasons and words (pkg/kubelet/images/image_manager.go and
 * kuberuntime's startContainer), read the way users read them: `kubectl
 * describe pod` and `kubectl get events`.
 *  - a present image (IfNotPresent): Pulled "Container image \"X\" already present on machine";
 *  - an image that cannot be pulled (the containerd's network namespace has no
 *    route out, so any registry image fails): Pulling, Failed "Failed to pull
 *    image \"X\": ...", Failed "Error: ErrImagePull", then BackOff "Back-off
 *    pulling image \"X\"" and Failed "Error: ImagePullBackOff".
 * A successful pull's Pulled "Successfully pulled image ... Image size: N bytes."
 * needs a registry, which this machine does not have (test/unit/kubelet-image-events.test.ts).
 */
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Event } from 'kubernetes-types/core/v1.js';
import { startCluster, eventually, type Cluster } from './harness.js';
import { nodeReady, startCRIAgent, type CRIAgent } from './real-node.js';
import { startContainerd, busyboxImage, type PrivateContainerd } from './containerd.js';

const nodeName = 'img-node';
const unpullable = 'nginx:1.27';
let cluster: Cluster | undefined;
let ctrd: PrivateContainerd | undefined;
let agent: CRIAgent | undefined;
const work = mkdtempSync(join(tmpdir(), 'k8ts-e2e-imgev-'));

const podJSON = (name: string, image: string) => JSON.stringify({
  apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace: 'default' },
  spec: { nodeName, terminationGracePeriodSeconds: 1, containers: [{ name: 'main', image, imagePullPolicy: 'IfNotPresent', command: ['sleep', '3600'] }] },
});

/** The pod's events as `kubectl get events` lists them, oldest first. */
async function eventsOf(pod: string): Promise<Event[]> {
  const r = await cluster!.kubectl(['get', 'events', '--field-selector', `involvedObject.name=${pod}`, '-o', 'json']);
  return (JSON.parse(r.stdout).items as Event[]).sort((a, b) => (a.metadata!.name! < b.metadata!.name! ? -1 : 1));
}

before(async () => {
  ctrd = await startContainerd();
  cluster = await startCluster({ controllers: 'root-ca-cert-publisher' });
  agent = startCRIAgent({ cluster, ctrd, nodeName, work });
  await nodeReady(cluster, nodeName);
});

after(async () => {
  await agent?.stop().catch(() => {});
  await cluster?.cleanup().catch(() => {});
  await ctrd?.stop();
  rmSync(work, { recursive: true, force: true });
});

describe('image events on a containerd node', () => {
  test('a present image: Pulled "already present on machine", then Created and Started', async () => {
    await cluster!.kubectl(['create', '-f', '-'], { input: podJSON('present', busyboxImage) });
    await eventually(async () => (await eventsOf('present')).some((e) => e.reason === 'Started'), 60_000, 'Started');
    const events = await eventsOf('present');
    const pulled = events.filter((e) => e.reason === 'Pulled');
    assert.equal(pulled.length, 1, JSON.stringify(events.map((e) => [e.reason, e.message])));
    assert.equal(pulled[0]!.type, 'Normal');
    assert.equal(pulled[0]!.message, `Container image "${busyboxImage}" already present on machine`);
    assert.equal(pulled[0]!.involvedObject.fieldPath, 'spec.containers{main}');
    assert.equal(pulled[0]!.source?.component, 'kubelet');
    assert.deepEqual(events.map((e) => e.reason).filter((r) => ['Pulling', 'Pulled', 'Created', 'Started'].includes(r!)), ['Pulled', 'Created', 'Started']);
    assert.ok(!events.some((e) => e.reason === 'Pulling'), 'no pull for a present image');
  });

  test('an unpullable image: Pulling, Failed to pull, Error: ErrImagePull, Back-off pulling, Error: ImagePullBackOff', async () => {
    await cluster!.kubectl(['create', '-f', '-'], { input: podJSON('unpullable', unpullable) });
    await eventually(async () => (await eventsOf('unpullable')).some((e) => e.message === 'Error: ImagePullBackOff'), 90_000, 'Error: ImagePullBackOff');
    const events = await eventsOf('unpullable');
    const seen = events.map((e) => `${e.type} ${e.reason} ${e.message}`);
    const find = (re: RegExp) => seen.find((s) => re.test(s));
    assert.ok(find(/^Normal Pulling Pulling image "nginx:1\.27"$/), seen.join('\n'));
    assert.ok(find(/^Warning Failed Failed to pull image "nginx:1\.27": rpc error: code = \w+ desc = .+/), seen.join('\n'));
    assert.ok(find(/^Warning Failed Error: ErrImagePull$/), seen.join('\n'));
    assert.ok(find(/^Normal BackOff Back-off pulling image "nginx:1\.27"$/), seen.join('\n'));
    assert.ok(find(/^Warning Failed Error: ImagePullBackOff$/), seen.join('\n'));
    // Upstream's order: the pull is tried, fails, then backs off.
    const at = (re: RegExp) => seen.findIndex((s) => re.test(s));
    assert.ok(at(/ Pulling /) < at(/Failed to pull image/) && at(/Failed to pull image/) < at(/Error: ErrImagePull$/) && at(/Error: ErrImagePull$/) < at(/ BackOff /), seen.join('\n'));
    // What a user reads first: kubectl describe's Events table.
    const describe = (await cluster!.kubectl(['describe', 'pod', 'unpullable'])).stdout;
    assert.match(describe, /Normal\s+Pulling\s+.+\s+kubelet\s+Pulling image "nginx:1\.27"/);
    assert.match(describe, /Warning\s+Failed\s+.+\s+kubelet\s+Failed to pull image "nginx:1\.27": rpc error: /);
    assert.match(describe, /Warning\s+Failed\s+.+\s+kubelet\s+Error: ErrImagePull/);
    assert.match(describe, /Normal\s+BackOff\s+.+\s+kubelet\s+Back-off pulling image "nginx:1\.27"/);
    assert.match(describe, /Warning\s+Failed\s+.+\s+kubelet\s+Error: ImagePullBackOff/);
    assert.match(describe, /State:\s+Waiting\n\s+Reason:\s+(ErrImagePull|ImagePullBackOff)/);
  });
});
