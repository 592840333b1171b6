/**
 * More kubernetes.io task pages, command by command with the real kubectl
 * 1.32 on `npm start`'s simulated nodes, where k8ts once answered unlike
 * upstream:
 *  - Declare Network Policy: `wget --spider --timeout=1 nginx` downloaded
 *    index.html instead of printing `remote file exists`, and the
 *    access-nginx policy was not enforced between simulated pods; now a pod
 *    without access=true waits out its timeout (`download timed out`) and
 *    one with it gets through;
 *  - Share Process Namespace between Containers in a Pod: `head
 *    /proc/PID/root/etc/nginx/nginx.conf` found no file; now another
 *    container's image files are seen through /proc/PID/root, and the
 *    official nginx image has its nginx.conf; nginx's master was PID 7,
 *    not the page's 8, and `kill -HUP 8` kept the old worker; now the
 *    master is 8, HUP gives it a new worker with a new PID, and every ps
 *    is a new process;
 *  - Sidecar Containers: the Job's pod showed 1/2 Completed, its sidecar
 *    still running after the pod Succeeded; now the kubelet writes the
 *    stopped sidecar's status (0/2), as upstream's syncTerminatedPod does.
 * Walked and answering as upstream already: Update API Objects in Place
 * Using kubectl patch (strategic merge of containers, replaced
 * tolerations, --type merge, $retainKeys, --patch-file YAML and JSON,
 * --subresource=scale). The page's `--patch 'spec:\n template:...'` in
 * single quotes fails in kubectl itself (`yaml: mapping values are not
 * allowed`), before any request, as it does against any cluster.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { eventually } from './harness.js';
import { spawn } from 'node:child_process';
import { killChild, lineReader, underTerminal } from './helpers.js';
import { startUp, type UpCluster } from './up-cluster.js';
import * as m from './up-tutorials-pages2-manifests.js';

describe('k8ts up: the kubectl patch, Declare Network Policy, Share Process Namespace and Sidecar Containers pages on simulated nodes', () => {
  let up: UpCluster;
  const kubectl = (args: string[], input?: string, allowFail = false) => up.kubectl(args, input, allowFail);
  const file = (name: string, text: string) => { const path = join(up.dir, name); writeFileSync(path, text); return path; };
  const terminal = (args: string, input: string[]) => underTerminal(`kubectl --kubeconfig ${up.kubeconfig} ${args}`, input, 120_000);
  const out = async (args: string[]) => (await kubectl(args)).stdout;
  /** The pods of `selector` once only the rollout's new ones are left, all Running with `ready` containers. */
  const settledPods = (selector: string, count: number, ready: string) => eventually(async () => {
    const lines = (await out(['get', 'pods', '-l', selector])).trim().split('\n').slice(1);
    return lines.length === count && lines.every((l) => new RegExp(`\\s${ready}\\s+Running\\s+0\\s`).test(l)) ? lines : undefined;
  }, 90_000, `${count} pods ${ready} Running`);

  before(async () => { up = await startUp('k8ts-e2e-tut-pages2-'); });
  after(async () => { await up?.close(); });

  it('Update API Objects in Place Using kubectl patch: strategic merge, replaced tolerations, merge patch, retainKeys, --subresource=scale', async (t) => {
    // Their pods are app=nginx too, which the next page's Service selects: gone whatever happens here.
    t.after(() => kubectl(['delete', 'deployment', 'patch-demo', 'retainkeys-demo', 'nginx-deployment', '--ignore-not-found'], undefined, true));
    assert.equal(await out(['apply', '-f', file('deployment-patch.yaml', m.deploymentPatch)]), 'deployment.apps/patch-demo created\n');
    await settledPods('app=nginx', 2, '1/1');
    // The strategic merge patch adds a container (containers merge by name) and the pods are replaced.
    assert.equal(await out(['patch', 'deployment', 'patch-demo', '--patch-file', file('patch-file.yaml', m.patchFile)]), 'deployment.apps/patch-demo patched\n');
    const patched = await out(['get', 'deployment', 'patch-demo', '--output', 'yaml']);
    assert.match(patched, /\n {6}containers:\n {6}- image: redis\n {8}imagePullPolicy: Always\n {8}name: patch-demo-ctr-2\n[\s\S]*\n {6}- image: nginx\n {8}imagePullPolicy: Always\n {8}name: patch-demo-ctr\n/);
    const pods = await settledPods('app=nginx', 2, '2/2');
    const podName = pods[0]!.split(/\s+/)[0]!;
    assert.match(await out(['get', 'pod', podName, '--output', 'yaml']), /\n {2}containers:\n {2}- image: redis\n[\s\S]*\n {2}- image: nginx\n/);
    // tolerations has no patch strategy: the list is replaced.
    await kubectl(['patch', 'deployment', 'patch-demo', '--patch-file', file('patch-file-tolerations.yaml', m.patchFileTolerations)]);
    assert.match(await out(['get', 'deployment', 'patch-demo', '--output', 'yaml']), /\n {6}tolerations:\n {6}- effect: NoSchedule\n {8}key: disktype\n {8}value: ssd\nstatus:/);
    // A JSON merge patch replaces the whole containers list.
    assert.equal(await out(['patch', 'deployment', 'patch-demo', '--type', 'merge', '--patch-file', file('patch-file-2.yaml', m.patchFile2)]), 'deployment.apps/patch-demo patched\n');
    assert.match(await out(['get', 'deployment', 'patch-demo', '--output', 'yaml']), /\n {4}spec:\n {6}containers:\n {6}- image: gcr\.io\/google-samples\/node-hello:1\.0\n[\s\S]*?name: patch-demo-ctr-3\n[\s\S]*?dnsPolicy/);
    assert.equal((await out(['get', 'deployment', 'patch-demo', '-o', 'jsonpath={.spec.template.spec.containers[*].name}'])), 'patch-demo-ctr-3');
    await settledPods('app=nginx', 2, '1/1');
    // retainKeys: type Recreate with rollingUpdate still set is invalid; $retainKeys clears it.
    await kubectl(['apply', '-f', file('deployment-retainkeys.yaml', m.deploymentRetainKeys)]);
    const refused = await kubectl(['patch', 'deployment', 'retainkeys-demo', '--type', 'merge', '--patch-file', file('patch-file-no-retainkeys.yaml', m.patchFileNoRetainKeys)], undefined, true);
    assert.equal(refused.code, 1);
    assert.equal(refused.stderr, 'The Deployment "retainkeys-demo" is invalid: spec.strategy.rollingUpdate: Forbidden: may not be specified when strategy `type` is \'Recreate\'\n');
    assert.equal(await out(['patch', 'deployment', 'retainkeys-demo', '--patch-file', file('patch-file-retainkeys.yaml', m.patchFileRetainKeys)]), 'deployment.apps/retainkeys-demo patched\n');
    assert.match(await out(['get', 'deployment', 'retainkeys-demo', '--output', 'yaml']), /\n {2}strategy:\n {4}type: Recreate\n {2}template:\n/);
    // The alternate forms: the YAML and JSON files, and the JSON on the command line, are the same patch.
    assert.equal(await out(['patch', 'deployment', 'patch-demo', '--patch-file', file('patch-file.yaml', m.patchFile)]), 'deployment.apps/patch-demo patched\n');
    const generation = await out(['get', 'deployment', 'patch-demo', '-o', 'jsonpath={.metadata.generation}']);
    // kubectl says `(no change)` when the object it read equals the patched one: the rollout's status
    // writes may still change it in between, so the spec's generation tells that the patch changed nothing.
    const samePatch = /^deployment\.apps\/patch-demo patched( \(no change\))?\n$/;
    assert.match(await out(['patch', 'deployment', 'patch-demo', '--patch-file', file('patch-file.json', m.patchFileJSON)]), samePatch);
    assert.match(await out(['patch', 'deployment', 'patch-demo', '--patch', '{"spec": {"template": {"spec": {"containers": [{"name": "patch-demo-ctr-2","image": "redis"}]}}}}']), samePatch);
    assert.equal(await out(['get', 'deployment', 'patch-demo', '-o', 'jsonpath={.metadata.generation} {.spec.template.spec.containers[*].name}']), `${generation} patch-demo-ctr-2 patch-demo-ctr-3`);
    await kubectl(['delete', 'deployment', 'patch-demo', 'retainkeys-demo']);
    // --subresource=scale: the replica count through the scale subresource.
    await kubectl(['apply', '-f', file('deployment.yaml', m.nginxDeployment)]);
    await settledPods('app=nginx', 2, '1/1');
    assert.equal(await out(['patch', 'deployment', 'nginx-deployment', '--subresource=scale', '--type=merge', '-p', '{"spec":{"replicas":3}}']), 'scale.autoscaling/nginx-deployment patched\n');
    await settledPods('app=nginx', 3, '1/1');
    assert.match(await out(['get', 'deployment', 'nginx-deployment', '-o', 'yaml']), /\nspec:\n[\s\S]*?\n {2}replicas: 3\n[\s\S]*\nstatus:\n[\s\S]*\n {2}replicas: 3\n/);
    await kubectl(['delete', 'deployment', 'nginx-deployment']);
  });

  it('Declare Network Policy: busybox reaches nginx; with access-nginx only a pod labelled access=true does, the others time out', async () => {
    assert.equal(await out(['create', 'deployment', 'nginx', '--image=nginx']), 'deployment.apps/nginx created\n');
    assert.equal(await out(['expose', 'deployment', 'nginx', '--port=80']), 'service/nginx exposed\n');
    await kubectl(['rollout', 'status', 'deployment/nginx', '--timeout=120s']);
    const listed = await out(['get', 'svc,pod']);
    const ip = /\nservice\/nginx\s+ClusterIP\s+(\d+\.\d+\.\d+\.\d+)\s+<none>\s+80\/TCP\s/.exec(listed)?.[1];
    assert.ok(ip, listed);
    assert.match(listed, /\npod\/nginx-[a-z0-9]+-[a-z0-9]{5}\s+1\/1\s+Running\s+0\s/);
    const wget = async (labels: string) => {
      const t = await terminal(`run busybox --rm -ti${labels} --image=busybox -- /bin/sh`, ['wget --spider --timeout=1 nginx\r', 'exit\r']);
      assert.equal(t.code, 0, t.out);
      assert.match(t.out, /pod "busybox" deleted/);
      // The next run reuses the name: wait until this pod is gone.
      await eventually(async () => (await kubectl(['get', 'pod', 'busybox'], undefined, true)).code !== 0 || undefined, 60_000, 'busybox deleted');
      return t.out;
    };
    assert.match(await wget(''), new RegExp(`# wget --spider --timeout=1 nginx\\r\\nConnecting to nginx \\(${ip.replace(/\./g, '\\.')}:80\\)\\r\\nremote file exists\\r\\n`));
    assert.equal(await out(['apply', '-f', file('nginx-policy.yaml', m.nginxPolicy)]), 'networkpolicy.networking.k8s.io/access-nginx created\n');
    assert.match(await wget(''), /# wget --spider --timeout=1 nginx\r\nConnecting to nginx \([\d.]+:80\)\r\nwget: download timed out\r\n/);
    assert.match(await wget(' --labels="access=true"'), /# wget --spider --timeout=1 nginx\r\nConnecting to nginx \([\d.]+:80\)\r\nremote file exists\r\n/);
    // Deleting the policy opens nginx again.
    await kubectl(['delete', 'networkpolicy', 'access-nginx']);
    assert.match(await wget(''), /remote file exists\r\n/);
    await kubectl(['delete', 'deployment,service', 'nginx']);
  });

  it('Share Process Namespace: ps ax in the shell container lists /pause, nginx (PID 8, as on the page) and its worker; kill -HUP 8 replaces the worker; /proc/8/root reaches nginx.conf', async () => {
    await kubectl(['apply', '-f', file('share-process-namespace.yaml', m.shareProcessNamespace)]);
    await kubectl(['wait', '--for=condition=Ready', 'pod/nginx', '--timeout=120s']);
    const ps = await out(['exec', 'nginx', '-c', 'shell', '--', 'ps', 'ax']);
    assert.match(ps, /^PID {3}USER {5}TIME {2}COMMAND\n {4}1 root {6}0:00 \/pause\n {4}8 root {6}0:00 nginx: master process nginx -g daemon off;\n {3}14 101 {7}0:00 nginx: worker process\n/);
    const t = await terminal('exec -it nginx -c shell -- /bin/sh', ['ps ax\r', 'kill -HUP 8\r', 'echo $?\r', 'ps ax\r', 'head /proc/8/root/etc/nginx/nginx.conf\r', 'exit\r']);
    assert.equal(t.code, 0, t.out);
    const tables = [...t.out.matchAll(/# ps ax\r\n((?:.*\r\n)+?)\/ # /g)].map((x) => x[1]!);
    assert.equal(tables.length, 2, t.out);
    assert.match(tables[0]!, /^PID {3}USER {5}TIME {2}COMMAND\r\n {4}1 root {6}0:00 \/pause\r\n {4}8 root {6}0:00 nginx: master[^\r]*\r\n {3}14 101 {7}0:00 nginx: worker process\r\n +\d+ root {6}0:00 sleep 3600\r\n +(\d+) root {6}0:00 \/bin\/sh\r\n +\d+ root {6}0:00 ps ax\r\n$/);
    assert.match(t.out, /# kill -HUP 8\r\n\/ # echo \$\?\r\n0\r\n/);
    // After the reload: the master is still 8, the worker a new process, listed after the shell by its higher PID, then the new ps.
    const after = /^PID {3}USER {5}TIME {2}COMMAND\r\n {4}1 root {6}0:00 \/pause\r\n {4}8 root {6}0:00 nginx: master[^\r]*\r\n +\d+ root {6}0:00 sleep 3600\r\n +(\d+) root {6}0:00 \/bin\/sh\r\n +(\d+) 101 {7}0:00 nginx: worker process\r\n +(\d+) root {6}0:00 ps ax\r\n$/.exec(tables[1]!);
    assert.ok(after, tables[1]);
    assert.ok(Number(after[2]) > Number(after[1]) && Number(after[3]) > Number(after[2]), tables[1]);
    assert.match(t.out, /# head \/proc\/8\/root\/etc\/nginx\/nginx\.conf\r\n\r\nuser  nginx;\r\nworker_processes  auto;\r\n\r\nerror_log  \/var\/log\/nginx\/error\.log notice;\r\npid        \/var\/run\/nginx\.pid;\r\n\r\n\r\nevents \{\r\n    worker_connections  1024;\r\n\/ # exit/);
    assert.equal(await out(['get', 'pod', 'nginx', '-o', 'jsonpath={.status.containerStatuses[*].restartCount}']), '0 0', 'HUP reloads nginx; nothing restarts');
    await kubectl(['delete', 'pod', 'nginx', '--wait=false']);
  });

  it('Sidecar Containers: the Deployment\'s pod runs both (2/2); the Job completes and its sidecar is stopped (0/2 Completed)', async () => {
    await kubectl(['apply', '-f', file('deployment-sidecar.yaml', m.deploymentSidecar)]);
    const app = (await settledPods('app=myapp', 1, '2/2'))[0]!.split(/\s+/)[0]!;
    // The sidecar's `tail -F /opt/logs.txt` prints what the app appends to the shared emptyDir, once a second.
    const shipped = await eventually(async () => {
      const log = await out(['logs', app, '-c', 'logshipper']);
      return (log.match(/^logging$/gm) ?? []).length >= 2 && log;
    }, 60_000, 'the sidecar shipping the app\'s lines');
    assert.match(shipped, /^(tail: can't open '\/opt\/logs\.txt': No such file or directory\ntail: \/opt\/logs\.txt has appeared; following end of new file\n)?(logging\n)+$/);
    // --all-containers: the init (sidecar) container's log, then the app's (empty: its loop writes to the file).
    assert.match(await out(['logs', app, '--all-containers']), /^(tail: .*\n)*(logging\n){2,}$/);
    const follow = spawn('kubectl', ['--kubeconfig', up.kubeconfig, 'logs', '-f', app, '-c', 'logshipper', '--tail=1'], { stdio: ['ignore', 'pipe', 'pipe'] });
    const followed = lineReader(follow);
    try {
      await followed.waitFor((l) => l === 'logging', 'the last line');
      await followed.waitFor((l) => l === 'logging', 'a line appended while following', 1, 30_000);
    } finally { await killChild(follow); }
    await kubectl(['delete', 'deployment', 'myapp']);
    await kubectl(['apply', '-f', file('job-sidecar.yaml', m.jobSidecar)]);
    await kubectl(['wait', '--for=condition=complete', 'job/myjob', '--timeout=120s']);
    // The main container's exit ends the pod; the kubelet then stops the sidecar and writes its terminated state.
    const stopped = await eventually(async () => {
      const line = (await out(['get', 'pods', '-l', 'job-name=myjob'])).trim().split('\n')[1] ?? '';
      return /^myjob-[a-z0-9]{5}\s+0\/2\s+Completed\s+0\s/.test(line) ? line : undefined;
    }, 60_000, 'the sidecar stopped');
    const pod = stopped.split(/\s+/)[0]!;
    assert.match(await out(['get', 'pod', pod, '-o', 'jsonpath={.status.phase} {.status.initContainerStatuses[0].name} {.status.initContainerStatuses[0].ready} {.status.initContainerStatuses[0].state}']), /^Succeeded logshipper false \{"terminated":\{/);
    assert.match(await out(['get', 'job', 'myjob']), /\nmyjob\s+Complete\s+1\/1\s/);
    await kubectl(['delete', 'job', 'myjob']);
  });
});
