/**
 * More kubernetes.io pages, command by command with the real kubectl 1.32 on
 * `npm start`'s simulated nodes:
 *  - Deployments (the concept page's walk): create, rollout status, the
 *    ReplicaSet and its pod-template-hash, set image, the stuck
 *    `nginx:1.161`, rollout history with a change-cause, undo and
 *    --to-revision, scale, autoscale, proportional scaling, pause and
 *    resume with set resources, progressDeadlineSeconds. k8ts answered unlike
 *    upstream at proportional scaling: `nginx:sometag`, the page's "image
 *    which happens to be unresolvable", was pulled, so the rollout finished
 *    instead of holding the ReplicaSets at 5 and 8, then 7 and 11;
 *  - Run a Stateless Application Using a Deployment (describe, update,
 *    scale, delete; the examples' relabelled update refused for the
 *    immutable selector in upstream's words);
 *  - Declarative Management of Kubernetes Objects Using Configuration Files
 *    (diff of a new and a changed object, the last-applied annotation, a
 *    replicas count kept across apply, a field removed from the file
 *    cleared);
 *  - Imperative Management of Kubernetes Objects Using Configuration Files
 *    (create -f, replace -f, an exported object replaced);
 *  - Managing Kubernetes Objects Using Imperative Commands (create service
 *    --dry-run=client | set selector --local | create -f -, create --edit);
 *  - Expose Pod Information to Containers Through Environment Variables, the
 *    resourceFieldRef example;
 *  - StatefulSet Basics, Parallel Pod management: both pods, then both new
 *    ones, created before the first runs.
 * Every wait polls a condition with a generous deadline; nothing is timed.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFile, spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { eventually } from './harness.js';
import { killChild } from './helpers.js';
import { startUp, type UpCluster } from './up-cluster.js';
import * as m from './up-tutorials-pages10-manifests.js';

describe('k8ts up: the Deployments, stateless application, declarative and imperative object management, env resourceFieldRef and Parallel StatefulSet pages on simulated nodes', () => {
  let up: UpCluster;
  const kubectl = (args: string[], input?: string, allowFail = false) => up.kubectl(args, input, allowFail);
  const out = async (args: string[], input?: string) => (await kubectl(args, input)).stdout;
  const file = (name: string, text: string) => { const path = join(up.dir, name); writeFileSync(path, text); return path; };
  const rolledOut = async (name = 'nginx-deployment') => {
    assert.match(await out(['rollout', 'status', `deployment/${name}`]), new RegExp(`deployment "${name}" successfully rolled out\\n$`));
  };
  /** The Deployment's ReplicaSets as `image desired/current/ready`, sorted. */
  const replicaSets = async () => (await out(['get', 'rs', '-l', 'app=nginx', '-o',
    'jsonpath={range .items[*]}{.spec.template.spec.containers[0].image} {.spec.replicas}/{.status.replicas}/{.status.readyReplicas}{"\\n"}{end}']))
    .trim().split('\n').filter(Boolean).map((l) => l.replace(/\/$/, '/0')).sort();
  /** Waits for the ReplicaSets to read `expected` (replicaSets' form): their status follows their pods. */
  const replicaSetsAre = (expected: string[], ms = 120_000) => eventually(async () => (await replicaSets()).join(',') === expected.join(','),
    ms, `the ReplicaSets at ${expected.join(', ')}`, async () => (await replicaSets()).join(', '));
  /** A shell pipeline as the pages write it, with the cluster's kubeconfig. */
  const shell = (script: string, env: Record<string, string> = {}) => new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
    execFile('sh', ['-c', script], { env: { ...process.env, KUBECONFIG: up.kubeconfig, ...env }, timeout: 60_000 }, (err, stdout, stderr) => {
      resolve({ code: err ? (typeof err.code === 'number' ? err.code : 1) : 0, stdout, stderr });
    });
  });

  before(async () => {
    up = await startUp('k8ts-e2e-tut-pages10-');
  });
  after(async () => { await up?.close(); });

  it('Deployments: create, rollout status, the ReplicaSet\'s pod-template-hash, set image, the stuck nginx:1.161, history with a change-cause, undo', async () => {
    assert.equal(await out(['apply', '-f', file('nginx-deployment.yaml', m.controllersNginxDeployment)]), 'deployment.apps/nginx-deployment created\n');
    assert.match(await out(['get', 'deployments']), /^NAME\s+READY\s+UP-TO-DATE\s+AVAILABLE\s+AGE\nnginx-deployment\s+\d\/3\s+\d\s+\d\s+\S+\n$/);
    await rolledOut();
    assert.match(await out(['get', 'deployments']), /^NAME\s+READY\s+UP-TO-DATE\s+AVAILABLE\s+AGE\nnginx-deployment\s+3\/3\s+3\s+3\s+\S+\n$/);
    const rs = await out(['get', 'rs']);
    const first = /^NAME\s+DESIRED\s+CURRENT\s+READY\s+AGE\n(nginx-deployment-([a-z0-9]+))\s+3\s+3\s+3\s+\S+\n$/.exec(rs);
    assert.ok(first, rs);
    const [, firstRS, hash] = first;
    assert.equal(await out(['get', 'rs', firstRS, '-o', 'jsonpath={.metadata.labels.pod-template-hash}']), hash);
    const labels = (await out(['get', 'pods', '--show-labels'])).trim().split('\n').slice(1);
    assert.equal(labels.length, 3, labels.join('\n'));
    for (const l of labels) assert.match(l, new RegExp(`^${firstRS}-[a-z0-9]{5}\\s+1/1\\s+Running\\s+0\\s+\\S+\\s+app=nginx,pod-template-hash=${hash}$`));

    // Updating a Deployment.
    assert.equal(await out(['set', 'image', 'deployment.v1.apps/nginx-deployment', 'nginx=nginx:1.16.1']), 'deployment.apps/nginx-deployment image updated\n');
    await rolledOut();
    await replicaSetsAre(['nginx:1.14.2 0/0/0', 'nginx:1.16.1 3/3/3']);
    const described = await out(['describe', 'deployments']);
    assert.match(described, /^Annotations:\s+deployment\.kubernetes\.io\/revision: 2$/m);
    assert.match(described, /^RollingUpdateStrategy:\s+25% max unavailable, 25% max surge$/m);
    assert.match(described, /^\s+Progressing\s+True\s+NewReplicaSetAvailable$/m);
    assert.match(described, /^OldReplicaSets:\s+nginx-deployment-[a-z0-9]+ \(0\/0 replicas created\)$/m);
    const secondRS = /^NewReplicaSet:\s+(nginx-deployment-[a-z0-9]+) \(3\/3 replicas created\)$/m.exec(described)?.[1];
    assert.ok(secondRS, described);
    // maxSurge 25% of 3 is 1 and maxUnavailable 0: one new pod, then one old pod less, and so on.
    for (const event of [`Scaled up replica set ${firstRS} from 0 to 3`, `Scaled up replica set ${secondRS} from 0 to 1`,
      `Scaled down replica set ${firstRS} from 3 to 2`, `Scaled down replica set ${firstRS} from 1 to 0`]) {
      assert.match(described, new RegExp(`Normal\\s+ScalingReplicaSet\\s+\\S+\\s+deployment-controller\\s+${event.replace(/\./g, '\\.')}$`, 'm'), event);
    }

    // Rolling Back a Deployment: the typo's ReplicaSet gets one pod, which never pulls its image.
    assert.equal(await out(['set', 'image', 'deployment/nginx-deployment', 'nginx=nginx:1.161']), 'deployment.apps/nginx-deployment image updated\n');
    await eventually(async () => /\s0\/1\s+ImagePullBackOff\s/.test(await out(['get', 'pods'])), 120_000, 'the nginx:1.161 pod in ImagePullBackOff');
    await replicaSetsAre(['nginx:1.14.2 0/0/0', 'nginx:1.16.1 3/3/3', 'nginx:1.161 1/1/0']);
    assert.equal(await out(['rollout', 'status', 'deployment/nginx-deployment', '--watch=false']),
      'Waiting for deployment "nginx-deployment" rollout to finish: 1 out of 3 new replicas have been updated...\n');
    const stuck = await out(['describe', 'deployment']);
    assert.match(stuck, /^Replicas:\s+3 desired \| 1 updated \| 4 total \| 3 available \| 1 unavailable$/m);
    assert.match(stuck, /^\s+Image:\s+nginx:1\.161$/m);
    assert.match(stuck, /^\s+Progressing\s+True\s+ReplicaSetUpdated$/m);

    // Checking Rollout History of a Deployment.
    const history = async () => (await out(['rollout', 'history', 'deployment/nginx-deployment'])).split('\n').map((l) => l.trimEnd());
    assert.deepEqual(await history(), ['deployment.apps/nginx-deployment', 'REVISION  CHANGE-CAUSE', '1         <none>', '2         <none>', '3         <none>', '', '']);
    assert.equal(await out(['annotate', 'deployment/nginx-deployment', 'kubernetes.io/change-cause=image updated to 1.16.1']), 'deployment.apps/nginx-deployment annotated\n');
    // CHANGE-CAUSE is copied from the Deployment to its newest ReplicaSet.
    await eventually(async () => (await history()).includes('3         image updated to 1.16.1'), 60_000, 'the change-cause in revision 3');
    const revision2 = await out(['rollout', 'history', 'deployment/nginx-deployment', '--revision=2']);
    assert.match(revision2, /^deployment\.apps\/nginx-deployment with revision #2\nPod Template:\n {2}Labels:\tapp=nginx\n\tpod-template-hash=[a-z0-9]+\n/);
    assert.match(revision2, /^ {4}Image:\tnginx:1\.16\.1$/m);

    // Rolling Back to a Previous Revision: revision 2 comes back as revision 4.
    assert.equal(await out(['rollout', 'undo', 'deployment/nginx-deployment']), 'deployment.apps/nginx-deployment rolled back\n');
    await rolledOut();
    assert.match(await out(['get', 'deployment', 'nginx-deployment']), /^nginx-deployment\s+3\/3\s+3\s+3\s+\S+$/m);
    const back = await out(['describe', 'deployment', 'nginx-deployment']);
    assert.match(back, /^Annotations:\s+deployment\.kubernetes\.io\/revision: 4$/m);
    assert.match(back, /^\s+Image:\s+nginx:1\.16\.1$/m);
    assert.match(back, new RegExp(`^NewReplicaSet:\\s+${secondRS} \\(3/3 replicas created\\)$`, 'm'));
    assert.deepEqual((await history()).slice(2, 5), ['1         <none>', '3         image updated to 1.16.1', '4         <none>']);
    // The page's other form names revision 2, which is revision 4 now.
    const gone = await kubectl(['rollout', 'undo', 'deployment/nginx-deployment', '--to-revision=2'], undefined, true);
    assert.deepEqual([gone.code, gone.stderr], [1, 'error: unable to find specified revision 2 in history\n']);
  });

  it('Deployments: scale, autoscale, proportional scaling of a rollout to the unresolvable nginx:sometag (5 and 8, then 7 and 11), undo --to-revision', async () => {
    assert.equal(await out(['scale', 'deployment/nginx-deployment', '--replicas=10']), 'deployment.apps/nginx-deployment scaled\n');
    await rolledOut();
    assert.equal(await out(['autoscale', 'deployment/nginx-deployment', '--min=10', '--max=15', '--cpu-percent=80']),
      'horizontalpodautoscaler.autoscaling/nginx-deployment autoscaled\n');
    assert.equal(await out(['get', 'hpa', 'nginx-deployment', '-o', 'jsonpath={.spec.minReplicas} {.spec.maxReplicas} {.spec.metrics[0].resource.target.averageUtilization}']), '10 15 80');
    // The page's scaling by hand follows; an autoscaler would take it back to its own count.
    await kubectl(['delete', 'hpa', 'nginx-deployment']);

    // Proportional scaling: 10 replicas, maxSurge 3, maxUnavailable 2.
    assert.equal(await out(['patch', 'deployment/nginx-deployment', '-p', '{"spec":{"strategy":{"rollingUpdate":{"maxSurge":3,"maxUnavailable":2}}}}']),
      'deployment.apps/nginx-deployment patched\n');
    assert.equal(await out(['set', 'image', 'deployment/nginx-deployment', 'nginx=nginx:sometag']), 'deployment.apps/nginx-deployment image updated\n');
    // The new ReplicaSet's pods never pull their image, so the rollout stops at 13 pods, 8 of them available.
    await replicaSetsAre(['nginx:1.14.2 0/0/0', 'nginx:1.16.1 8/8/8', 'nginx:1.161 0/0/0', 'nginx:sometag 5/5/0']);
    assert.equal(await out(['scale', 'deployment/nginx-deployment', '--replicas=15']), 'deployment.apps/nginx-deployment scaled\n');
    // 5 more: 3 to the old ReplicaSet, 2 to the new one.
    await replicaSetsAre(['nginx:1.14.2 0/0/0', 'nginx:1.16.1 11/11/11', 'nginx:1.161 0/0/0', 'nginx:sometag 7/7/0']);
    assert.match(await out(['get', 'deploy']), /^nginx-deployment\s+11\/15\s+7\s+11\s+\S+$/m);

    // Back to revision 1 (nginx:1.14.2) at 3 replicas, as the pause section starts.
    assert.equal(await out(['rollout', 'undo', 'deployment/nginx-deployment', '--to-revision=1']), 'deployment.apps/nginx-deployment rolled back\n');
    await out(['scale', 'deployment/nginx-deployment', '--replicas=3']);
    await rolledOut();
    await replicaSetsAre(['nginx:1.14.2 3/3/3', 'nginx:1.16.1 0/0/0', 'nginx:1.161 0/0/0', 'nginx:sometag 0/0/0']);
    assert.equal(await out(['delete', 'deployment', 'nginx-deployment']), 'deployment.apps "nginx-deployment" deleted\n');
  });

  it('Deployments: pause, set image and set resources without a rollout, resume rolls both out; progressDeadlineSeconds and ProgressDeadlineExceeded', async () => {
    // "with a Deployment that was created": a new one, at its first revision.
    await eventually(async () => (await out(['get', 'rs', '-l', 'app=nginx', '-o', 'name'])) === '', 120_000, 'the ReplicaSets gone');
    assert.equal(await out(['apply', '-f', file('nginx-deployment.yaml', m.controllersNginxDeployment)]), 'deployment.apps/nginx-deployment created\n');
    await rolledOut();
    const history = async () => (await out(['rollout', 'history', 'deployment/nginx-deployment'])).trim().split('\n').slice(2).map((l) => l.trimEnd());
    assert.equal(await out(['rollout', 'pause', 'deployment/nginx-deployment']), 'deployment.apps/nginx-deployment paused\n');
    assert.equal(await out(['set', 'image', 'deployment/nginx-deployment', 'nginx=nginx:1.16.1']), 'deployment.apps/nginx-deployment image updated\n');
    assert.equal(await out(['set', 'resources', 'deployment/nginx-deployment', '-c=nginx', '--limits=cpu=200m,memory=512Mi']),
      'deployment.apps/nginx-deployment resource requirements updated\n');
    // No new rollout started: the same revisions, the same ReplicaSets.
    assert.deepEqual(await history(), ['1         <none>']);
    await replicaSetsAre(['nginx:1.14.2 3/3/3']);
    assert.equal(await out(['rollout', 'resume', 'deployment/nginx-deployment']), 'deployment.apps/nginx-deployment resumed\n');
    await rolledOut();
    await replicaSetsAre(['nginx:1.14.2 0/0/0', 'nginx:1.16.1 3/3/3']);
    const pods = await out(['get', 'pods', '-l', 'app=nginx', '-o', 'jsonpath={range .items[*]}{.spec.containers[0].image} {.spec.containers[0].resources.limits.cpu} {.spec.containers[0].resources.limits.memory}{"\\n"}{end}']);
    await eventually(async () => {
      const now = (await out(['get', 'pods', '-l', 'app=nginx', '-o', 'jsonpath={range .items[*]}{.spec.containers[0].image} {.spec.containers[0].resources.limits.cpu} {.spec.containers[0].resources.limits.memory}{"\\n"}{end}'])).trim().split('\n');
      return now.length === 3 && now.every((l) => l === 'nginx:1.16.1 200m 512Mi');
    }, 120_000, 'three pods of the resumed template', () => pods);

    // progressDeadlineSeconds is 600 by default: the page's patch changes nothing.
    assert.equal(await out(['patch', 'deployment/nginx-deployment', '-p', '{"spec":{"progressDeadlineSeconds":600}}']), 'deployment.apps/nginx-deployment patched (no change)\n');
    // With a short deadline the stuck rollout fails, as the Failed Deployment section shows.
    assert.equal(await out(['patch', 'deployment/nginx-deployment', '-p', '{"spec":{"progressDeadlineSeconds":10}}']), 'deployment.apps/nginx-deployment patched\n');
    await out(['set', 'image', 'deployment/nginx-deployment', 'nginx=nginx:1.161']);
    const failed = await kubectl(['rollout', 'status', 'deployment/nginx-deployment'], undefined, true);
    assert.equal(failed.code, 1, failed.stdout + failed.stderr);
    assert.equal(failed.stderr, 'error: deployment "nginx-deployment" exceeded its progress deadline\n');
    assert.match(await out(['describe', 'deployment', 'nginx-deployment']), /^\s+Progressing\s+False\s+ProgressDeadlineExceeded$/m);
    assert.equal(await out(['delete', 'deployment', 'nginx-deployment']), 'deployment.apps "nginx-deployment" deleted\n');
  });

  it('Run a Stateless Application Using a Deployment: describe, the pods by label, the update to 1.16.1, the scale to 4; the relabelled update refused', async () => {
    await eventually(async () => (await out(['get', 'pods', '-l', 'app=nginx', '-o', 'name'])) === '', 120_000, 'the Deployments page\'s pods gone');
    assert.equal(await out(['apply', '-f', file('deployment.yaml', m.deployment)]), 'deployment.apps/nginx-deployment created\n');
    await rolledOut();
    const described = await out(['describe', 'deployment', 'nginx-deployment']);
    for (const line of [/^Name:\s+nginx-deployment$/m, /^Namespace:\s+default$/m, /^Labels:\s+<none>$/m, /^Annotations:\s+deployment\.kubernetes\.io\/revision: 1$/m,
      /^Selector:\s+app=nginx$/m, /^Replicas:\s+2 desired \| 2 updated \| 2 total \| 2 available \| 0 unavailable$/m, /^StrategyType:\s+RollingUpdate$/m,
      /^MinReadySeconds:\s+0$/m, /^Pod Template:\n {2}Labels:\s+app=nginx\n {2}Containers:\n {3}nginx:\n {4}Image:\s+nginx:1\.14\.2\n {4}Port:\s+80\/TCP\n/m,
      /^\s+Available\s+True\s+MinimumReplicasAvailable$/m, /^\s+Progressing\s+True\s+NewReplicaSetAvailable$/m, /^OldReplicaSets:\s+<none>$/m,
      /^NewReplicaSet:\s+nginx-deployment-[a-z0-9]+ \(2\/2 replicas created\)$/m]) {
      assert.match(described, line);
    }
    const pods = (await out(['get', 'pods', '-l', 'app=nginx'])).trim().split('\n');
    assert.match(pods[0], /^NAME\s+READY\s+STATUS\s+RESTARTS\s+AGE$/);
    assert.equal(pods.length, 3, pods.join('\n'));
    for (const l of pods.slice(1)) assert.match(l, /^nginx-deployment-[a-z0-9]+-[a-z0-9]{5}\s+1\/1\s+Running\s+0\s+\S+$/);
    assert.match(await out(['describe', 'pod', pods[1].split(/\s+/)[0]]), /^\s+Image:\s+nginx:1\.14\.2$/m);

    const images = async () => (await out(['get', 'pods', '-l', 'app=nginx', '-o', 'jsonpath={range .items[*]}{.spec.containers[0].image}{"\\n"}{end}'])).trim().split('\n').sort();
    assert.equal(await out(['apply', '-f', file('deployment-update.yaml', m.deploymentUpdate)]), 'deployment.apps/nginx-deployment configured\n');
    await rolledOut();
    await eventually(async () => (await images()).join(',') === 'nginx:1.16.1,nginx:1.16.1', 120_000, 'two nginx:1.16.1 pods');
    assert.equal(await out(['apply', '-f', file('deployment-scale.yaml', m.deploymentScale)]), 'deployment.apps/nginx-deployment configured\n');
    await rolledOut();
    await eventually(async () => (await images()).length === 4, 120_000, 'four pods');

    // The examples relabelled app.kubernetes.io/name: the selector of a Deployment cannot change.
    const refused = await kubectl(['apply', '-f', file('deployment-update-relabelled.yaml', m.deploymentUpdateRelabelled)], undefined, true);
    assert.equal(refused.code, 1);
    assert.match(refused.stderr, /^The Deployment "nginx-deployment" is invalid: spec\.selector: Invalid value: v1\.LabelSelector\{MatchLabels:map\[string\]string\{"app\.kubernetes\.io\/name":"nginx"\}, MatchExpressions:\[\]v1\.LabelSelectorRequirement\(nil\)\}: field is immutable\n$/);
    assert.equal(await out(['delete', 'deployment', 'nginx-deployment']), 'deployment.apps "nginx-deployment" deleted\n');
    await eventually(async () => (await images()).join('') === '', 120_000, 'the pods gone');
  });

  it('Declarative Management of Kubernetes Objects: diff of a new object, apply, last-applied-configuration, scale kept across an apply that clears minReadySeconds', async () => {
    const simple = file('simple_deployment.yaml', m.simpleDeployment);
    const update = file('update_deployment.yaml', m.updateDeployment);
    // A new object: everything the server would store is added (server-side dry run: its defaults too), nothing is created.
    const created = await kubectl(['diff', '-f', simple], undefined, true);
    assert.equal(created.code, 1, created.stderr);
    for (const line of ['+  name: nginx-deployment', '+  minReadySeconds: 5', '+  progressDeadlineSeconds: 600', '+  replicas: 1', '+      - image: nginx:1.14.2']) {
      assert.ok(created.stdout.split('\n').includes(line), `${line} in\n${created.stdout}`);
    }
    assert.equal((await kubectl(['get', 'deployment', 'nginx-deployment'], undefined, true)).stderr, 'Error from server (NotFound): deployments.apps "nginx-deployment" not found\n');
    assert.equal(await out(['apply', '-f', simple]), 'deployment.apps/nginx-deployment created\n');
    const lastApplied = (d: any) => JSON.parse(d.metadata.annotations['kubectl.kubernetes.io/last-applied-configuration']);
    let live = JSON.parse(await out(['get', '-f', simple, '-o', 'json']));
    assert.deepEqual(lastApplied(live), {
      apiVersion: 'apps/v1', kind: 'Deployment', metadata: { annotations: {}, name: 'nginx-deployment', namespace: 'default' },
      spec: { minReadySeconds: 5, selector: { matchLabels: { 'app.kubernetes.io/name': 'nginx' } },
        template: { metadata: { labels: { 'app.kubernetes.io/name': 'nginx' } }, spec: { containers: [{ image: 'nginx:1.14.2', name: 'nginx', ports: [{ containerPort: 80 }] }] } } },
    });
    assert.equal(live.spec.minReadySeconds, 5);

    assert.equal(await out(['scale', 'deployment/nginx-deployment', '--replicas=2']), 'deployment.apps/nginx-deployment scaled\n');
    live = JSON.parse(await out(['get', 'deployment', 'nginx-deployment', '-o', 'json']));
    assert.equal(live.spec.replicas, 2);
    assert.equal(lastApplied(live).spec.replicas, undefined);

    const changes = await kubectl(['diff', '-f', update], undefined, true);
    assert.equal(changes.code, 1, changes.stderr);
    const lines = changes.stdout.split('\n');
    for (const line of ['-  minReadySeconds: 5', '-      - image: nginx:1.14.2', '+      - image: nginx:1.16.1']) assert.ok(lines.includes(line), `${line} in\n${changes.stdout}`);
    assert.ok(!lines.some((l) => /^[-+] {2}replicas:/.test(l)), changes.stdout);
    assert.equal(await out(['apply', '-f', update]), 'deployment.apps/nginx-deployment configured\n');
    live = JSON.parse(await out(['get', '-f', update, '-o', 'json']));
    // replicas keeps kubectl scale's 2, the image is updated, minReadySeconds is cleared, in the object and in the annotation.
    assert.equal(live.spec.replicas, 2);
    assert.equal(live.spec.template.spec.containers[0].image, 'nginx:1.16.1');
    assert.equal(live.spec.minReadySeconds, undefined);
    assert.equal(lastApplied(live).spec.minReadySeconds, undefined);
    assert.equal(lastApplied(live).spec.template.spec.containers[0].image, 'nginx:1.16.1');
    await rolledOut();
    const noChange = await kubectl(['diff', '-f', update], undefined, true);
    assert.deepEqual([noChange.code, noChange.stdout], [0, '']);
    assert.equal(await out(['delete', '-f', update]), 'deployment.apps "nginx-deployment" deleted\n');
  });

  it('Imperative Management of Kubernetes Objects Using Configuration Files: create -f, another writer\'s change lost at replace -f, an exported object replaced', async () => {
    const path = file('deployment.yaml', m.deployment);
    assert.equal(await out(['create', '-f', path]), 'deployment.apps/nginx-deployment created\n');
    const again = await kubectl(['create', '-f', path], undefined, true);
    assert.deepEqual([again.code, again.stderr], [1, `Error from server (AlreadyExists): error when creating "${path}": deployments.apps "nginx-deployment" already exists\n`]);
    // "Another source updates the object": replace -f puts the file's replicas back.
    await out(['scale', 'deployment/nginx-deployment', '--replicas=3']);
    assert.equal(await out(['replace', '-f', path]), 'deployment.apps/nginx-deployment replaced\n');
    assert.match(await out(['get', '-f', path, '-o', 'yaml']), /^ {2}replicas: 2$/m);
    // Migrating from imperative commands: export, remove the status, replace.
    assert.equal(await out(['create', 'deployment', 'nginx', '--image=nginx']), 'deployment.apps/nginx created\n');
    await rolledOut('nginx');
    const exported = await out(['get', 'deployment/nginx', '-o', 'yaml']);
    assert.match(exported, /^status:\n/m);
    const kept = file('deployment_nginx.yaml', exported.slice(0, exported.search(/^status:/m)));
    assert.equal(await out(['replace', '-f', kept]), 'deployment.apps/nginx replaced\n');
    assert.equal(await out(['delete', '-f', path, '-f', kept]), 'deployment.apps "nginx-deployment" deleted\ndeployment.apps "nginx" deleted\n');
  });

  it('Managing Kubernetes Objects Using Imperative Commands: create service | set selector --local | create -f -, and create --edit', async () => {
    const piped = await shell('kubectl create service clusterip my-svc --clusterip="None" -o yaml --dry-run=client | kubectl set selector --local -f - \'environment=qa\' -o yaml | kubectl create -f -');
    assert.deepEqual([piped.code, piped.stdout, piped.stderr], [0, 'service/my-svc created\n', '']);
    const row = (await out(['get', 'service', 'my-svc', '-o', 'wide'])).split('\n');
    assert.match(row[0], /^NAME\s+TYPE\s+CLUSTER-IP\s+EXTERNAL-IP\s+PORT\(S\)\s+AGE\s+SELECTOR$/);
    assert.match(row[1], /^my-svc\s+ClusterIP\s+None\s+<none>\s+<none>\s+\S+\s+environment=qa$/);
    assert.equal(await out(['get', 'service', 'my-svc', '-o', 'jsonpath={.metadata.labels}']), '{"app":"my-svc"}');

    const saved = await shell(`kubectl create service clusterip my-svc --clusterip="None" -o yaml --dry-run=client > ${join(up.dir, 'srv.yaml')}`);
    assert.equal(saved.code, 0, saved.stderr);
    // The editor renames the Service (the first one has the name) and its selector.
    const edited = await shell(`kubectl create --edit -f ${join(up.dir, 'srv.yaml')}`, { EDITOR: 'sed -i s/my-svc/my-svc-2/g', KUBE_EDITOR: '' });
    assert.deepEqual([edited.code, edited.stdout], [0, 'service/my-svc-2 created\n'], edited.stderr);
    assert.equal(await out(['get', 'service', 'my-svc-2', '-o', 'jsonpath={.spec.clusterIP} {.spec.selector}']), 'None {"app":"my-svc-2"}');
    assert.equal(await out(['delete', 'service/my-svc', 'service/my-svc-2']), 'service "my-svc" deleted\nservice "my-svc-2" deleted\n');
  });

  it('Expose Pod Information through environment variables, resourceFieldRef: the requests and limits in the container\'s units', async () => {
    assert.equal(await out(['apply', '-f', file('dapi-envars-container.yaml', m.dapiEnvarsContainer)]), 'pod/dapi-envars-resourcefieldref created\n');
    // cpu rounds up to whole cores (divisor 1), memory is in bytes.
    const logs = await eventually(async () => {
      const text = await out(['logs', 'dapi-envars-resourcefieldref']);
      return text.length > 0 && text;
    }, 120_000, 'the first loop\'s lines');
    assert.ok(logs.startsWith('\n1\n1\n33554432\n67108864\n'), JSON.stringify(logs));
    assert.equal(await out(['exec', 'dapi-envars-resourcefieldref', '--', 'printenv', 'MY_CPU_REQUEST', 'MY_MEM_LIMIT']), '1\n67108864\n');
    await kubectl(['delete', 'pod', 'dapi-envars-resourcefieldref', '--wait=false']);
  });

  it('StatefulSet Basics, Parallel Pod management: both pods created before either runs; scaled to 4, both new ones at once', async () => {
    const watch = spawn('kubectl', ['--kubeconfig', up.kubeconfig, 'get', 'pod', '-l', 'app.kubernetes.io/name=nginx', '--watch'], { stdio: ['ignore', 'pipe', 'pipe'] });
    let seen = '';
    watch.stdout.on('data', (d: Buffer) => { seen += d.toString(); });
    try {
      assert.equal(await out(['apply', '-f', file('web-parallel.yaml', m.webParallel)]), 'service/nginx created\nstatefulset.apps/web created\n');
      const rows = () => seen.split('\n').map((l) => l.trim().split(/\s+/)).filter((c) => /^web-\d$/.test(c[0]!));
      /** Whether every one of `pods` had a row before any of them was Running (OrderedReady would create the second once the first is Ready). */
      const togetherBeforeRunning = (pods: string[]) => {
        const firstRunning = rows().findIndex((c) => pods.includes(c[0]!) && c[2] === 'Running');
        const before = rows().slice(0, firstRunning < 0 ? undefined : firstRunning).map((c) => c[0]);
        return pods.every((p) => before.includes(p));
      };
      const allRunning = (pods: string[]) => pods.every((p) => rows().some((c) => c[0] === p && c[1] === '1/1' && c[2] === 'Running'));
      await eventually(async () => allRunning(['web-0', 'web-1']), 120_000, 'web-0 and web-1 Running', () => seen);
      assert.ok(togetherBeforeRunning(['web-0', 'web-1']), seen);
      assert.equal(await out(['scale', 'statefulset/web', '--replicas=4']), 'statefulset.apps/web scaled\n');
      await eventually(async () => allRunning(['web-2', 'web-3']), 120_000, 'web-2 and web-3 Running', () => seen);
      assert.ok(togetherBeforeRunning(['web-2', 'web-3']), seen);
    } finally {
      await killChild(watch);
    }
    assert.equal(await out(['delete', 'sts', 'web']), 'statefulset.apps "web" deleted\n');
    assert.equal(await out(['delete', 'svc', 'nginx']), 'service "nginx" deleted\n');
    await eventually(async () => (await out(['get', 'pod', '-l', 'app.kubernetes.io/name=nginx', '-o', 'name'])) === '', 120_000, 'the pods gone');
    assert.equal(await out(['delete', 'pvc', 'www-web-0', 'www-web-1', 'www-web-2', 'www-web-3']),
      'persistentvolumeclaim "www-web-0" deleted\npersistentvolumeclaim "www-web-1" deleted\npersistentvolumeclaim "www-web-2" deleted\npersistentvolumeclaim "www-web-3" deleted\n');
  });
});
