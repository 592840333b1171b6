/**
 * The resource task pages on `npm start`'s simulated nodes, command by
 * command with the real kubectl 1.32 where the page shows output:
 *
 *  - Assign Memory Resources to Containers and Pods: `kubectl get
 *    apiservices` lists v1beta1.metrics.k8s.io; memory-demo's polinux/stress
 *    (`--vm-bytes 150M`) shows about 150 MiB in `kubectl top` (the usage is
 *    modelled: src/kubelet/runtime/simulated/stress.ts); memory-demo-2
 *    (250M under a 100Mi limit) is OOMKilled, restarted and backs off
 *    (lastState terminated OOMKilled, exit code 137; BackOff event);
 *    memory-demo-3 (1000Gi) stays Pending with the scheduler's words.
 *  - Assign CPU Resources: cpu-demo's `-cpus 2` is throttled at its 1-CPU
 *    limit in `kubectl top`; cpu-demo-2 (100 cpu) Pending.
 *  - Configure Quality of Service for Pods: qosClass of qos-demo..qos-demo-4.
 *  - The namespace pages: default memory and CPU requests and limits,
 *    minimum and maximum constraints (the LimitRanger's refusals), memory and
 *    CPU quotas (status used in the pods' units; the second pod refused in
 *    upstream's words) and a pod quota (a Deployment of 3 gets 2 pods).
 *
 * Every wait polls a condition with a generous deadline; nothing is timed.
 */
import { describe, it, before, after } from 'node:test';
import { spawn, type ChildProcess } from 'node:child_process';
import assert from 'node:assert/strict';
import { eventually } from './harness.js';
import { killChild } from './helpers.js';
import { startUp, type UpCluster } from './up-cluster.js';
import { cpuDemo, ctr, limitRange, memoryDemo, pod, podQuotaDeployment, resourceQuota } from './up-tutorials-resources-manifests.js';

/** The scheduler's message for a pod no worker can hold (the control-plane node is tainted), as kube-scheduler 1.32 words it. */
const insufficient = (r: string) => `0/3 nodes are available: 1 node(s) had untolerated taint {node-role.kubernetes.io/control-plane: }, 2 Insufficient ${r}. `
  + 'preemption: 0/3 nodes are available: 1 Preemption is not helpful for scheduling, 2 No preemption victims found for incoming pod.';

/** `kubectl top pod` columns of one pod: millicores and MiB. */
const topRow = (out: string, name: string) => {
  const m = new RegExp(`^${name}\\s+(\\d+)m\\s+(\\d+)Mi\\s*$`, 'm').exec(out);
  return m ? { milli: Number(m[1]), mib: Number(m[2]) } : undefined;
};

