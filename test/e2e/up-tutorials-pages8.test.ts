/**
 * More kubernetes.io pages, command by command with the real kubectl 1.32
 * (and curl, sed and bash, where the pages use them) on `npm start`'s
 * simulated nodes, where k8ts once answered unlike upstream:
 *  - Advertise Extended Resources for a Node and Assign Extended Resources
 *    to a Container: the four dongles PATCHed into the node's
 *    status.capacity never reached status.allocatable (the kubelet posted its
 *    own capacity only), so extended-resource-demo stayed Pending with
 *    `Insufficient example.com/dongle`; now, as upstream's MachineInfo
 *    setter, the kubelet keeps what was added to capacity, makes all of it
 *    allocatable, and drops a removed extended resource from allocatable;
 *  - Adding entries to Pod /etc/hosts with HostAliases: the hosts file had
 *    no `# Entries added by HostAliases.` section; now it has the page's;
 *  - DNS for Services and Pods: `hostname -f` in busybox-1 (hostname and
 *    subdomain behind a headless Service) printed `busybox-1`; now, as the
 *    resolver reads the kubelet's /etc/hosts, its FQDN.
 * Walked and answering as upstream already, checked here so they stay so:
 * Namespaces Walkthrough (the JSON namespaces, `config set-context` and
 * `use-context`, snowflake and cattle), Parallel Processing using Expansions
 * (the sed loop, `create -f ./jobs`, `logs -f -l`, the Jinja2-rendered
 * stream), Configure Quotas for API Objects, Change the default StorageClass
 * (and the newest of two defaults, and a claim made while none was default
 * getting one later) and Change the Reclaim Policy of a PersistentVolume.
 * The Pod DNS config's resolv.conf is written in containerd's order (search
 * first), where the page shows Docker's (nameserver first).
 * Every wait polls a condition with a generous deadline; nothing is timed.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { copyFileSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { eventually } from './harness.js';
import { kubectlProxy } from './helpers.js';
import { startUp, type UpCluster } from './up-cluster.js';
import * as m from './up-tutorials-pages8-manifests.js';

/** A program as the pages run it (curl, bash), in `cwd`. */
function run(cmd: string, args: string[], cwd?: string): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(cmd, args, { timeout: 30_000, cwd }, (err, stdout, stderr) => (err ? reject(new Error(`${cmd} ${args.join(' ')}: ${stderr || err.message}`)) : resolve(stdout)));
  });
}

const hostsBoilerplate = '# Kubernetes-managed hosts file.\n127.0.0.1\tlocalhost\n::1\tlocalhost ip6-localhost ip6-loopback\n'
  + 'fe00::0\tip6-localnet\nfe00::0\tip6-mcastprefix\nfe00::1\tip6-allnodes\nfe00::2\tip6-allrouters\n';

