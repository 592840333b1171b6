/**
 * More kubernetes.io pages, command by command with the real kubectl 1.32 on
 * `npm start`'s simulated nodes, where k8ts once answered unlike upstream:
 *  - Job with Pod-to-Pod Communication: the simulated shell had no `ping`, so
 *    the pods' script was not run at all and their logs were empty; and a
 *    pod's resolver kept the headless Service's slices of its first lookup,
 *    so the peers' hostname records never appeared;
 *  - Resize CPU and Memory Resources assigned to Containers: a container's
 *    resizePolicy was stored, where 1.32 (InPlacePodVerticalScaling alpha,
 *    off by default) drops it.
 * Walked and answering as upstream already, checked here so they stay so:
 * Explore Termination Behavior for Pods And Their Endpoints (the terminating
 * endpoint's conditions) and the ReplicaSet page (acquisitions of bare pods,
 * isolating a pod, the HPA on a ReplicaSet).
 * Every wait polls a condition with a generous deadline; nothing is timed.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { EndpointSlice } from 'kubernetes-types/discovery/v1.js';
import { eventually } from './harness.js';
import { startUp, type UpCluster } from './up-cluster.js';
import * as m from './up-tutorials-pages13-manifests.js';

describe('k8ts up: the Job pod-to-pod, endpoint termination, ReplicaSet and in-place resize pages on simulated nodes', () => {
  let up: UpCluster;
  const kubectl = (args: string[], input?: string, allowFail = false) => up.kubectl(args, input, allowFail);
  const out = async (args: string[], input?: string) => (await kubectl(args, input)).stdout;
  const file = (name: string, text: string) => { const path = join(up.dir, name); writeFileSync(path, text); return path; };
  const podNames = async (selector: string) => (await out(['get', 'pods', '-l', selector, '-o', 'jsonpath={.items[*].metadata.name}'])).split(' ').filter(Boolean).sort();

  before(async () => {
    up = await startUp('k8ts-e2e-tut-pages13-');
  });
  after(async () => { await up?.close(); });

  it('Job with Pod-to-Pod Communication: each pod pings the others by hostname under the headless Service; the Job completes unless a pod waits on a peer that finished (the page\'s race)', async () => {
    assert.equal(await out(['apply', '-f', file('job-pod-to-pod.yaml', m.jobPodToPod)]), 'service/headless-svc created\njob.batch/example-job created\n');
    // A pod polls each peer once a second; a peer that became ready and finished between two of its polls has
    // left the headless Service, so the poller never finds it: the page's race, upstream's as well (known-gaps).
    const phases = async () => new Map((await out(['get', 'pods', '-l', 'job-name=example-job', '-o', 'jsonpath={range .items[*]}{.metadata.name}={.status.phase} {end}']))
      .trim().split(' ').filter(Boolean).map((kv) => kv.split('=') as [string, string]));
    const stuckOn = async (pod: string) => /Failed to ping pod example-job-(\d)\.headless-svc, retrying in 1 second\.\.\.\n$/.exec(await out(['logs', pod]))?.[1];
    const settled = async () => {
      const now = await phases();
      if (now.size !== 3) return false;
      for (const [pod, phase] of now) {
        if (phase === 'Succeeded') continue;
        const peer = await stuckOn(pod);
        const peerPhase = [...now].find(([name]) => name.startsWith(`example-job-${peer}-`))?.[1];
        if (peerPhase !== 'Succeeded') return false;
      }
      return true;
    };
    await eventually(settled, 120_000, 'the Job\'s pods done', () => out(['describe', 'job', 'example-job']));
    const pods = await podNames('job-name=example-job');
    assert.equal(pods.length, 3);
    const done = [...(await phases())].filter(([, phase]) => phase === 'Succeeded').map(([name]) => name);
    if (done.length === 3) {
      await eventually(async () => /^example-job\s+Complete\s+3\/3\s/m.test(await out(['get', 'job', 'example-job'])), 120_000, 'the Job Complete');
      assert.match(await out(['get', 'job', 'example-job']), /^NAME\s+STATUS\s+COMPLETIONS\s+DURATION\s+AGE\nexample-job\s+Complete\s+3\/3\s+\S+\s+\S+\n$/);
    }
    for (const [i, pod] of pods.entries()) {
      assert.match(pod, new RegExp(`^example-job-${i}-[a-z0-9]{5}$`));
      assert.equal(await out(['get', 'pod', pod, '-o', 'jsonpath={.spec.hostname}.{.spec.subdomain}']), `example-job-${i}.headless-svc`);
      // The page: kubectl logs example-job-0-qws42 — tries before the others' records exist, then the three answers.
      const logs = await out(['logs', pod]);
      if (done.includes(pod)) {
        assert.match(logs, /^(Failed to ping pod example-job-[012]\.headless-svc, retrying in 1 second\.\.\.\n)*(Successfully pinged pod: example-job-0\.headless-svc\n)(Failed.*\n)*(Successfully pinged pod: example-job-1\.headless-svc\n)(Failed.*\n)*Successfully pinged pod: example-job-2\.headless-svc\n$/);
      } else {
        assert.match(logs, /^(Failed to ping pod example-job-[012]\.headless-svc, retrying in 1 second\.\.\.\n|Successfully pinged pod: example-job-[012]\.headless-svc\n)+$/);
      }
    }
    if (done.length < 3) await kubectl(['delete', 'job', 'example-job', '--wait=false']);
    // What ping prints in the page's image (busybox's, on Alpine): a running pod by hostname answers; a finished one has no record.
    await kubectl(['run', 'pinger', '--image=bash:latest', '--restart=Never', '--', 'sleep', 'infinity']);
    await eventually(async () => /^pinger\s+1\/1\s+Running\s/m.test(await out(['get', 'pod', 'pinger'])), 120_000, 'pinger Running');
    const ip = await out(['get', 'pod', 'pinger', '-o', 'jsonpath={.status.podIP}']);
    assert.equal(await out(['exec', 'pinger', '--', 'ping', '-c', '2', ip]),
      `PING ${ip} (${ip}): 56 data bytes\n64 bytes from ${ip}: seq=0 ttl=64 time=0.080 ms\n64 bytes from ${ip}: seq=1 ttl=64 time=0.080 ms\n\n`
      + `--- ${ip} ping statistics ---\n2 packets transmitted, 2 packets received, 0% packet loss\nround-trip min/avg/max = 0.080/0.080/0.080 ms\n`);
    const finished = `example-job-${/^example-job-(\d)-/.exec(done[0]!)![1]}.headless-svc`;
    const gone = await kubectl(['exec', 'pinger', '--', 'ping', '-c', '1', finished], undefined, true);
    assert.equal(gone.stderr, `ping: bad address '${finished}'\ncommand terminated with exit code 1\n`);
    await kubectl(['delete', 'pod', 'pinger', '--wait=false']);
  });

  it('Explore Termination Behavior for Pods And Their Endpoints: the deleted pod\'s endpoint stays serving and terminating, not ready, beside its replacement\'s', async () => {
    assert.equal(await out(['apply', '-f', file('pod-with-graceful-termination.yaml', m.podWithGracefulTermination)]), 'deployment.apps/nginx-deployment created\nservice/nginx-service created\n');
    const slices = async () => JSON.parse(await out(['get', 'endpointslices', '-o', 'json', '-l', 'kubernetes.io/service-name=nginx-service'])) as { items: EndpointSlice[] };
    const conditions = async () => (await slices()).items.flatMap((s) => s.endpoints ?? []).map((e) => ({ pod: e.targetRef?.name, ...e.conditions }));
    await eventually(async () => (await conditions()).some((c) => c.ready), 120_000, 'nginx-service\'s endpoint');
    const [first] = await podNames('app=nginx');
    assert.match(await out(['get', 'endpointslice']), /^NAME\s+ADDRESSTYPE\s+PORTS\s+ENDPOINTS\s+AGE\n(?:.*\n)*nginx-service-[a-z0-9]{5}\s+IPv4\s+80\s+10\.244\.\d+\.\d+\s+\S+\n/);
    assert.deepEqual(await conditions(), [{ pod: first, ready: true, serving: true, terminating: false }]);
    const slice = (await slices()).items[0]!;
    assert.equal(slice.addressType, 'IPv4');
    assert.equal(slice.endpoints![0]!.targetRef!.kind, 'Pod');

    // The preStop hook sleeps 180 s and the grace period is 120 s: the pod stays Terminating, still ready to serve.
    assert.equal(await out(['delete', 'pod', first!, '--wait=false']), `pod "${first}" deleted\n`);
    await eventually(async () => (await podNames('app=nginx')).length === 2 && (await conditions()).length === 2, 120_000, 'the replacement\'s endpoint');
    const table = await out(['get', 'pods', '-l', 'app=nginx']);
    assert.match(table, new RegExp(`^${first}\\s+1/1\\s+Terminating\\s+0\\s`, 'm'));
    assert.match(table, /^nginx-deployment-[a-z0-9]+-[a-z0-9]{5}\s+1\/1\s+Running\s+0\s/m);
    const name = slice.metadata!.name!;
    await eventually(async () => (await conditions()).every((c) => c.pod === first || c.ready), 120_000, 'the replacement ready');
    const both = JSON.parse(await out(['get', 'endpointslice', '-o', 'json', name])) as EndpointSlice;
    const [old, fresh] = [both.endpoints!.find((e) => e.targetRef!.name === first)!, both.endpoints!.find((e) => e.targetRef!.name !== first)!];
    assert.deepEqual(old.conditions, { ready: false, serving: true, terminating: true });
    assert.deepEqual(fresh.conditions, { ready: true, serving: true, terminating: false });
    assert.equal(old.nodeName, await out(['get', 'pod', first!, '-o', 'jsonpath={.spec.nodeName}']));
    // "When Pod is deleted, the old endpoint will also be deleted" (not waiting out the 120 s here: a forced delete).
    await kubectl(['delete', 'pod', first!, '--grace-period=0', '--force'], undefined, true);
    await eventually(async () => { const c = await conditions(); return c.length === 1 && c[0]!.pod !== first; }, 120_000, 'the old endpoint gone');
    await kubectl(['delete', '-f', file('pod-with-graceful-termination.yaml', m.podWithGracefulTermination), '--wait=false']);
  });

  it('ReplicaSet: get and describe, the owner reference, bare pods acquired (and deleted, or kept when first), isolating a pod, the HPA on it, an orphaning delete', async () => {
    const frontend = file('frontend.yaml', m.frontendReplicaSet);
    const podRs = file('pod-rs.yaml', m.podRs);
    assert.equal(await out(['apply', '-f', frontend]), 'replicaset.apps/frontend created\n');
    await eventually(async () => /^frontend\s+3\s+3\s+3\s/m.test(await out(['get', 'rs'])), 120_000, 'frontend 3 ready');
    assert.match(await out(['get', 'rs']), /^NAME\s+DESIRED\s+CURRENT\s+READY\s+AGE\nfrontend\s+3\s+3\s+3\s+\S+\n$/);
    const described = await out(['describe', 'rs/frontend']);
    assert.match(described, /^Name:\s+frontend\nNamespace:\s+default\nSelector:\s+tier=frontend\nLabels:\s+app=guestbook\n\s+tier=frontend\n/);
    assert.match(described, /^Replicas:\s+3 current \/ 3 desired\nPods Status:\s+3 Running \/ 0 Waiting \/ 0 Succeeded \/ 0 Failed\nPod Template:\n {2}Labels:\s+tier=frontend\n {2}Containers:\n {3}php-redis:\n {4}Image:\s+us-docker\.pkg\.dev\/google-samples\/containers\/gke\/gb-frontend:v5\n/m);
    assert.equal(described.match(/^ {2}Normal {2}SuccessfulCreate {2}\S+\s+replicaset-controller {2}Created pod: frontend-[a-z0-9]{5}$/gm)?.length, 3);
    const created = await podNames('tier=frontend');
    assert.equal(created.length, 3);
    const owner = JSON.parse(await out(['get', 'pods', created[0]!, '-o', 'jsonpath={.metadata.ownerReferences}'])) as { uid: string }[];
    assert.deepEqual({ ...owner[0], uid: undefined }, { apiVersion: 'apps/v1', blockOwnerDeletion: true, controller: true, kind: 'ReplicaSet', name: 'frontend', uid: undefined });
    assert.equal(owner[0]!.uid, await out(['get', 'rs', 'frontend', '-o', 'jsonpath={.metadata.uid}']));

    // Bare pods matching the selector are acquired, and deleted as the ReplicaSet is over its count.
    assert.equal(await out(['apply', '-f', podRs]), 'pod/pod1 created\npod/pod2 created\n');
    const deletedPods = async () => [...(await out(['get', 'events', '--field-selector', 'involvedObject.name=frontend,reason=SuccessfulDelete', '-o', 'jsonpath={range .items[*]}{.message}{"\\n"}{end}']))
      .matchAll(/^Deleted pod: (\S+)$/gm)].map((x) => x[1]!).sort();
    await eventually(async () => (await deletedPods()).length === 2 && (await podNames('tier=frontend')).length === 3, 120_000, 'two pods deleted, three kept');
    const kept = await podNames('tier=frontend');
    if (!kept.includes('pod1') && !kept.includes('pod2')) {
      // The page: the bare pods, adopted while still pending, are the ones deleted.
      assert.deepEqual(kept, created);
      assert.deepEqual(await deletedPods(), ['pod1', 'pod2']);
    } else {
      // On a loaded machine the bare pods may be Running and Ready (up's start delay is 0.5 s) before the controller
      // adopts them: upstream's ranking then deletes from the node with more of its pods first, whichever those are.
      assert.deepEqual([...kept, ...(await deletedPods())].sort(), [...created, 'pod1', 'pod2'].sort());
    }

    // Created first, they are kept: the ReplicaSet makes only the third.
    await kubectl(['delete', 'rs', 'frontend']);
    await eventually(async () => (await podNames('tier=frontend')).length === 0, 120_000, 'frontend\'s pods deleted');
    assert.equal(await out(['apply', '-f', podRs]), 'pod/pod1 created\npod/pod2 created\n');
    await eventually(async () => /^pod2\s+1\/1\s+Running/m.test(await out(['get', 'pods'])), 120_000, 'pod2 Running');
    assert.equal(await out(['apply', '-f', frontend]), 'replicaset.apps/frontend created\n');
    await eventually(async () => /^frontend\s+3\s+3\s+3\s/m.test(await out(['get', 'rs', 'frontend'])), 120_000, 'frontend 3 ready');
    const mixed = await podNames('tier=frontend');
    assert.equal(mixed.length, 3);
    assert.deepEqual(mixed.slice(1), ['pod1', 'pod2']);
    assert.match(mixed[0]!, /^frontend-[a-z0-9]{5}$/);
    assert.equal(await out(['get', 'pod', 'pod1', '-o', 'jsonpath={.metadata.ownerReferences[0].name}']), 'frontend');

    // Isolating a pod: relabelled, it is released and replaced.
    assert.equal(await out(['label', 'pod', 'pod1', 'tier=debug', '--overwrite']), 'pod/pod1 labeled\n');
    await eventually(async () => (await podNames('tier=frontend')).length === 3 && (await out(['get', 'pod', 'pod1', '-o', 'jsonpath={.metadata.ownerReferences}'])) === '', 120_000, 'pod1 released and replaced');

    // The HPA on the ReplicaSet (hpa-rs.yaml), then kubectl autoscale: the pods without a cpu request leave it without a metric.
    assert.equal(await out(['apply', '-f', file('hpa-rs.yaml', m.hpaRs)]), 'horizontalpodautoscaler.autoscaling/frontend-scaler created\n');
    assert.match(await out(['get', 'hpa']), /^NAME\s+REFERENCE\s+TARGETS\s+MINPODS\s+MAXPODS\s+REPLICAS\s+AGE\nfrontend-scaler\s+ReplicaSet\/frontend\s+cpu: <unknown>\/50%\s+3\s+10\s+\d+\s+\S+\n$/);
    await kubectl(['delete', 'hpa', 'frontend-scaler']);
    assert.equal(await out(['autoscale', 'rs', 'frontend', '--max=10', '--min=3', '--cpu-percent=50']), 'horizontalpodautoscaler.autoscaling/frontend autoscaled\n');
    await eventually(async () => /missing request for cpu in container hello2 of Pod pod2/.test(await out(['describe', 'hpa', 'frontend'])), 120_000, 'the HPA\'s FailedGetResourceMetric');
    await kubectl(['delete', 'hpa', 'frontend']);

    // Deleting just the ReplicaSet orphans its pods; a new one with the same selector adopts them.
    assert.equal(await out(['delete', 'rs', 'frontend', '--cascade=orphan']), 'replicaset.apps "frontend" deleted\n');
    const orphans = await podNames('tier=frontend');
    await eventually(async () => (await out(['get', 'pods', '-l', 'tier=frontend', '-o', 'jsonpath={.items[*].metadata.ownerReferences}'])) === '', 120_000, 'the pods orphaned');
    assert.equal(await out(['apply', '-f', frontend]), 'replicaset.apps/frontend created\n');
    await eventually(async () => (await out(['get', 'pods', '-l', 'tier=frontend', '-o', 'jsonpath={.items[*].metadata.ownerReferences[0].name}'])) === 'frontend frontend frontend', 120_000, 'the pods adopted');
    assert.deepEqual(await podNames('tier=frontend'), orphans);
    await kubectl(['delete', 'rs', 'frontend', '--wait=false']);
    await kubectl(['delete', 'pod', 'pod1', '--wait=false']);
  });

  it('Resize CPU and Memory Resources on 1.32\'s defaults (InPlacePodVerticalScaling off): no resize subresource, resources immutable, resizePolicy dropped', async () => {
    assert.equal(await out(['create', 'namespace', 'qos-example']), 'namespace/qos-example created\n');
    assert.equal(await out(['create', '-f', file('qos-pod-5.yaml', m.qosPod5)]), 'pod/qos-demo-5 created\n');
    assert.equal(await out(['get', 'pod', 'qos-demo-5', '-n', 'qos-example', '-o', 'jsonpath={.status.qosClass}']), 'Guaranteed');
    const patch = '{"spec":{"containers":[{"name":"qos-demo-ctr-5", "resources":{"requests":{"cpu":"800m"}, "limits":{"cpu":"800m"}}}]}}';
    const resize = await kubectl(['-n', 'qos-example', 'patch', 'pod', 'qos-demo-5', '--subresource', 'resize', '--patch', patch], undefined, true);
    assert.equal(resize.code, 1);
    assert.equal(resize.stderr, 'Error from server (NotFound): the server could not find the requested resource\n');
    const direct = await kubectl(['-n', 'qos-example', 'patch', 'pod', 'qos-demo-5', '--patch', patch], undefined, true);
    assert.equal(direct.code, 1);
    assert.match(direct.stderr, /^The Pod "qos-demo-5" is invalid: spec: Forbidden: pod updates may not change fields other than `spec\.containers\[\*\]\.image`,`spec\.initContainers\[\*\]\.image`,`spec\.activeDeadlineSeconds`,`spec\.tolerations` \(only additions to existing tolerations\),`spec\.terminationGracePeriodSeconds` \(allow it to be set to 1 if it was previously negative\)\n/);
    assert.equal(await out(['get', 'pod', 'qos-demo-5', '-n', 'qos-example', '-o', 'jsonpath={.spec.containers[0].resources.limits.cpu}/{.status.containerStatuses[0].allocatedResources}/{.status.resize}']), '700m//');
    // The page's resizePolicy: dropped, from a pod and from a Deployment's template alike.
    const policy = '    resizePolicy:\n    - resourceName: cpu\n      restartPolicy: NotRequired\n    - resourceName: memory\n      restartPolicy: RestartContainer\n';
    assert.equal(await out(['create', '-f', '-'], m.qosPod5.replace('qos-demo-5', 'qos-demo-6').replace('    image: nginx\n', `    image: nginx\n${policy}`)), 'pod/qos-demo-6 created\n');
    assert.equal(await out(['get', 'pod', 'qos-demo-6', '-n', 'qos-example', '-o', 'jsonpath={.spec.containers[0].resizePolicy}']), '');
    await kubectl(['create', 'deployment', 'resized', '-n', 'qos-example', '--image=nginx']);
    await kubectl(['patch', 'deployment', 'resized', '-n', 'qos-example', '--type=json', '-p', '[{"op":"add","path":"/spec/template/spec/containers/0/resizePolicy","value":[{"resourceName":"cpu","restartPolicy":"NotRequired"}]}]']);
    assert.equal(await out(['get', 'deployment', 'resized', '-n', 'qos-example', '-o', 'jsonpath={.spec.template.spec.containers[0].resizePolicy}/{.metadata.generation}']), '/1');
    await kubectl(['delete', 'namespace', 'qos-example', '--wait=false']);
  });
});
