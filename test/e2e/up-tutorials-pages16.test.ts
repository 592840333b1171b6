/**
 * More kubernetes.io pages, command by command with the real kubectl 1.32 on
 * `npm start`'s simulated nodes, where k8ts once answered unlike upstream:
 *  - Change the Access Mode of a PersistentVolume to ReadWriteOncePod: the
 *    cat-pictures-writer Deployment's three pods on a local-path claim
 *    (WaitForFirstConsumer) landed on both workers, though its volume was
 *    provisioned on one of them with node affinity to it: the second pod was
 *    scheduled before the claim's selected-node annotation came back through
 *    the informer. Upstream's Reserve assumes the claim at once (AssumeCache);
 *    now k8ts's does, and all three run on the volume's node. And once the
 *    volume and the claim were ReadWriteOncePod, all three pods still ran:
 *    there was no VolumeRestrictions plugin; now one runs and the others stay
 *    Pending with upstream's FailedScheduling message ("... node has pod using
 *    PersistentVolumeClaim with the same name and ReadWriteOncePod access
 *    mode. preemption: ...").
 *  - Using sysctls in a Kubernetes Cluster: the page's pod, with the unsafe
 *    net.core.somaxconn and kernel.msgmax on a node that allows none, ran;
 *    the kubelet had no sysctl allowlist. Now the node rejects it as
 *    upstream's: STATUS SysctlForbidden, phase Failed, `Pod was rejected:
 *    forbidden sysctl: "net.core.somaxconn" not allowlisted` and the
 *    kubelet's Warning event; a pod setting safe sysctls only runs.
 *  - Versions in CustomResourceDefinitions, Version deprecation: requests to
 *    the deprecated v1alpha1 and v1beta1 got no Warning header (the catalogue
 *    knew each version's warning, nothing sent it); now every request to such
 *    a version carries it, and kubectl prints `Warning: example.com/v1alpha1
 *    CronTab is deprecated; see ...` and `Warning: example.com/v1beta1 CronTab
 *    is deprecated`.
 * Walked and answering as upstream already, checked here so they stay so:
 * the rest of that page (Retain, Released, the cleared claimRef uid making
 * the volume Available, ReadWriteOncePod refused beside another mode, the
 * pre-bound claim), Running Pods on Only Some Nodes (a DaemonSet following
 * `ssd=true` on and off the nodes), Imperative Management of Kubernetes
 * Objects Using Configuration Files (create, get, replace and delete -f, the
 * exported object replaced, AlreadyExists, NotFound, the immutable selector),
 * Configure Multiple Schedulers (a pod for a scheduler that is not running
 * stays Pending without events) and Troubleshooting Clusters (get nodes,
 * cluster-info dump's sections and logs, a node's yaml).
 *  - Assign Pod-level CPU and Memory Resources and Use an Image Volume with a
 *    Pod: k8ts's schema (kubernetes-types 1.30) had neither `spec.resources`
 *    nor `volumes[].image`, so strict decoding refused the pages' pods as
 *    unknown fields. 1.32's schema has both, and with their gates off
 *    (PodLevelResources, ImageVolume) its API server drops them: the first pod
 *    is created without pod-level resources, the second is refused with
 *    `spec.volumes[0]: Required value: must specify a volume type` (its only
 *    volume source gone); now the same, and `kubectl explain` shows both.
 * Not as upstream, too big for this walk: Customizing DNS
 * Service: `kubectl -n kube-system get configmap coredns -o yaml` is NotFound
 * (k8ts's DNS answers from informers and reads no Corefile, so the page's
 * stub domains and upstream nameservers have nowhere to go). Using sysctls'
 * "Enabling Unsafe Sysctls" (`k8ts up --allowed-unsafe-sysctls`) is walked in
 * up-unsafe-sysctls.test.ts.
 * Every wait polls a condition with a generous deadline; nothing is timed.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { PersistentVolume, Pod } from 'kubernetes-types/core/v1.js';
import { eventually } from './harness.js';
import { startUp, type UpCluster } from './up-cluster.js';
import * as m from './up-tutorials-pages16-manifests.js';

describe('k8ts up: the ReadWriteOncePod, Only Some Nodes, Imperative Configuration, Multiple Schedulers, sysctls, CRD versions and Troubleshooting Clusters pages on simulated nodes', () => {
  let up: UpCluster;
  let workers: string[];
  const kubectl = (args: string[], input?: string, allowFail = false) => up.kubectl(args, input, allowFail);
  const out = async (args: string[], input?: string) => (await kubectl(args, input)).stdout;
  const file = (name: string, text: string) => { const path = join(up.dir, name); writeFileSync(path, text); return path; };
  const podsOf = async (selector: string) => (JSON.parse(await out(['get', 'pods', '-l', selector, '-o', 'json'])) as { items: Pod[] }).items;

  before(async () => {
    up = await startUp('k8ts-e2e-tut-pages16-');
    workers = (await out(['get', 'nodes', '-o', 'name'])).split('\n').filter((n) => n.startsWith('node/worker')).map((n) => n.slice('node/'.length)).sort();
  });
  after(async () => { await up?.close(); });

  it('ReadWriteOncePod: the writers follow their volume to its node, then one pod holds the ReadWriteOncePod claim and the others wait', async () => {
    assert.equal(await out(['apply', '-f', file('cat-pictures-pvc.yaml', m.catPicturesPvc)]), 'persistentvolumeclaim/cat-pictures-pvc created\n');
    const writer = file('cat-pictures-writer-deployment.yaml', m.catPicturesWriter);
    assert.equal(await out(['apply', '-f', writer]), 'deployment.apps/cat-pictures-writer created\n');
    assert.match(await out(['rollout', 'status', 'deployment/cat-pictures-writer', '--timeout=5m']), /successfully rolled out/);
    const pv = await out(['get', 'pvc', 'cat-pictures-pvc', '-o', 'jsonpath={.spec.volumeName}']);
    assert.match(pv, /^pvc-[0-9a-f-]{36}$/);
    const volume = JSON.parse(await out(['get', 'pv', pv, '-o', 'json'])) as PersistentVolume;
    const home = volume.spec!.nodeAffinity!.required!.nodeSelectorTerms[0]!.matchExpressions![0]!.values![0]!;
    // All three on the node the volume was provisioned on (one pod once went to the other worker).
    assert.deepEqual((await podsOf('app=cat-pictures-writer')).map((p) => p.spec!.nodeName), [home, home, home]);

    assert.equal(await out(['patch', 'pv', pv, '-p', '{"spec":{"persistentVolumeReclaimPolicy":"Retain"}}']), `persistentvolume/${pv} patched\n`);
    assert.equal(await out(['scale', '--replicas=0', 'deployment', 'cat-pictures-writer']), 'deployment.apps/cat-pictures-writer scaled\n');
    assert.equal(await out(['delete', 'pvc', 'cat-pictures-pvc']), 'persistentvolumeclaim "cat-pictures-pvc" deleted\n');
    await eventually(async () => await out(['get', 'pv', pv, '-o', 'jsonpath={.status.phase}']) === 'Released', 120_000, 'the volume Released');
    assert.equal(await out(['patch', 'pv', pv, '-p', '{"spec":{"claimRef":{"uid":""}}}']), `persistentvolume/${pv} patched\n`);
    await eventually(async () => await out(['get', 'pv', pv, '-o', 'jsonpath={.status.phase}']) === 'Available', 120_000, 'the volume Available');
    const mixed = await kubectl(['patch', 'pv', pv, '-p', '{"spec":{"accessModes":["ReadWriteOncePod","ReadWriteOnce"]}}'], undefined, true);
    assert.equal(mixed.code, 1);
    assert.equal(mixed.stderr, `The PersistentVolume "${pv}" is invalid: spec.accessModes: Forbidden: may not use ReadWriteOncePod with other access modes\n`);
    assert.equal(await out(['patch', 'pv', pv, '-p', '{"spec":{"accessModes":["ReadWriteOncePod"]}}']), `persistentvolume/${pv} patched\n`);

    assert.equal(await out(['apply', '-f', file('cat-pictures-pvc.yaml', m.catPicturesPvcRwop(pv))]), 'persistentvolumeclaim/cat-pictures-pvc created\n');
    assert.equal(await out(['apply', '-f', writer]), 'deployment.apps/cat-pictures-writer configured\n');
    const bound = new RegExp(`^NAME\\s+STATUS\\s+VOLUME\\s+CAPACITY\\s+ACCESS MODES\\s+STORAGECLASS\\s+VOLUMEATTRIBUTESCLASS\\s+AGE\\ncat-pictures-pvc\\s+Bound\\s+${pv}\\s+1Gi\\s+RWOP\\s+local-path\\s+<unset>\\s+\\S+\\n$`);
    await eventually(async () => bound.test(await out(['get', 'pvc', 'cat-pictures-pvc'])), 120_000, 'the claim bound again, RWOP');
    const waiting = '0/3 nodes are available: 1 node(s) had untolerated taint {node-role.kubernetes.io/control-plane: }, '
      + '2 node has pod using PersistentVolumeClaim with the same name and ReadWriteOncePod access mode. '
      + 'preemption: 0/3 nodes are available: 1 Preemption is not helpful for scheduling, 2 No preemption victims found for incoming pod.';
    const pending = await eventually(async () => {
      const pods = await podsOf('app=cat-pictures-writer');
      const running = pods.filter((p) => p.status?.phase === 'Running');
      const stuck = pods.filter((p) => p.status?.phase === 'Pending' && !p.spec?.nodeName
        && p.status?.conditions?.some((c) => c.type === 'PodScheduled' && c.reason === 'Unschedulable' && c.message === waiting));
      return pods.length === 3 && running.length === 1 && stuck.length === 2 ? { running, stuck } : undefined;
    }, 180_000, 'one writer running, two waiting for the claim', async () => out(['get', 'pods', '-o', 'wide']));
    assert.equal(pending.running[0]!.spec!.nodeName, home);
    const described = await eventually(async () => {
      const d = await out(['describe', 'pod', pending.stuck[0]!.metadata!.name!]);
      return d.includes(waiting) ? d : undefined;
    }, 120_000, 'the FailedScheduling event');
    assert.match(described, /\n {2}Warning {2}FailedScheduling {2}.* {2}default-scheduler {2}0\/3 nodes are available: /);
    assert.equal(await out(['patch', 'pv', pv, '-p', '{"spec":{"persistentVolumeReclaimPolicy":"Delete"}}']), `persistentvolume/${pv} patched\n`);
    await kubectl(['delete', 'deployment', 'cat-pictures-writer']);
    await kubectl(['delete', 'pvc', 'cat-pictures-pvc', '--wait=false']);
  });

  it('Running Pods on Only Some Nodes: the DaemonSet follows ssd=true on and off the nodes', async () => {
    const [first, second] = workers as [string, string];
    assert.equal(await out(['label', 'nodes', first, 'ssd=true']), `node/${first} labeled\n`);
    assert.equal(await out(['apply', '-f', file('daemonset-label-selector.yaml', m.daemonsetLabelSelector)]), 'daemonset.apps/nginx-ssd created\n');
    const onNodes = async (want: string[]) => eventually(async () => {
      const pods = (await podsOf('app=web-server')).filter((p) => p.status?.phase === 'Running' && !p.metadata?.deletionTimestamp);
      const nodes = pods.map((p) => p.spec!.nodeName!).sort();
      return nodes.join() === want.join() ? pods : undefined;
    }, 120_000, `nginx-ssd running on ${want.join(', ') || 'no node'}`, async () => out(['get', 'pods', '-o', 'wide']));
    await onNodes([first]);
    assert.equal(await out(['label', 'nodes', second, 'ssd=true']), `node/${second} labeled\n`);
    await onNodes([first, second]);
    const wide = (await out(['get', 'pods', '-o', 'wide', '-l', 'app=web-server'])).split('\n');
    assert.match(wide[0]!, /^NAME\s+READY\s+STATUS\s+RESTARTS\s+AGE\s+IP\s+NODE\s+NOMINATED NODE\s+READINESS GATES$/);
    assert.equal(wide.filter((l) => new RegExp(`^nginx-ssd-[a-z0-9]{5}\\s+1/1\\s+Running\\s+0\\s+\\S+\\s+[0-9.]+\\s+(${first}|${second})\\s`).test(l)).length, 2);
    assert.match(await out(['get', 'daemonset', 'nginx-ssd']), /\nnginx-ssd\s+2\s+2\s+2\s+2\s+2\s+ssd=true\s+\S+\n$/);
    assert.equal(await out(['label', 'nodes', first, 'ssd-']), `node/${first} unlabeled\n`);
    await onNodes([second]);
    await kubectl(['delete', 'daemonset', 'nginx-ssd']);
    await kubectl(['label', 'nodes', second, 'ssd-']);
  });

  it('Imperative Management Using Configuration Files: create, get, replace and delete -f, the exported object replaced, the immutable selector', async () => {
    const path = file('nginx.yaml', m.nginxDeployment);
    assert.equal(await out(['create', '-f', path]), 'deployment.apps/nginx-deployment created\n');
    const again = await kubectl(['create', '-f', path], undefined, true);
    assert.equal(again.code, 1);
    assert.equal(again.stderr, `Error from server (AlreadyExists): error when creating "${path}": deployments.apps "nginx-deployment" already exists\n`);
    await kubectl(['rollout', 'status', '-f', path, '--timeout=5m']);
    assert.match(await out(['get', '-f', path]), /^NAME\s+READY\s+UP-TO-DATE\s+AVAILABLE\s+AGE\nnginx-deployment\s+2\/2\s+2\s+2\s+\S+\n$/);
    assert.match(await out(['get', '-f', path, '-o', 'yaml']), /^apiVersion: apps\/v1\nkind: Deployment\nmetadata:\n {2}annotations:\n {4}deployment\.kubernetes\.io\/revision: "1"\n/);
    // kubectl get <kind>/<name> -o yaml > <kind>_<name>.yaml, the status removed by hand, then replace -f.
    // The export carries its resourceVersion: a controller's write in between is a conflict, as upstream's; export again.
    await eventually(async () => {
      const exported = await out(['get', 'deployment/nginx-deployment', '-o', 'yaml']);
      const r = await kubectl(['replace', '-f', file('deployment_nginx-deployment.yaml', exported.slice(0, exported.indexOf('\nstatus:') + 1))], undefined, true);
      if (r.code !== 0) {
        assert.match(r.stderr, /the object has been modified; please apply your changes to the latest version and try again/);
        return undefined;
      }
      assert.equal(r.stdout, 'deployment.apps/nginx-deployment replaced\n');
      return true;
    }, 120_000, 'the exported deployment replaced');
    assert.equal(await out(['replace', '-f', path]), 'deployment.apps/nginx-deployment replaced\n');
    const moved = await kubectl(['replace', '-f', file('nginx2.yaml', m.nginxDeployment.replaceAll('app: nginx', 'app: nginx2'))], undefined, true);
    assert.equal(moved.code, 1);
    assert.equal(moved.stderr, 'The Deployment "nginx-deployment" is invalid: spec.selector: Invalid value: '
      + 'v1.LabelSelector{MatchLabels:map[string]string{"app":"nginx2"}, MatchExpressions:[]v1.LabelSelectorRequirement(nil)}: field is immutable\n');
    assert.equal(await out(['delete', '-f', path]), 'deployment.apps "nginx-deployment" deleted\n');
    const gone = await kubectl(['delete', '-f', path], undefined, true);
    assert.equal(gone.code, 1);
    assert.equal(gone.stderr, `Error from server (NotFound): error when deleting "${path}": deployments.apps "nginx-deployment" not found\n`);
  });

  it('Configure Multiple Schedulers: the default scheduler places pod1 and pod2; pod3, for my-scheduler, stays Pending with no events', async () => {
    assert.equal(await out(['create', '-f', file('pod1.yaml', m.pod1)]), 'pod/no-annotation created\n');
    assert.equal(await out(['create', '-f', file('pod2.yaml', m.pod2)]), 'pod/annotation-default-scheduler created\n');
    assert.equal(await out(['create', '-f', file('pod3.yaml', m.pod3)]), 'pod/annotation-second-scheduler created\n');
    await kubectl(['wait', '--for=condition=Ready', 'pod/no-annotation', 'pod/annotation-default-scheduler', '--timeout=120s']);
    for (const name of ['no-annotation', 'annotation-default-scheduler']) {
      const events = await out(['get', 'events', '--field-selector', `involvedObject.name=${name},reason=Scheduled`, '-o', 'jsonpath={.items[*].source.component}']);
      assert.equal(events, 'default-scheduler');
    }
    const third = await out(['get', 'pod', 'annotation-second-scheduler']);
    assert.match(third, /\nannotation-second-scheduler\s+0\/1\s+Pending\s+0\s+\S+\n$/);
    assert.match(await out(['describe', 'pod', 'annotation-second-scheduler']), /\nNode:\s+<none>\n[\s\S]*\nEvents:\s+<none>\n$/);
    await kubectl(['delete', 'pod', 'no-annotation', 'annotation-default-scheduler', 'annotation-second-scheduler', '--wait=false']);
  });

  it('Using sysctls: the page\'s pod with unsafe sysctls is rejected by the node (SysctlForbidden); safe ones run', async () => {
    assert.equal(await out(['apply', '-f', file('sysctl-example.yaml', m.sysctlExample)]), 'pod/sysctl-example created\n');
    assert.equal(await out(['apply', '-f', file('sysctl-safe.yaml', m.sysctlSafe)]), 'pod/sysctl-safe created\n');
    await eventually(async () => /\nsysctl-example\s+0\/1\s+SysctlForbidden\s+0\s+\S+\n/.test(await out(['get', 'pods'])), 120_000, 'sysctl-example rejected');
    const described = await eventually(async () => {
      const d = await out(['describe', 'pod', 'sysctl-example']);
      return /Warning {2}SysctlForbidden/.test(d) ? d : undefined;
    }, 120_000, 'the kubelet\'s SysctlForbidden event');
    assert.match(described, /\nStatus: {11}Failed\nReason: {11}SysctlForbidden\nMessage: {10}Pod was rejected: forbidden sysctl: "net\.core\.somaxconn" not allowlisted\n/);
    assert.match(described, /\n {2}Warning {2}SysctlForbidden {2}\S+ +kubelet {12}forbidden sysctl: "net\.core\.somaxconn" not allowlisted\n/);
    await kubectl(['wait', '--for=condition=Ready', 'pod/sysctl-safe', '--timeout=120s']);
    await kubectl(['delete', 'pod', 'sysctl-example', 'sysctl-safe', '--wait=false']);
  });

  it('Versions in CustomResourceDefinitions: requests to a deprecated version warn, with the CRD\'s text or the default one', async () => {
    assert.equal(await out(['apply', '-f', file('crontabs.yaml', m.crontabsDeprecated)]), 'customresourcedefinition.apiextensions.k8s.io/crontabs.example.com created\n');
    await kubectl(['wait', '--for', 'condition=established', 'crd/crontabs.example.com', '--timeout=120s']);
    const created = await eventually(async () => {
      const r = await kubectl(['apply', '-f', file('my-crontab.yaml', m.crontabV1alpha1)], undefined, true);
      return r.code === 0 ? r : undefined;
    }, 120_000, 'the v1alpha1 CronTab created (its version served)');
    assert.equal(created.stdout, 'crontab.example.com/my-new-cron-object created\n');
    const alpha = 'Warning: example.com/v1alpha1 CronTab is deprecated; see http://example.com/v1alpha1-v1 for instructions to migrate to example.com/v1 CronTab\n';
    assert.equal(created.stderr, alpha);
    const preferred = await kubectl(['get', 'crontabs']);
    assert.match(preferred.stdout, /^NAME\s+AGE\nmy-new-cron-object\s+\S+\n$/);
    assert.equal(preferred.stderr, '');
    assert.equal((await kubectl(['get', 'crontabs.v1alpha1.example.com'])).stderr, alpha);
    const beta = await kubectl(['get', 'crontabs.v1beta1.example.com', 'my-new-cron-object', '-o', 'jsonpath={.apiVersion}']);
    assert.equal(beta.stdout, 'example.com/v1beta1');
    assert.equal(beta.stderr, 'Warning: example.com/v1beta1 CronTab is deprecated\n');
    assert.equal((await kubectl(['get', 'crontabs.v1.example.com'])).stderr, '');
    await kubectl(['delete', 'crd', 'crontabs.example.com']);
  });

  it('Pod-level resources and image volumes (1.32 gates off): the fields are known, then dropped as 1.32 drops them', async () => {
    await kubectl(['create', 'namespace', 'pod-resources-example']);
    assert.equal(await out(['apply', '-f', file('pod-level-resources.yaml', m.podLevelResources)]), 'pod/pod-resources-demo created\n');
    const stored = JSON.parse(await out(['get', 'pod', '-n', 'pod-resources-example', 'pod-resources-demo', '-o', 'json'])) as Pod;
    assert.equal('resources' in stored.spec!, false);
    assert.deepEqual(stored.spec!.containers[0]!.resources, { limits: { cpu: '500m', memory: '100Mi' }, requests: { cpu: '500m', memory: '50Mi' } });
    const refused = await kubectl(['apply', '-f', file('image-volumes.yaml', m.imageVolumePod)], undefined, true);
    assert.equal(refused.code, 1);
    assert.equal(refused.stderr, 'The Pod "image-volume" is invalid: \n* spec.volumes[0]: Required value: must specify a volume type\n'
      + '* spec.containers[0].volumeMounts[0].name: Not found: "volume"\n');
    assert.match(await out(['explain', 'pod.spec.resources']), /^KIND: {7}Pod\nVERSION: {4}v1\n\nFIELD: resources <ResourceRequirements>\n\n\nDESCRIPTION:\n {4}Resources is the total amount of CPU and Memory resources required by all\n/);
    assert.match(await out(['explain', 'pod.spec.volumes.image']), /\nFIELD: image <ImageVolumeSource>\n[\s\S]*\nFIELDS:\n {2}pullPolicy\t<string>\n[\s\S]*\n {2}reference\t<string>\n/);
    await kubectl(['delete', 'namespace', 'pod-resources-example', '--wait=false']);
  });

  it('Troubleshooting Clusters: every node Ready, cluster-info dump\'s objects and logs, a node\'s yaml', async () => {
    const nodes = (await out(['get', 'nodes'])).trim().split('\n');
    assert.match(nodes[0]!, /^NAME\s+STATUS\s+ROLES\s+AGE\s+VERSION$/);
    assert.equal(nodes.slice(1).filter((l) => /^\S+\s+Ready\s+\S+\s+\S+\s+v1\.32\.\d+$/.test(l)).length, nodes.length - 1);
    const dump = await out(['cluster-info', 'dump']);
    assert.match(dump, /^\{\n {4}"kind": "NodeList",\n {4}"apiVersion": "v1",/);
    for (const kind of ['EventList', 'ReplicationControllerList', 'ServiceList', 'DaemonSetList', 'DeploymentList', 'ReplicaSetList', 'PodList']) {
      // Once for kube-system and once for default.
      assert.equal(dump.split(`\n    "kind": "${kind}",\n`).length - 1, 2, kind);
    }
    assert.match(dump, /\n==== START logs for container coredns of pod kube-system\/coredns-[a-z0-9]+-[a-z0-9]{5} ====\n/);
    assert.match(dump, /\n==== END logs for container coredns of pod kube-system\/coredns-[a-z0-9]+-[a-z0-9]{5} ====\n/);
    const yaml = await out(['get', 'node', workers[0]!, '-o', 'yaml']);
    assert.match(yaml, /\n {2}daemonEndpoints:\n {4}kubeletEndpoint:\n {6}Port: \d+\n/);
    assert.match(yaml, /\n {4}message: kubelet is posting ready status\n {4}reason: KubeletReady\n {4}status: "True"\n {4}type: Ready\n/);
    assert.match(await out(['describe', 'node', workers[0]!]), /\nConditions:\n {2}Type {13}Status {2}LastHeartbeatTime {17}LastTransitionTime {16}Reason {23}Message\n/);
  });
});