describe('k8ts up: the namespaces walkthrough, extended resources, HostAliases, Job expansions, object quotas, pod DNS and storage class pages on simulated nodes', () => {
  let up: UpCluster;
  let proxyPort = '';
  let stopProxy = () => {};
  const kubectl = (args: string[], input?: string, allowFail = false) => up.kubectl(args, input, allowFail);
  const out = async (args: string[], input?: string) => (await kubectl(args, input)).stdout;
  const file = (name: string, text: string) => { const path = join(up.dir, name); writeFileSync(path, text); return path; };
  const phase = (pod: string, want: string) => eventually(async () => (await out(['get', 'pod', pod, '-o', 'jsonpath={.status.phase}'])) === want || undefined, 120_000, `${pod} ${want}`);
  const rows = async (args: string[]) => (await out(args)).trim().split('\n').slice(1).map((l) => l.trim().split(/\s+/));
  const podIP = (pod: string) => out(['get', 'pod', pod, '-o', 'jsonpath={.status.podIP}']);

  before(async () => {
    up = await startUp('k8ts-e2e-tut-pages8-');
    ({ port: proxyPort, stop: stopProxy } = await kubectlProxy(up.kubeconfig));
  });
  after(async () => { stopProxy(); await up?.close(); });

  it('Namespaces Walkthrough: development and production, a context for each, snowflake in one and cattle in the other', async () => {
    // The user's own kubeconfig (the page's ~/.kube/config), which set-context writes.
    const own = join(up.dir, 'config');
    copyFileSync(up.kubeconfig, own);
    const k = (args: string[]) => kubectl(['--kubeconfig', own, ...args], undefined, true);
    assert.deepEqual((await rows(['get', 'namespaces'])).find((r) => r[0] === 'default')?.slice(0, 2), ['default', 'Active']);
    assert.equal(await out(['create', '-f', file('namespace-dev.json', m.namespaceDev)]), 'namespace/development created\n');
    assert.equal(await out(['create', '-f', file('namespace-prod.json', m.namespaceProd)]), 'namespace/production created\n');
    const labels = Object.fromEntries((await rows(['get', 'namespaces', '--show-labels'])).map((r) => [r[0], r.at(-1)]));
    assert.equal(labels.development, 'kubernetes.io/metadata.name=development,name=development');
    assert.equal(labels.production, 'kubernetes.io/metadata.name=production,name=production');
    const current = (await k(['config', 'current-context'])).stdout.trim();
    const cluster = (await k(['config', 'view', '-o', `jsonpath={.contexts[?(@.name=="${current}")].context.cluster}`])).stdout;
    const user = (await k(['config', 'view', '-o', `jsonpath={.contexts[?(@.name=="${current}")].context.user}`])).stdout;
    assert.equal((await k(['config', 'set-context', 'dev', '--namespace=development', `--cluster=${cluster}`, `--user=${user}`])).stdout, 'Context "dev" created.\n');
    assert.equal((await k(['config', 'set-context', 'prod', '--namespace=production', `--cluster=${cluster}`, `--user=${user}`])).stdout, 'Context "prod" created.\n');
    assert.match((await k(['config', 'view'])).stdout, /- context:\n {4}cluster: \S+\n {4}namespace: development\n {4}user: \S+\n {2}name: dev\n/);
    assert.equal((await k(['config', 'use-context', 'dev'])).stdout, 'Switched to context "dev".\n');
    assert.equal((await k(['config', 'current-context'])).stdout, 'dev\n');
    assert.equal((await k(['apply', '-f', file('snowflake-deployment.yaml', m.snowflakeDeployment)])).stdout, 'deployment.apps/snowflake created\n');
    await eventually(async () => (await k(['get', 'deployment'])).stdout.match(/\nsnowflake\s+2\/2\s+2\s+2\s/) || undefined, 60_000, 'snowflake 2/2');
    // The page's `-l run=snowflake` selects nothing (its Deployment labels app=snowflake), as on any cluster.
    assert.equal((await k(['get', 'pods', '-l', 'run=snowflake'])).stderr, 'No resources found in development namespace.\n');
    const snowflakes = (await k(['get', 'pods', '-l', 'app=snowflake'])).stdout.trim().split('\n').slice(1);
    assert.equal(snowflakes.length, 2);
    for (const p of snowflakes) assert.match(p, /^snowflake-[a-z0-9]+-[a-z0-9]{5}\s+1\/1\s+Running\s+0\s/);
    assert.equal((await k(['config', 'use-context', 'prod'])).stdout, 'Switched to context "prod".\n');
    assert.equal((await k(['get', 'deployment'])).stderr, 'No resources found in production namespace.\n');
    assert.equal((await k(['get', 'pods'])).stderr, 'No resources found in production namespace.\n');
    assert.equal((await k(['create', 'deployment', 'cattle', '--image=k8s.gcr.io/serve_hostname'])).stdout, 'deployment.apps/cattle created\n');
    assert.equal((await k(['scale', 'deployment', 'cattle', '--replicas=5'])).stdout, 'deployment.apps/cattle scaled\n');
    await eventually(async () => (await k(['get', 'deployment'])).stdout.match(/^NAME\s+READY\s+UP-TO-DATE\s+AVAILABLE\s+AGE\ncattle\s+5\/5\s+5\s+5\s+\S+\n$/) || undefined, 60_000, 'cattle 5/5');
    const cattle = (await k(['get', 'pods', '-l', 'app=cattle'])).stdout.trim().split('\n').slice(1);
    assert.equal(cattle.length, 5);
    for (const p of cattle) assert.match(p, /^cattle-[a-z0-9]+-[a-z0-9]{5}\s+1\/1\s+Running\s+0\s/);
    // What one namespace holds the other does not show.
    assert.equal((await k(['get', 'pods', '-l', 'app=snowflake'])).stderr, 'No resources found in production namespace.\n');
    await kubectl(['delete', 'namespace', 'development', 'production', '--wait=false']);
  });

  it('Advertise Extended Resources for a Node and Assign Extended Resources to a Container: four dongles, a pod of 3 runs, one of 2 does not fit', async () => {
    const patch = (op: string) => run('curl', ['-sS', '--header', 'Content-Type: application/json-patch+json', '--request', 'PATCH', '--data',
      op === 'add' ? '[{"op": "add", "path": "/status/capacity/example.com~1dongle", "value": "4"}]' : '[{"op": "remove", "path": "/status/capacity/example.com~1dongle"}]',
      `http://localhost:${proxyPort}/api/v1/nodes/worker1/status`]);
    const added = JSON.parse(await patch('add'));
    assert.equal(added.status.capacity['example.com/dongle'], '4');
    assert.match(await out(['describe', 'node', 'worker1']), /\nCapacity:\n(?: {2}\S+: +\S+\n)* {2}example\.com\/dongle: {2}4\n/);
    // The kubelet's next status makes them allocatable (upstream's MachineInfo setter), which the scheduler counts.
    await eventually(async () => (await out(['get', 'node', 'worker1', '-o', 'jsonpath={.status.allocatable.example\\.com/dongle}'])) === '4' || undefined, 60_000, 'the dongles allocatable');
    assert.equal(await out(['apply', '-f', file('extended-resource-pod.yaml', m.extendedResourcePod)]), 'pod/extended-resource-demo created\n');
    await phase('extended-resource-demo', 'Running');
    assert.match(await out(['get', 'pod', 'extended-resource-demo']), /\nextended-resource-demo\s+1\/1\s+Running\s+0\s/);
    assert.equal(await out(['get', 'pod', 'extended-resource-demo', '-o', 'jsonpath={.spec.nodeName}']), 'worker1');
    assert.match(await out(['describe', 'pod', 'extended-resource-demo']), /\n {4}Limits:\n {6}example\.com\/dongle: {2}3\n {4}Requests:\n {6}example\.com\/dongle: {2}3\n/);
    assert.equal(await out(['apply', '-f', file('extended-resource-pod-2.yaml', m.extendedResourcePod2)]), 'pod/extended-resource-demo-2 created\n');
    const message = '0/3 nodes are available: 1 node(s) had untolerated taint {node-role.kubernetes.io/control-plane: }, 2 Insufficient example.com/dongle. '
      + 'preemption: 0/3 nodes are available: 1 Preemption is not helpful for scheduling, 2 No preemption victims found for incoming pod.';
    const described = await eventually(async () => {
      const d = await out(['describe', 'pod', 'extended-resource-demo-2']);
      return d.includes('FailedScheduling') ? d : undefined;
    }, 60_000, 'the FailedScheduling event');
    assert.match(described, /\nConditions:\n {2}Type {11}Status\n {2}PodScheduled {3}False \n/);
    assert.match(described, new RegExp(`Warning\\s+FailedScheduling\\s+\\S+\\s+default-scheduler\\s+${message.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\n`));
    assert.match(await out(['get', 'pod', 'extended-resource-demo-2']), /\nextended-resource-demo-2\s+0\/1\s+Pending\s+0\s/);
    assert.equal(await out(['delete', 'pod', 'extended-resource-demo', '--now']), 'pod "extended-resource-demo" deleted\n');
    assert.equal(await out(['delete', 'pod', 'extended-resource-demo-2']), 'pod "extended-resource-demo-2" deleted\n');
    assert.equal(JSON.parse(await patch('remove')).status.capacity['example.com/dongle'], undefined);
    // `kubectl describe node | grep dongle`: nothing, once the kubelet dropped them from allocatable too.
    await eventually(async () => !(await out(['describe', 'node', 'worker1'])).includes('dongle') || undefined, 60_000, 'no dongle left on worker1');
  });

  it('Adding entries to Pod /etc/hosts with HostAliases: the default hosts file, then the aliases under their heading', async () => {
    assert.equal(await out(['run', 'nginx', '--image', 'nginx']), 'pod/nginx created\n');
    await phase('nginx', 'Running');
    const ip = await podIP('nginx');
    assert.match(await out(['get', 'pods', '--output=wide']), new RegExp(`\\nnginx\\s+1/1\\s+Running\\s+0\\s+\\S+\\s+${ip.replace(/\./g, '\\.')}\\s+worker\\d\\s`));
    assert.equal(await out(['exec', 'nginx', '--', 'cat', '/etc/hosts']), `${hostsBoilerplate}${ip}\tnginx\n`);
    assert.equal(await out(['apply', '-f', file('hostaliases-pod.yaml', m.hostaliasesPod)]), 'pod/hostaliases-pod created\n');
    await phase('hostaliases-pod', 'Succeeded');
    const aliasIP = await podIP('hostaliases-pod');
    assert.match(await out(['get', 'pod', '--output=wide']), /\nhostaliases-pod\s+0\/1\s+Completed\s+0\s/);
    assert.equal(await out(['logs', 'hostaliases-pod']), `${hostsBoilerplate}${aliasIP}\thostaliases-pod\n`
      + '\n# Entries added by HostAliases.\n127.0.0.1\tfoo.local\tbar.local\n10.1.2.3\tfoo.remote\tbar.remote\n');
    await kubectl(['delete', 'pod', 'nginx', 'hostaliases-pod', '--now']);
  });

  it('Parallel Processing using Expansions: the sed loop, create -f ./jobs, the Jobs and pods by label, logs -f -l, the Jinja2 stream', async () => {
    file('job-tmpl.yaml', m.jobTmpl);
    mkdirSync(join(up.dir, 'jobs'));
    await run('bash', ['-c', 'for i in apple banana cherry\ndo\n  cat job-tmpl.yaml | sed "s/\\$ITEM/$i/" > ./jobs/job-$i.yaml\ndone'], up.dir);
    assert.deepEqual(readdirSync(join(up.dir, 'jobs')).sort(), ['job-apple.yaml', 'job-banana.yaml', 'job-cherry.yaml']);
    assert.equal(await out(['create', '-f', join(up.dir, 'jobs')]),
      'job.batch/process-item-apple created\njob.batch/process-item-banana created\njob.batch/process-item-cherry created\n');
    const jobs = await eventually(async () => {
      const r = await rows(['get', 'jobs', '-l', 'jobgroup=jobexample']);
      return r.length === 3 && r.every((j) => j[1] === 'Complete') ? r : undefined;
    }, 120_000, 'the three Jobs Complete');
    assert.deepEqual(jobs.map((j) => j.slice(0, 3)), [['process-item-apple', 'Complete', '1/1'], ['process-item-banana', 'Complete', '1/1'], ['process-item-cherry', 'Complete', '1/1']]);
    const pods = await rows(['get', 'pods', '-l', 'jobgroup=jobexample']);
    assert.deepEqual(pods.map((p) => [p[0]!.replace(/-[a-z0-9]{5}$/, ''), ...p.slice(1, 4)]), [
      ['process-item-apple', '0/1', 'Completed', '0'], ['process-item-banana', '0/1', 'Completed', '0'], ['process-item-cherry', '0/1', 'Completed', '0']]);
    // kubectl follows the three pods at once, so their lines come in any order.
    const logs = (await out(['logs', '-f', '-l', 'jobgroup=jobexample'])).trim().split('\n').sort();
    assert.deepEqual(logs, ['Processing item apple', 'Processing item banana', 'Processing item cherry']);
    assert.equal(await out(['delete', 'job', '-l', 'jobgroup=jobexample']),
      'job.batch "process-item-apple" deleted\njob.batch "process-item-banana" deleted\njob.batch "process-item-cherry" deleted\n');
    // cat job.yaml.jinja2 | render_template | kubectl apply -f -
    assert.equal(await out(['apply', '-f', '-'], m.jobsRendered), 'job.batch/jobexample-apple created\njob.batch/jobexample-banana created\njob.batch/jobexample-cherry created\n');
    await eventually(async () => {
      const r = await rows(['get', 'jobs', '-l', 'jobgroup=jobexample']);
      return r.length === 3 && r.every((j) => j[1] === 'Complete') || undefined;
    }, 120_000, 'the rendered Jobs Complete');
    assert.deepEqual((await out(['logs', '-l', 'jobgroup=jobexample'])).trim().split('\n').sort(), ['Apple', 'Banana', 'Cherry'].map((f) => `Processing URL http://dbpedia.org/resource/${f}`));
    assert.equal(await out(['delete', 'job', '-l', 'jobgroup=jobexample']),
      'job.batch "jobexample-apple" deleted\njob.batch "jobexample-banana" deleted\njob.batch "jobexample-cherry" deleted\n');
  });

  it('Configure Quotas for API Objects: one claim, no NodePort Services, the second claim refused in upstream\'s words', async () => {
    const ns = '--namespace=quota-object-example';
    assert.equal(await out(['create', 'namespace', 'quota-object-example']), 'namespace/quota-object-example created\n');
    assert.equal(await out(['apply', '-f', file('quota-objects.yaml', m.quotaObjects), ns]), 'resourcequota/object-quota-demo created\n');
    const status = await eventually(async () => {
      const s = JSON.parse((await out(['get', 'resourcequota', 'object-quota-demo', ns, '--output=json']))).status;
      return s?.used ? s : undefined;
    }, 30_000, 'the quota\'s status');
    assert.deepEqual(status, {
      hard: { persistentvolumeclaims: '1', 'services.loadbalancers': '2', 'services.nodeports': '0' },
      used: { persistentvolumeclaims: '0', 'services.loadbalancers': '0', 'services.nodeports': '0' },
    });
    assert.match(await out(['get', 'resourcequota', 'object-quota-demo', ns, '--output=yaml']),
      /\nstatus:\n {2}hard:\n {4}persistentvolumeclaims: "1"\n {4}services\.loadbalancers: "2"\n {4}services\.nodeports: "0"\n {2}used:\n {4}persistentvolumeclaims: "0"\n {4}services\.loadbalancers: "0"\n {4}services\.nodeports: "0"\n/);
    assert.equal(await out(['apply', '-f', file('quota-objects-pvc.yaml', m.quotaObjectsPvc), ns]), 'persistentvolumeclaim/pvc-quota-demo created\n');
    assert.deepEqual((await rows(['get', 'persistentvolumeclaims', ns])).map((r) => r.slice(0, 2)), [['pvc-quota-demo', 'Pending']]);
    const second = await kubectl(['apply', '-f', file('quota-objects-pvc-2.yaml', m.quotaObjectsPvc2), ns], undefined, true);
    assert.equal(second.code, 1);
    assert.equal(second.stderr, `Error from server (Forbidden): error when creating "${join(up.dir, 'quota-objects-pvc-2.yaml')}": persistentvolumeclaims "pvc-quota-demo-2" is forbidden: `
      + 'exceeded quota: object-quota-demo, requested: persistentvolumeclaims=1, used: persistentvolumeclaims=1, limited: persistentvolumeclaims=1\n');
    const nodePort = await kubectl(['create', 'service', 'nodeport', 'np', '--tcp=80', ns], undefined, true);
    assert.equal(nodePort.stderr, 'error: failed to create NodePort service: services "np" is forbidden: exceeded quota: object-quota-demo, '
      + 'requested: services.nodeports=1, used: services.nodeports=0, limited: services.nodeports=0\n');
    assert.equal(await out(['delete', 'namespace', 'quota-object-example', '--wait=false']), 'namespace "quota-object-example" deleted\n');
  });

  it('DNS for Services and Pods: hostname and subdomain behind a headless Service, ClusterFirstWithHostNet, the Pod DNS config', async () => {
    assert.equal(await out(['apply', '-f', file('subdomain.yaml', m.subdomainPods)]), 'service/busybox-subdomain created\npod/busybox1 created\npod/busybox2 created\n');
    assert.equal(await out(['apply', '-f', file('hostnet.yaml', m.hostNetworkBusybox)]), 'pod/busybox created\n');
    assert.equal(await out(['apply', '-f', file('custom-dns.yaml', m.customDns)]), 'pod/dns-example created\n');
    for (const p of ['busybox1', 'busybox2', 'busybox', 'dns-example']) await phase(p, 'Running');
    const fqdn = 'busybox-1.busybox-subdomain.default.svc.cluster.local';
    assert.equal(await out(['exec', 'busybox1', '--', 'hostname']), 'busybox-1\n');
    assert.equal(await out(['exec', 'busybox1', '--', 'hostname', '-f']), `${fqdn}\n`);
    assert.equal(await out(['exec', 'busybox1', '--', 'cat', '/etc/hosts']), `${hostsBoilerplate}${await podIP('busybox1')}\t${fqdn}\tbusybox-1\n`);
    const ip2 = await podIP('busybox2');
    const two = await eventually(async () => {
      const r = await kubectl(['exec', 'busybox1', '--', 'nslookup', 'busybox-2.busybox-subdomain.default.svc.cluster.local'], undefined, true);
      return r.code === 0 ? r.stdout : undefined;
    }, 60_000, 'busybox-2\'s A record');
    assert.match(two, new RegExp(`\\nName: {6}busybox-2\\.busybox-subdomain\\.default\\.svc\\.cluster\\.local\\nAddress 1: ${ip2.replace(/\./g, '\\.')} busybox-2\\.busybox-subdomain\\.default\\.svc\\.cluster\\.local\\n`));
    const clusterDNS = await out(['get', 'service', 'kube-dns', '-n', 'kube-system', '-o', 'jsonpath={.spec.clusterIP}']);
    assert.equal(await out(['exec', 'busybox', '--', 'cat', '/etc/resolv.conf']),
      `search default.svc.cluster.local svc.cluster.local cluster.local\nnameserver ${clusterDNS}\noptions ndots:5\n`);
    // containerd writes search, nameserver, options in that order (the page shows Docker's, nameserver first).
    assert.equal(await out(['exec', 'dns-example', '--', 'cat', '/etc/resolv.conf']),
      'search ns1.svc.cluster-domain.example my.dns.search.suffix\nnameserver 192.0.2.1\noptions ndots:2 edns0\n');
    await kubectl(['delete', 'pod', 'busybox1', 'busybox2', 'busybox', 'dns-example', '--now']);
    await kubectl(['delete', 'service', 'busybox-subdomain']);
  });

  it('Change the Reclaim Policy of a PersistentVolume and Change the default StorageClass', async () => {
    const claim = (name: string) => `apiVersion: v1\nkind: PersistentVolumeClaim\nmetadata:\n  name: ${name}\nspec:\n  accessModes: [ReadWriteOnce]\n  resources:\n    requests:\n      storage: 4Gi\n`;
    for (const c of ['claim1', 'claim2', 'claim3']) await out(['apply', '-f', '-'], claim(c));
    // local-path binds when a pod uses the claims (WaitForFirstConsumer).
    await out(['apply', '-f', '-'], 'apiVersion: v1\nkind: Pod\nmetadata:\n  name: claims\nspec:\n  containers:\n  - name: c\n    image: nginx\n'
      + '    volumeMounts: [{name: a, mountPath: /a}, {name: b, mountPath: /b}, {name: c, mountPath: /c}]\n'
      + '  volumes:\n  - {name: a, persistentVolumeClaim: {claimName: claim1}}\n  - {name: b, persistentVolumeClaim: {claimName: claim2}}\n  - {name: c, persistentVolumeClaim: {claimName: claim3}}\n');
    const pvs = await eventually(async () => {
      const r = await rows(['get', 'pv']);
      return r.length === 3 && r.every((v) => v[4] === 'Bound') ? r : undefined;
    }, 60_000, 'three PVs Bound');
    assert.deepEqual(pvs.map((v) => v.slice(1, 7)).sort((a, b) => a[4]!.localeCompare(b[4]!)),
      ['claim1', 'claim2', 'claim3'].map((c) => ['4Gi', 'RWO', 'Delete', 'Bound', `default/${c}`, 'local-path']));
    const pv3 = pvs.find((v) => v[5] === 'default/claim3')![0]!;
    assert.equal(await out(['patch', 'pv', pv3, '-p', '{"spec":{"persistentVolumeReclaimPolicy":"Retain"}}']), `persistentvolume/${pv3} patched\n`);
    const policies = Object.fromEntries((await rows(['get', 'pv'])).map((v) => [v[5], v[3]]));
    assert.deepEqual(policies, { 'default/claim1': 'Delete', 'default/claim2': 'Delete', 'default/claim3': 'Retain' });
    await kubectl(['delete', 'pod', 'claims', '--now']);
    await kubectl(['delete', 'pvc', 'claim1', 'claim3']);
    // claim1's volume goes with it; claim3's stays, Released, for its data to be recovered.
    await eventually(async () => {
      // Rows come in the PVs' (random) name order: compare claim by claim, not as text.
      const r = (await rows(['get', 'pv'])).map((v) => `${v[5]} ${v[4]}`).sort();
      return r.join(', ') === 'default/claim2 Bound, default/claim3 Released' || undefined;
    }, 60_000, 'claim1\'s PV deleted, claim3\'s Released');

    await out(['apply', '-f', '-'], 'apiVersion: storage.k8s.io/v1\nkind: StorageClass\nmetadata:\n  name: gold\nprovisioner: rancher.io/local-path\nvolumeBindingMode: WaitForFirstConsumer\n');
    assert.deepEqual((await rows(['get', 'storageclass'])).map((r) => r.slice(0, 3)), [['gold', 'rancher.io/local-path', 'Delete'], ['local-path', '(default)', 'rancher.io/local-path']]);
    assert.equal(await out(['patch', 'storageclass', 'local-path', '-p', '{"metadata": {"annotations":{"storageclass.kubernetes.io/is-default-class":"false"}}}']), 'storageclass.storage.k8s.io/local-path patched\n');
    assert.equal(await out(['patch', 'storageclass', 'gold', '-p', '{"metadata": {"annotations":{"storageclass.kubernetes.io/is-default-class":"true"}}}']), 'storageclass.storage.k8s.io/gold patched\n');
    assert.deepEqual((await rows(['get', 'storageclass'])).map((r) => r.slice(0, 3)), [['gold', '(default)', 'rancher.io/local-path'], ['local-path', 'rancher.io/local-path', 'Delete']]);
    await out(['apply', '-f', '-'], claim('claim4'));
    assert.equal(await out(['get', 'pvc', 'claim4', '-o', 'jsonpath={.spec.storageClassName}']), 'gold');
    // Two defaults: the newest wins (upstream since 1.26), not a refusal as the page's note still says.
    await out(['patch', 'storageclass', 'local-path', '-p', '{"metadata": {"annotations":{"storageclass.kubernetes.io/is-default-class":"true"}}}']);
    await out(['apply', '-f', '-'], claim('claim5'));
    assert.equal(await out(['get', 'pvc', 'claim5', '-o', 'jsonpath={.spec.storageClassName}']), 'gold');
    // No default: the claim has no class, and gets the default made later (retroactive default StorageClass).
    await out(['patch', 'storageclass', 'gold', '-p', '{"metadata": {"annotations":{"storageclass.kubernetes.io/is-default-class":"false"}}}']);
    await out(['patch', 'storageclass', 'local-path', '-p', '{"metadata": {"annotations":{"storageclass.kubernetes.io/is-default-class":"false"}}}']);
    await out(['apply', '-f', '-'], claim('claim6'));
    assert.equal(await out(['get', 'pvc', 'claim6', '-o', 'jsonpath={.spec.storageClassName}']), '');
    await out(['patch', 'storageclass', 'gold', '-p', '{"metadata": {"annotations":{"storageclass.kubernetes.io/is-default-class":"true"}}}']);
    await eventually(async () => (await out(['get', 'pvc', 'claim6', '-o', 'jsonpath={.spec.storageClassName}'])) === 'gold' || undefined, 60_000, 'claim6 given gold');
  });
});
