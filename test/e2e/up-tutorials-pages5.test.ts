/**
 * More kubernetes.io pages, command by command with the real kubectl 1.32 on
 * `npm start`'s simulated nodes, where k8ts once answered unlike upstream:
 *  - Handling retriable and non-retriable pod failures with Pod failure
 *    policy: draining the node of the Ignore example hung for ever (the
 *    evicted pods stayed Terminating and Running: the kubelet wrote no
 *    terminal phase, which the Job controller waits for under a
 *    podFailurePolicy); the config-issue example's image was pulled; the
 *    FailIndex example's `index = int(...)` script was not run (every index
 *    "Completed"); failedIndexes read "0-1" where upstream writes "0,1";
 *    and a Job deleted with running pods left them Terminating (no orphan
 *    pod lost the job-tracking finalizer);
 *  - Debug Init Containers: a script with `set -x` was not run (the init
 *    container "Completed"); now it traces each command into its log.
 * Walked and answering as upstream already, checked here so they stay so:
 * Specifying a Disruption Budget (the PDB's columns and status, with and
 * without pods), API-initiated Eviction (201, 429 with the budget's words,
 * 500 for two budgets), the Pod Backoff failure policy example
 * (backoffLimitPerIndex), Pod Priority and Preemption's PriorityClasses,
 * Determine the Reason for Pod Failure with FallbackToLogsOnError, and
 * Declarative Management with Kustomize (namePrefix, commonLabels,
 * configMapGenerator, get/diff/apply/delete -k) and `apply --prune -l`.
 * Safely Drain a Node with a PDB, the termination-demo pod and a
 * preemption on a full node are walked in up-tutorials-ops and disruption.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { eventually } from './harness.js';
import { startUp, type UpCluster } from './up-cluster.js';
import * as m from './up-tutorials-pages5-manifests.js';

describe('k8ts up: the PDB, Eviction, Pod failure policy, backoff per index, priority, termination message, init container and kustomize pages on simulated nodes', () => {
  let up: UpCluster;
  const kubectl = (args: string[], input?: string, allowFail = false) => up.kubectl(args, input, allowFail);
  const out = async (args: string[], input?: string) => (await kubectl(args, input)).stdout;
  const file = (name: string, text: string) => { const path = join(up.dir, name); mkdirSync(join(path, '..'), { recursive: true }); writeFileSync(path, text); return path; };
  const jobStatus = async (name: string) => JSON.parse((await out(['get', 'job', name, '-o', 'jsonpath={.status}'])) || '{}');
  const finished = (name: string, ms = 150_000) => eventually(async () => {
    const s = await jobStatus(name);
    return s.conditions?.some((c: { type: string }) => c.type === 'Complete' || c.type === 'Failed') ? s : undefined;
  }, ms, `job ${name} finished`);
  const conditions = (s: { conditions: { type: string; reason: string; message: string }[] }) => s.conditions.map((c) => [c.type, c.reason, c.message]);

  before(async () => { up = await startUp('k8ts-e2e-tut-pages5-'); });
  after(async () => { await up?.close(); });

  it('Specifying a Disruption Budget: zk-pdb before and after its pods; API-initiated Eviction: 201, 429, and 500 for two budgets', async () => {
    assert.equal(await out(['apply', '-f', file('pdb.yaml', m.pdbMinAvailable)]), 'poddisruptionbudget.policy/zk-pdb created\n');
    const row = async () => (await out(['get', 'poddisruptionbudgets'])).split('\n');
    const empty = await eventually(async () => { const r = await row(); return /^zk-pdb\s+2\s+N\/A\s+0\s/.test(r[1] ?? '') ? r : undefined; }, 30_000, 'the empty budget');
    assert.match(empty[0]!, /^NAME\s+MIN AVAILABLE\s+MAX UNAVAILABLE\s+ALLOWED DISRUPTIONS\s+AGE$/);
    await kubectl(['apply', '-f', file('zk.yaml', m.zookeeper)]);
    await kubectl(['rollout', 'status', 'statefulset/zk', '--timeout=120s']);
    await eventually(async () => /^zk-pdb\s+2\s+N\/A\s+1\s/.test((await row())[1] ?? '') || undefined, 60_000, 'one disruption allowed');
    const yaml = await out(['get', 'poddisruptionbudgets', 'zk-pdb', '-o', 'yaml']);
    assert.match(yaml, /\nstatus:\n {2}conditions:\n {2}- lastTransitionTime: "[^"]+"\n {4}message: ""\n {4}observedGeneration: 1\n {4}reason: SufficientPods\n {4}status: "True"\n {4}type: DisruptionAllowed\n {2}currentHealthy: 3\n {2}desiredHealthy: 2\n {2}disruptionsAllowed: 1\n {2}expectedPods: 3\n {2}observedGeneration: 1\n/);
    const evict = (pod: string) => kubectl(['create', '--raw', `/api/v1/namespaces/default/pods/${pod}/eviction`, '-f', file(`eviction-${pod}.json`, m.eviction(pod))], undefined, true);
    // Two budgets over one pod: the eviction subresource refuses (500).
    await kubectl(['apply', '-f', file('pdb-max.yaml', m.pdbMaxUnavailable)]);
    await eventually(async () => (await out(['get', 'pdb', 'zk-pdb-max', '-o', 'jsonpath={.status.disruptionsAllowed}'])) === '1' || undefined, 60_000, 'zk-pdb-max counted');
    const two = await evict('zk-0');
    assert.notEqual(two.code, 0);
    assert.match(two.stderr, /This pod has more than one PodDisruptionBudget, which the eviction subresource does not support\./);
    await kubectl(['delete', 'pdb', 'zk-pdb-max']);
    const ok = await eventually(async () => { const r = await evict('zk-0'); return r.code === 0 ? r : undefined; }, 30_000, 'zk-0 evicted');
    assert.equal(JSON.parse(ok.stdout).status, 'Success');
    const refused = await evict('zk-1');
    assert.notEqual(refused.code, 0);
    assert.match(refused.stderr, /Cannot evict pod as it would violate the pod's disruption budget\./);
    await kubectl(['delete', 'statefulset', 'zk']);
    await kubectl(['delete', 'pdb', 'zk-pdb']);
  });

  it('Pod failure policy: FailJob on exit code 42 (the container logs the page\'s line), and FailIndex with backoffLimitPerIndex: failedIndexes "0,1", 3 failed', async () => {
    assert.equal(await out(['create', '-f', file('job-pod-failure-policy-failjob.yaml', m.failJob)]), 'job.batch/job-pod-failure-policy-failjob created\n');
    assert.equal(await out(['create', '-f', file('job-backoff-limit-per-index-failindex.yaml', m.failIndexJob)]), 'job.batch/job-backoff-limit-per-index-failindex created\n');
    const failIndex = await finished('job-backoff-limit-per-index-failindex');
    assert.deepEqual([failIndex.failedIndexes, failIndex.completedIndexes, failIndex.failed, failIndex.succeeded], ['0,1', '2,3', 3, 2]);
    const pods = (await out(['get', 'pods', '-l', 'job-name=job-backoff-limit-per-index-failindex', '--no-headers'])).trim().split('\n')
      .map((l) => { const [name, , status] = l.split(/\s+/); return `${name!.replace(/-[a-z0-9]{5}$/, '')} ${status}`; }).sort();
    assert.deepEqual(pods, [
      'job-backoff-limit-per-index-failindex-0 Error', 'job-backoff-limit-per-index-failindex-0 Error', 'job-backoff-limit-per-index-failindex-1 Error',
      'job-backoff-limit-per-index-failindex-2 Completed', 'job-backoff-limit-per-index-failindex-3 Completed',
    ]);
    const failJob = await finished('job-pod-failure-policy-failjob');
    const [target, failed] = conditions(failJob);
    assert.deepEqual([target![0], target![1], failed![0], failed![1]], ['FailureTarget', 'PodFailurePolicy', 'Failed', 'PodFailurePolicy']);
    assert.match(target![2]!, /^Container main for pod default\/job-pod-failure-policy-failjob-[a-z0-9]{5} failed with exit code 42 matching FailJob rule at index 0$/);
    assert.equal(failed![2], target![2]);
    assert.match(await out(['logs', '-l', 'job-name=job-pod-failure-policy-failjob']), /^Hello world! I'm going to exit with 42 to simulate a software bug\.\n/);
    await kubectl(['delete', 'jobs/job-pod-failure-policy-failjob', 'jobs/job-backoff-limit-per-index-failindex']);
  });

  it('Pod failure policy: draining the Ignore example\'s node finishes, and its evictions are not counted; a Job deleted with running pods leaves none', async () => {
    await kubectl(['create', '-f', file('job-pod-failure-policy-ignore.yaml', m.ignoreJob)]);
    const nodeName = await eventually(async () => (await out(['get', 'pods', '-l', 'job-name=job-pod-failure-policy-ignore', '--field-selector=status.phase=Running', '-o', 'jsonpath={.items[0].spec.nodeName}'])) || undefined, 60_000, 'a running pod');
    const drain = await kubectl(['drain', `nodes/${nodeName}`, '--ignore-daemonsets', '--grace-period=0', '--timeout=90s']);
    assert.match(drain.stdout, new RegExp(`node/${nodeName} drained\\n$`));
    const status = await eventually(async () => { const s = await jobStatus('job-pod-failure-policy-ignore'); return s.active === 2 ? s : undefined; }, 60_000, 'two pods again');
    assert.equal(status.failed, undefined, JSON.stringify(status));
    assert.equal(status.conditions, undefined, JSON.stringify(status));
    await kubectl(['uncordon', `nodes/${nodeName}`]);
    await kubectl(['delete', 'jobs/job-pod-failure-policy-ignore']);
    await eventually(async () => (await out(['get', 'pods', '-l', 'job-name=job-pod-failure-policy-ignore', '-o', 'name'])) === '' || undefined, 60_000, 'the deleted Job\'s pods gone');
  });

  it('Pod failure policy: the config-issue Job\'s image is not found; a ConfigIssue condition and a delete fail the Job', async () => {
    await kubectl(['create', '-f', file('job-pod-failure-policy-config-issue.yaml', m.configIssueJob)]);
    const sel = ['-l', 'job-name=job-pod-failure-policy-config-issue'];
    await eventually(async () => /reason: (ErrImagePull|ImagePullBackOff)/.test(await out(['get', 'pods', ...sel, '-o', 'yaml'])) || undefined, 60_000, 'the pull failing');
    assert.match(await out(['get', 'pods', ...sel, '-o', 'jsonpath={.items[0].status.phase}']), /^Pending$/);
    const podName = await out(['get', 'pods', ...sel, '-o', 'jsonpath={.items[0].metadata.name}']);
    const patch = file('patch.yaml', m.configIssuePatch(new Date().toISOString().replace(/\.\d+Z$/, 'Z')));
    assert.equal(await out(['patch', 'pod', podName, '--subresource=status', `--patch-file=${patch}`]), `pod/${podName} patched\n`);
    await kubectl(['delete', `pods/${podName}`]);
    const s = await finished('job-pod-failure-policy-config-issue', 60_000);
    const failed = conditions(s).find((c) => c[0] === 'Failed')!;
    assert.deepEqual(failed, ['Failed', 'PodFailurePolicy', `Pod default/${podName} has condition ConfigIssue matching FailJob rule at index 0`]);
    await kubectl(['delete', 'jobs/job-pod-failure-policy-config-issue']);
  });

  it('Pod Backoff failure policy: backoffLimitPerIndex 1, the even indexes fail twice each; "Hello world" in the logs', async () => {
    await kubectl(['apply', '-f', file('job-backoff-limit-per-index-example.yaml', m.backoffPerIndexJob)]);
    const s = await finished('job-backoff-limit-per-index-example');
    assert.deepEqual([s.completedIndexes, s.failedIndexes, s.succeeded, s.failed], ['1,3,5,7,9', '0,2,4,6,8', 5, 10]);
    assert.deepEqual(conditions(s), [['FailureTarget', 'FailedIndexes', 'Job has failed indexes'], ['Failed', 'FailedIndexes', 'Job has failed indexes']]);
    const pod = await out(['get', 'pods', '-l', 'batch.kubernetes.io/job-completion-index=1', '-o', 'jsonpath={.items[0].metadata.name}']);
    assert.equal(await out(['logs', pod]), 'Hello world\n');
    await kubectl(['delete', 'job', 'job-backoff-limit-per-index-example']);
  });

  it('Pod Priority and Preemption: the PriorityClasses\' table and describe; the pod gets the class\'s value', async () => {
    await kubectl(['apply', '-f', file('priority.yaml', m.priorityClasses)]);
    const table = (await out(['get', 'priorityclass'])).trim().split('\n').map((l) => l.split(/\s+/));
    assert.deepEqual(table[0], ['NAME', 'VALUE', 'GLOBAL-DEFAULT', 'AGE', 'PREEMPTIONPOLICY']);
    assert.deepEqual(table.slice(1).map((r) => [r[0], r[1], r[2], r[4]]), [
      ['high-priority', '1000000', 'false', 'PreemptLowerPriority'], ['high-priority-nonpreempting', '1000000', 'false', 'Never'],
      ['system-cluster-critical', '2000000000', 'false', 'PreemptLowerPriority'], ['system-node-critical', '2000001000', 'false', 'PreemptLowerPriority'],
    ]);
    assert.match(await out(['describe', 'pc', 'high-priority-nonpreempting']), /PreemptionPolicy: {2}Never\nDescription: {7}This priority class will not cause other pods to be preempted\.\n/);
    assert.equal(await out(['get', 'pod', 'nginx', '-o', 'jsonpath={.spec.priority} {.spec.preemptionPolicy}']), '1000000 PreemptLowerPriority');
    await kubectl(['delete', 'pod', 'nginx']);
  });

  it('Determine the Reason for Pod Failure: FallbackToLogsOnError makes the log\'s tail the message of a failed container', async () => {
    await kubectl(['apply', '-f', file('termination-fallback.yaml', m.fallbackTermination)]);
    const message = await eventually(async () => (await out(['get', 'pod', 'termination-demo', '-o', 'go-template={{range .status.containerStatuses}}{{.state.terminated.message}}{{end}}'])).replace('<no value>', '') || undefined, 60_000, 'the message');
    assert.equal(message, 'Sleep expired, writing to log only');
    await kubectl(['delete', 'pod', 'termination-demo']);
  });

  it('Debug Init Containers: Init:N/M, then Init:Error or Init:CrashLoopBackOff; describe\'s sections; logs -c shows the set -x trace', async () => {
    await kubectl(['apply', '-f', file('init-debug.yaml', m.initDebug)]);
    const status = await eventually(async () => {
      const line = (await out(['get', 'pod', 'myapp-pod', '--no-headers'])).trim();
      return /Init:(Error|CrashLoopBackOff)/.test(line) ? line : undefined;
    }, 60_000, 'the second init container failing');
    assert.match(status, /^myapp-pod\s+0\/1\s+Init:(Error|CrashLoopBackOff)\s/);
    assert.equal(await out(['logs', 'myapp-pod', '-c', 'init-second']), '+ echo checking the database\nchecking the database\n+ test -f /ready\n');
    assert.equal(await out(['logs', 'myapp-pod', '-c', 'init-first']), 'first done\n');
    const describe = await out(['describe', 'pod', 'myapp-pod']);
    assert.match(describe, /\nInit Containers:\n {2}init-first:\n[\s\S]*?\n {4}State: {10}Terminated\n {6}Reason: {7}Completed\n {6}Exit Code: {4}0\n[\s\S]*?\n {4}Ready: {10}True\n/);
    assert.match(describe, /\n {2}init-second:\n[\s\S]*?\n {4}(State: {10}Waiting\n {6}Reason: {7}CrashLoopBackOff\n {4}Last State: {5}Terminated\n {6}Reason: {7}Error\n {6}Exit Code: {4}1|State: {10}Terminated\n {6}Reason: {7}Error\n {6}Exit Code: {4}1)\n[\s\S]*?\n {4}Ready: {10}False\n/);
    const template = await out(['get', 'pod', 'myapp-pod', '--template', '{{range .status.initContainerStatuses}}{{.name}}={{.ready}} {{end}}']);
    assert.equal(template, 'init-first=true init-second=false ');
    await kubectl(['delete', 'pod', 'myapp-pod']);
  });

  it('Declarative Management with Kustomize: apply -k of the dev overlay, get -k, diff -k after a base change, delete -k; apply --prune -l', async () => {
    for (const [name, text] of Object.entries(m.kustomizeBase)) file(join('kz', 'base', name), text);
    const dev = join(file(join('kz', 'dev', 'kustomization.yaml'), m.kustomizeDev), '..');
    const applied = await out(['apply', '-k', dev]);
    assert.match(applied, /^configmap\/dev-example-configmap-1-[a-z0-9]{10} created\nservice\/dev-my-nginx created\ndeployment\.apps\/dev-my-nginx created\n$/);
    assert.equal(await out(['get', 'deployment', 'dev-my-nginx', '-o', 'jsonpath={.metadata.labels.app} {.spec.selector.matchLabels}']), 'my-nginx {"app":"my-nginx","run":"my-nginx"}');
    assert.match(await out(['get', '-k', dev]), /\ndeployment\.apps\/dev-my-nginx\s+\d\/2\s/);
    file(join('kz', 'base', 'deployment.yaml'), m.kustomizeBase['deployment.yaml'].replace('replicas: 2', 'replicas: 3'));
    const diff = await kubectl(['diff', '-k', dev], undefined, true);
    assert.equal(diff.code, 1, diff.stderr);
    assert.match(diff.stdout, /\n- {2}replicas: 2\n\+ {2}replicas: 3\n/);
    assert.match(diff.stdout, /\n- {2}generation: 1\n\+ {2}generation: 2\n/);
    assert.match(await out(['apply', '-k', dev]), /\ndeployment\.apps\/dev-my-nginx configured\n$/);
    assert.match(await out(['delete', '-k', dev]), /^configmap "dev-example-configmap-1-[a-z0-9]{10}" deleted\nservice "dev-my-nginx" deleted\ndeployment\.apps "dev-my-nginx" deleted\n$/);
    // apply --prune -l: the object whose file is gone is pruned.
    const cm = (name: string) => `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${name}\n  labels:\n    app: pruned\ndata:\n  k: v\n`;
    file(join('prune', 'a.yaml'), cm('cm-a'));
    const dir = join(file(join('prune', 'b.yaml'), cm('cm-b')), '..');
    await kubectl(['apply', '-f', dir]);
    writeFileSync(join(dir, 'b.yaml'), '');
    assert.equal(await out(['apply', '-f', dir, '--prune', '-l', 'app=pruned']), 'configmap/cm-a unchanged\nconfigmap/cm-b pruned\n');
    assert.equal(await out(['apply', '--server-side', '-f', join(dir, 'a.yaml')]), 'configmap/cm-a serverside-applied\n');
    assert.equal((await kubectl(['diff', '-f', join(dir, 'a.yaml')])).stdout, '');
  });
});