describe('resource task pages on npm start\'s simulated nodes', () => {
  let up: UpCluster;
  const kubectl = (args: string[], input?: string, allowFail = false) => up.kubectl(args, input, allowFail);
  const apply = (ns: string, manifest: string, allowFail = false) => kubectl(['apply', '-f', '-', `--namespace=${ns}`], manifest, allowFail);
  const children: ChildProcess[] = [];

  before(async () => { up = await startUp('k8ts-e2e-resources-'); });
  after(async () => {
    for (const c of children) await killChild(c);
    await up?.close();
  });

  it('Assign Memory Resources: kubectl get apiservices lists v1beta1.metrics.k8s.io', async () => {
    assert.match((await kubectl(['get', 'apiservices'])).stdout, /^v1beta1\.metrics\.k8s\.io\s+Local\s+True\s+\S+$/m);
  });

  it('Assign Memory Resources: memory-demo runs within its limit and kubectl top shows about 150 MiB', async () => {
    assert.equal((await kubectl(['create', 'namespace', 'mem-example'])).stdout, 'namespace/mem-example created\n');
    assert.equal((await apply('mem-example', memoryDemo('memory-demo', '150M', '100Mi', '200Mi'))).stdout, 'pod/memory-demo created\n');
    await eventually(async () => /^memory-demo\s+1\/1\s+Running\s+0\s/m.test((await kubectl(['get', 'pod', 'memory-demo', '--namespace=mem-example'])).stdout), 60_000, 'memory-demo Running');
    const yaml = (await kubectl(['get', 'pod', 'memory-demo', '--output=yaml', '--namespace=mem-example'])).stdout;
    assert.match(yaml, /\n {4}resources:\n {6}limits:\n {8}memory: 200Mi\n {6}requests:\n {8}memory: 100Mi\n/);
    // "about 162,900,000 bytes of memory, which is about 150 MiB": above the 100 MiB request, within the 200 MiB limit.
    const top = await eventually(async () => {
      const row = topRow((await kubectl(['top', 'pod', 'memory-demo', '--namespace=mem-example'], undefined, true)).stdout, 'memory-demo');
      return row && row.mib >= 150 && row;
    }, 120_000, 'memory-demo in kubectl top');
    assert.ok(top.mib >= 150 && top.mib <= 160, `${top.mib}Mi`);
    assert.match((await kubectl(['logs', 'memory-demo', '--namespace=mem-example'])).stdout, /^stress: info: \[1\] dispatching hogs: 0 cpu, 0 io, 1 vm, 0 hdd\n/);
    assert.equal((await kubectl(['delete', 'pod', 'memory-demo', '--namespace=mem-example'])).stdout, 'pod "memory-demo" deleted\n');
  });

  it('Assign Memory Resources: memory-demo-2 exceeds its limit: OOMKilled (137), restarted, backed off', async () => {
    // A watch sees every status the kubelet posts, so the short-lived OOMKilled one is not missed between polls.
    const watch = spawn('kubectl', ['--kubeconfig', up.kubeconfig, 'get', 'pod', '--watch', '--namespace=mem-example'], { stdio: ['ignore', 'pipe', 'pipe'] });
    children.push(watch);
    let watched = '';
    watch.stdout!.on('data', (d: Buffer) => { watched += d; });
    await apply('mem-example', memoryDemo('memory-demo-2', '250M', '50Mi', '100Mi'));
    await eventually(async () => /^memory-demo-2\s+0\/1\s+OOMKilled\s+[1-9]/m.test(watched), 120_000, 'OOMKilled with a restart in the watch', () => watched);
    const status = await eventually(async () => {
      const pod = JSON.parse((await kubectl(['get', 'pod', 'memory-demo-2', '--output=json', '--namespace=mem-example'])).stdout);
      const s = pod.status.containerStatuses?.[0];
      return s?.restartCount >= 2 && s.state.waiting?.reason === 'CrashLoopBackOff' && s;
    }, 120_000, 'memory-demo-2 in CrashLoopBackOff after two restarts', () => watched);
    assert.deepEqual([status.lastState.terminated.reason, status.lastState.terminated.exitCode], ['OOMKilled', 137]);
    const yaml = (await kubectl(['get', 'pod', 'memory-demo-2', '--output=yaml', '--namespace=mem-example'])).stdout;
    assert.match(yaml, /\n {4}lastState:\n {6}terminated:\n {8}containerID: sim:\/\/\w+\n {8}exitCode: 137\n {8}finishedAt: "[^"]+"\n {8}reason: OOMKilled\n/);
    assert.match((await kubectl(['get', 'pod', 'memory-demo-2', '--namespace=mem-example'])).stdout, /^memory-demo-2\s+[01]\/1\s+(CrashLoopBackOff|OOMKilled|Running)\s+[2-9]/m);
    // The killed instance's log is stress's one line: the kill leaves no word.
    assert.equal((await kubectl(['logs', 'memory-demo-2', '--previous', '--namespace=mem-example'])).stdout, 'stress: info: [1] dispatching hogs: 0 cpu, 0 io, 1 vm, 0 hdd\n');
    const uid = JSON.parse((await kubectl(['get', 'pod', 'memory-demo-2', '-o', 'json', '--namespace=mem-example'])).stdout).metadata.uid;
    const describe = (await kubectl(['describe', 'pod', 'memory-demo-2', '--namespace=mem-example'])).stdout;
    assert.match(describe, /Last State:\s+Terminated\n\s+Reason:\s+OOMKilled\n\s+Exit Code:\s+137\n/);
    assert.match(describe, /Normal\s+Created\s+.*kubelet\s+Created container memory-demo-2-ctr\n/);
    assert.match(describe, new RegExp(`Warning\\s+BackOff\\s+.*kubelet\\s+Back-off restarting failed container memory-demo-2-ctr in pod memory-demo-2_mem-example\\(${uid}\\)\\n`));
    // kubectl describe nodes: the node's allocated resources count the pod's request and limit.
    const node = JSON.parse((await kubectl(['get', 'pod', 'memory-demo-2', '-o', 'json', '--namespace=mem-example'])).stdout).spec.nodeName;
    assert.match((await kubectl(['describe', 'nodes'])).stdout, new RegExp(`Name:\\s+${node}\\n[\\s\\S]*?Allocated resources:\\n[\\s\\S]*?memory\\s+\\d+Mi \\(\\d+%\\)\\s+\\d+Mi \\(\\d+%\\)`));
    await killChild(watch);
    assert.equal((await kubectl(['delete', 'pod', 'memory-demo-2', '--namespace=mem-example'])).stdout, 'pod "memory-demo-2" deleted\n');
  });

  it('Assign Memory Resources: memory-demo-3 (1000Gi) stays Pending: Insufficient memory', async () => {
    await apply('mem-example', memoryDemo('memory-demo-3', '150M', '1000Gi', '1000Gi'));
    const events = await eventually(async () => {
      const d = (await kubectl(['describe', 'pod', 'memory-demo-3', '--namespace=mem-example'])).stdout;
      return /FailedScheduling/.test(d) && d;
    }, 60_000, 'FailedScheduling');
    assert.ok(events.includes(`Warning  FailedScheduling  `) && events.includes(`default-scheduler  ${insufficient('memory')}`), events);
    assert.match((await kubectl(['get', 'pod', 'memory-demo-3', '--namespace=mem-example'])).stdout, /^memory-demo-3\s+0\/1\s+Pending\s+0\s/m);
    assert.equal((await kubectl(['delete', 'namespace', 'mem-example'])).stdout, 'namespace "mem-example" deleted\n');
  });

  it('Assign CPU Resources: cpu-demo asks for 2 CPUs and is throttled at its 1-CPU limit; cpu-demo-2 (100 cpu) Pending', async () => {
    await kubectl(['create', 'namespace', 'cpu-example']);
    assert.equal((await apply('cpu-example', cpuDemo('cpu-demo', 'cpu-demo-ctr', '0.5', '1'))).stdout, 'pod/cpu-demo created\n');
    await eventually(async () => /^cpu-demo\s+1\/1\s+Running\s/m.test((await kubectl(['get', 'pod', 'cpu-demo', '--namespace=cpu-example'])).stdout), 60_000, 'cpu-demo Running');
    const yaml = (await kubectl(['get', 'pod', 'cpu-demo', '--output=yaml', '--namespace=cpu-example'])).stdout;
    assert.match(yaml, /\n {4}resources:\n {6}limits:\n {8}cpu: "1"\n {6}requests:\n {8}cpu: 500m\n/);
    // "974m ... just a bit less than the limit of 1 CPU": the sampler's rate over its window reaches the limit and never passes it.
    const top = await eventually(async () => {
      const row = topRow((await kubectl(['top', 'pod', 'cpu-demo', '--namespace=cpu-example'], undefined, true)).stdout, 'cpu-demo');
      return row && row.milli >= 900 && row;
    }, 120_000, 'cpu-demo near its limit in kubectl top');
    assert.ok(top.milli <= 1000, `${top.milli}m`);
    await kubectl(['delete', 'pod', 'cpu-demo', '--namespace=cpu-example']);
    await apply('cpu-example', cpuDemo('cpu-demo-2', 'cpu-demo-ctr-2', '100', '100'));
    await eventually(async () => (await kubectl(['describe', 'pod', 'cpu-demo-2', '--namespace=cpu-example'])).stdout.includes(insufficient('cpu')), 60_000, 'Insufficient cpu');
    assert.match((await kubectl(['get', 'pod', 'cpu-demo-2', '--namespace=cpu-example'])).stdout, /^cpu-demo-2\s+0\/1\s+Pending\s+0\s/m);
  });

  it('Configure Quality of Service: Guaranteed, Burstable, BestEffort, Burstable (two containers)', async () => {
    await kubectl(['create', 'namespace', 'qos-example']);
    const both = (v: Record<string, string>) => ({ limits: v, requests: v });
    const pods: [string, string, RegExp][] = [
      [pod('qos-demo', [ctr('qos-demo-ctr', 'nginx', both({ memory: '200Mi', cpu: '700m' }))]), 'Guaranteed',
        /\n {4}resources:\n {6}limits:\n {8}cpu: 700m\n {8}memory: 200Mi\n {6}requests:\n {8}cpu: 700m\n {8}memory: 200Mi\n/],
      [pod('qos-demo-2', [ctr('qos-demo-2-ctr', 'nginx', { limits: { memory: '200Mi' }, requests: { memory: '100Mi' } })]), 'Burstable',
        /\n {2}- image: nginx\n {4}imagePullPolicy: Always\n {4}name: qos-demo-2-ctr\n {4}resources:\n {6}limits:\n {8}memory: 200Mi\n {6}requests:\n {8}memory: 100Mi\n/],
      [pod('qos-demo-3', [ctr('qos-demo-3-ctr', 'nginx', undefined)]), 'BestEffort', /\n {4}resources: \{\}\n/],
      [pod('qos-demo-4', [ctr('qos-demo-4-ctr-1', 'nginx', { requests: { memory: '200Mi' } }), ctr('qos-demo-4-ctr-2', 'redis', undefined)]), 'Burstable',
        /name: qos-demo-4-ctr-1\n {4}resources:\n {6}requests:\n {8}memory: 200Mi\n[\s\S]*name: qos-demo-4-ctr-2\n {4}resources: \{\}\n/],
    ];
    for (const [manifest, qos, resources] of pods) {
      const name = JSON.parse(manifest).metadata.name;
      assert.equal((await apply('qos-example', manifest)).stdout, `pod/${name} created\n`);
      const yaml = (await kubectl(['get', 'pod', name, '--namespace=qos-example', '--output=yaml'])).stdout;
      assert.match(yaml, new RegExp(`\\n {2}qosClass: ${qos}\\n`), name);
      assert.match(yaml, resources, name);
      assert.equal((await kubectl(['delete', 'pod', name, '--namespace=qos-example'])).stdout, `pod "${name}" deleted\n`);
    }
    // The page's note: a limit without a request gets the limit as its request (Guaranteed).
    await apply('qos-example', pod('qos-limits-only', [ctr('c', 'nginx', { limits: { memory: '200Mi', cpu: '700m' } })]));
    const yaml = (await kubectl(['get', 'pod', 'qos-limits-only', '--namespace=qos-example', '--output=yaml'])).stdout;
    assert.match(yaml, /\n {6}requests:\n {8}cpu: 700m\n {8}memory: 200Mi\n[\s\S]*\n {2}qosClass: Guaranteed\n/);
  });

  it('Default Memory and CPU Requests and Limits for a Namespace: the LimitRange\'s defaults, a limit alone, a request alone', async () => {
    const cases: [string, string, string, [Record<string, Record<string, string>> | undefined, RegExp][]][] = [
      ['default-mem-example', 'default-mem-demo', limitRange('mem-limit-range', { default: { memory: '512Mi' }, defaultRequest: { memory: '256Mi' } }), [
        [undefined, /limits:\n {8}memory: 512Mi\n {6}requests:\n {8}memory: 256Mi\n/],
        [{ limits: { memory: '1Gi' } }, /limits:\n {8}memory: 1Gi\n {6}requests:\n {8}memory: 1Gi\n/],
        [{ requests: { memory: '128Mi' } }, /limits:\n {8}memory: 512Mi\n {6}requests:\n {8}memory: 128Mi\n/],
      ]],
      ['default-cpu-example', 'default-cpu-demo', limitRange('cpu-limit-range', { default: { cpu: '1' }, defaultRequest: { cpu: '0.5' } }), [
        [undefined, /limits:\n {8}cpu: "1"\n {6}requests:\n {8}cpu: 500m\n/],
        [{ limits: { cpu: '1' } }, /limits:\n {8}cpu: "1"\n {6}requests:\n {8}cpu: "1"\n/],
        [{ requests: { cpu: '0.75' } }, /limits:\n {8}cpu: "1"\n {6}requests:\n {8}cpu: 750m\n/],
      ]],
    ];
    for (const [ns, base, lr, pods] of cases) {
      await kubectl(['create', 'namespace', ns]);
      assert.match((await apply(ns, lr)).stdout, /^limitrange\/\S+ created\n$/);
      for (const [i, [resources, want]] of pods.entries()) {
        const name = i ? `${base}-${i + 1}` : base;
        await apply(ns, pod(name, [ctr(`${name}-ctr`, 'nginx', resources)]));
        assert.match((await kubectl(['get', 'pod', name, '--output=yaml', `--namespace=${ns}`])).stdout, new RegExp(`name: ${name}-ctr\\n {4}resources:\\n {6}${want.source}`), name);
      }
    }
  });

  it('Minimum and Maximum Memory and CPU Constraints: defaults filled in, too large and too small refused in the LimitRanger\'s words', async () => {
    const cases: [string, string, string, string, Record<string, string>, [Record<string, string>, Record<string, string>, string][], RegExp][] = [
      ['constraints-mem-example', 'constraints-mem-demo', 'mem-min-max-demo-lr', 'memory', { max: '1Gi', min: '500Mi' }, [
        [{ memory: '800Mi' }, { memory: '600Mi' }, ''],
        [{ memory: '1.5Gi' }, { memory: '800Mi' }, 'maximum memory usage per Container is 1Gi, but limit is 1536Mi'],
        [{ memory: '800Mi' }, { memory: '100Mi' }, 'minimum memory usage per Container is 500Mi, but request is 100Mi'],
      ], /limits:\n {8}memory: 1Gi\n {6}requests:\n {8}memory: 1Gi\n/],
      ['constraints-cpu-example', 'constraints-cpu-demo', 'cpu-min-max-demo-lr', 'cpu', { max: '800m', min: '200m' }, [
        [{ cpu: '800m' }, { cpu: '500m' }, ''],
        [{ cpu: '1.5' }, { cpu: '500m' }, 'maximum cpu usage per Container is 800m, but limit is 1500m'],
        [{ cpu: '800m' }, { cpu: '100m' }, 'minimum cpu usage per Container is 200m, but request is 100m'],
      ], /limits:\n {8}cpu: 800m\n {6}requests:\n {8}cpu: 800m\n/],
    ];
    for (const [ns, base, lrName, r, bounds, pods, defaulted] of cases) {
      await kubectl(['create', 'namespace', ns]);
      await apply(ns, limitRange(lrName, { max: { [r]: bounds.max! }, min: { [r]: bounds.min! } }));
      const lr = (await kubectl(['get', 'limitrange', lrName, '--output=yaml', `--namespace=${ns}`])).stdout;
      assert.match(lr, new RegExp(`\\n {2}limits:\\n {2}- default:\\n {6}${r}: ${bounds.max}\\n {4}defaultRequest:\\n {6}${r}: ${bounds.max}\\n {4}max:\\n {6}${r}: ${bounds.max}\\n {4}min:\\n {6}${r}: ${bounds.min}\\n {4}type: Container\\n`));
      for (const [i, [limits, requests, refusal]] of pods.entries()) {
        const name = i ? `${base}-${i + 1}` : base;
        const res = await apply(ns, pod(name, [ctr(`${name}-ctr`, 'nginx', { limits, requests })]), true);
        if (!refusal) { assert.equal(res.stdout, `pod/${name} created\n`); continue; }
        assert.equal(res.stderr, `Error from server (Forbidden): error when creating "STDIN": pods "${name}" is forbidden: ${refusal}\n`);
      }
      await kubectl(['delete', 'pod', base, `--namespace=${ns}`]);
      await apply(ns, pod(`${base}-4`, [ctr(`${base}-4-ctr`, 'nginx', undefined)]));
      assert.match((await kubectl(['get', 'pod', `${base}-4`, `--namespace=${ns}`, '--output=yaml'])).stdout, defaulted);
    }
  });

  it('Memory and CPU Quotas for a Namespace: used in the pods\' units; the second pod exceeds requests.memory', async () => {
    const ns = 'quota-mem-cpu-example';
    await kubectl(['create', 'namespace', ns]);
    await apply(ns, resourceQuota('mem-cpu-demo', { 'requests.cpu': '1', 'requests.memory': '1Gi', 'limits.cpu': '2', 'limits.memory': '2Gi' }));
    const hard = '  hard:\n    limits.cpu: "2"\n    limits.memory: 2Gi\n    requests.cpu: "1"\n    requests.memory: 1Gi\n';
    await eventually(async () => (await kubectl(['get', 'resourcequota', 'mem-cpu-demo', `--namespace=${ns}`, '--output=yaml'])).stdout.includes(`status:\n${hard}  used:\n`), 60_000, 'the quota counted');
    await apply(ns, pod('quota-mem-cpu-demo', [ctr('quota-mem-cpu-demo-ctr', 'nginx', { limits: { memory: '800Mi', cpu: '800m' }, requests: { memory: '600Mi', cpu: '400m' } })]));
    await eventually(async () => /^quota-mem-cpu-demo\s+1\/1\s+Running\s/m.test((await kubectl(['get', 'pod', 'quota-mem-cpu-demo', `--namespace=${ns}`])).stdout), 60_000, 'Running');
    const used = 'status:\n' + hard + '  used:\n    limits.cpu: 800m\n    limits.memory: 800Mi\n    requests.cpu: 400m\n    requests.memory: 600Mi\n';
    await eventually(async () => (await kubectl(['get', 'resourcequota', 'mem-cpu-demo', `--namespace=${ns}`, '--output=yaml'])).stdout.endsWith(used), 60_000, 'the page\'s status',
      async () => (await kubectl(['get', 'resourcequota', 'mem-cpu-demo', `--namespace=${ns}`, '--output=yaml'])).stdout);
    const second = await apply(ns, pod('quota-mem-cpu-demo-2', [ctr('quota-mem-cpu-demo-2-ctr', 'redis', { limits: { memory: '1Gi', cpu: '800m' }, requests: { memory: '700Mi', cpu: '400m' } })]), true);
    assert.equal(second.stderr, 'Error from server (Forbidden): error when creating "STDIN": pods "quota-mem-cpu-demo-2" is forbidden: exceeded quota: mem-cpu-demo, '
      + 'requested: requests.memory=700Mi, used: requests.memory=600Mi, limited: requests.memory=1Gi\n');
  });

  it('Configure a Pod Quota for a Namespace: a Deployment of 3 replicas gets 2 pods; the quota error is in its status and events', async () => {
    const ns = 'quota-pod-example';
    await kubectl(['create', 'namespace', ns]);
    await apply(ns, resourceQuota('pod-demo', { pods: '2' }));
    await eventually(async () => (await kubectl(['get', 'resourcequota', 'pod-demo', `--namespace=${ns}`, '--output=yaml'])).stdout
      .endsWith('spec:\n  hard:\n    pods: "2"\nstatus:\n  hard:\n    pods: "2"\n  used:\n    pods: "0"\n'), 60_000, 'pods used 0');
    assert.equal((await apply(ns, podQuotaDeployment)).stdout, 'deployment.apps/pod-quota-demo created\n');
    const yaml = await eventually(async () => {
      const y = (await kubectl(['get', 'deployment', 'pod-quota-demo', `--namespace=${ns}`, '--output=yaml'])).stdout;
      return /\n {2}availableReplicas: 2\n/.test(y) && /reason: FailedCreate/.test(y) && y;
    }, 120_000, 'two available replicas and the ReplicaFailure condition');
    assert.match(yaml, /\n {2}replicas: 3\n/);
    // YAML folds the long message where it passes 80 columns, which moves with the generated name's length.
    assert.match(yaml, /message: 'pods "pod-quota-demo-[a-z0-9]+-[a-z0-9]+"\s+is\s+forbidden:\s+exceeded\s+quota:\s+pod-demo,\s+requested:\s+pods=1,\s+used:\s+pods=2,\s+limited:\s+pods=2'\n {4}reason: FailedCreate\n {4}status: "True"\n {4}type: ReplicaFailure\n/);
    const pods = (await kubectl(['get', 'pods', `--namespace=${ns}`, '--no-headers'])).stdout.trim().split('\n');
    assert.equal(pods.length, 2, pods.join('\n'));
    assert.match((await kubectl(['describe', 'replicaset', `--namespace=${ns}`])).stdout,
      /Warning\s+FailedCreate\s+.*replicaset-controller\s+Error creating: pods "pod-quota-demo-\S+" is forbidden: exceeded quota: pod-demo, requested: pods=1, used: pods=2, limited: pods=2\n/);
  });
});
