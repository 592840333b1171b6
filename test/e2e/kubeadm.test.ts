/**
 * kubeadm-style clusters (issue #8): `k8ts init` on a prefix in a temp dir,
 * with kubeadm's phases and output, the node Ready and marked control-plane,
 * the seed DaemonSet on it, `k8ts reset`; preflight and join failures that
 * write nothing. Nodes share the host network on loopback with their own ports.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { X509Certificate } from 'node:crypto';
import { parse } from 'yaml';
import { eventually, seedsDir } from './harness.js';
import { seedManifests } from './seed-manifests.js';
import { k8ts, freePort, tempPrefix, filesUnder, kubectl, type RunResult } from './kubeadm-node.js';
import { etcdPortArgs } from './kubeadm-node.js';
import { subjectOf } from '../../src/pki/index.js';
import { processAlive, type InstanceRecord } from '../../src/kubelet/runtime/process/records.js';

const kubeconfigUser = (file: string) => {
  const cfg = parse(readFileSync(file, 'utf8'));
  return subjectOf(new X509Certificate(Buffer.from(cfg.users[0].user['client-certificate-data'], 'base64').toString('utf8')));
};

/**
 * Every file under the prefix but the running kubelet's own pod state: its containers' records and logs and its
 * projected tokens change whenever a pod restarts or a token is refreshed (coredns, which the host-process
 * runtime cannot run, restarts with back-off; at load 38 twice during a second init), and no kubeadm verb writes
 * there.
 */
const notThePodsFiles = (prefix: string) => filesUnder(prefix).filter((f) => !f.startsWith('var/lib/kubelet/pods/') && !f.startsWith('var/log/pods/'));

describe('k8ts init and reset (kubeadm-style control plane)', () => {
  const prefix = tempPrefix('cp');
  const etc = join(prefix, 'etc/kubernetes');
  const admin = join(etc, 'admin.conf');
  let ports: { api: number; kubelet: number; cm: number; sched: number };
  let init: RunResult;
  let initArgs: string[];

  before(async () => {
    ports = { api: await freePort(), kubelet: await freePort(), cm: await freePort(), sched: await freePort() };
    initArgs = ['init', '--prefix', prefix, '--apiserver-advertise-address', '127.0.0.1', '--apiserver-bind-port', String(ports.api),
      '--node-name', 'control-plane', '--kubelet-port', String(ports.kubelet), '--controller-manager-port', String(ports.cm),
      '--scheduler-port', String(ports.sched), '--token-ttl', '2h', '--pod-network-cidr', '10.244.0.0/16', ...await etcdPortArgs(), '--runtime', 'process'];
    init = await k8ts(initArgs);
  });
  after(async () => {
    await k8ts(['reset', '--force', '--prefix', prefix]);
    rmSync(prefix, { recursive: true, force: true });
  });

  it('prints kubeadm\'s phases and the join command with the CA hash', () => {
    assert.equal(init.code, 0, init.stderr + init.stdout);
    for (const line of [
      '[init] Using Kubernetes version: v1.32.0',
      '[preflight] Running pre-flight checks',
      '[certs] Generating "ca" certificate and key',
      '[certs] Generating "apiserver" certificate and key',
      '[certs] Generating "apiserver-kubelet-client" certificate and key',
      '[certs] Generating "front-proxy-ca" certificate and key',
      '[certs] Generating "front-proxy-client" certificate and key',
      '[certs] Generating "sa" key and public key',
      '[kubeconfig] Writing "admin.conf" kubeconfig file',
      '[kubeconfig] Writing "super-admin.conf" kubeconfig file',
      '[kubeconfig] Writing "kubelet.conf" kubeconfig file',
      '[kubeconfig] Writing "controller-manager.conf" kubeconfig file',
      '[kubeconfig] Writing "scheduler.conf" kubeconfig file',
      '[control-plane] Creating static Pod manifest for "kube-apiserver"',
      '[control-plane] Creating static Pod manifest for "kube-controller-manager"',
      '[control-plane] Creating static Pod manifest for "kube-scheduler"',
      '[kubelet-start] Starting the kubelet',
      '[mark-control-plane] Marking the node control-plane as control-plane by adding the labels: [node-role.kubernetes.io/control-plane node.kubernetes.io/exclude-from-external-load-balancers]',
      '[mark-control-plane] Marking the node control-plane as control-plane by adding the taints [node-role.kubernetes.io/control-plane:NoSchedule]',
      'Your Kubernetes control-plane has initialized successfully!',
    ]) assert.ok(init.stdout.includes(line), `missing line: ${line}\n${init.stdout}`);
    assert.match(init.stdout, /\[certs\] apiserver serving cert is signed for DNS names \[.*kubernetes\.default\.svc\.cluster\.local.*control-plane\] and IPs \[127\.0\.0\.1 .*10\.96\.0\.1\]/);
    assert.match(init.stdout, new RegExp(`k8ts join 127\\.0\\.0\\.1:${ports.api} --token [a-z0-9]{6}\\.[a-z0-9]{16} \\\\\\n\\t--discovery-token-ca-cert-hash sha256:[0-9a-f]{64}`));
  });

  it('applies the CoreDNS addon: kube-dns at the service CIDR\'s tenth address, and the kubelet\'s clusterDNS in config.yaml and the kubelet-config ConfigMap', async () => {
    assert.ok(init.stdout.includes('[addons] Applied essential addon: CoreDNS'), init.stdout);
    const svc = await kubectl(admin, ['get', 'service', 'kube-dns', '-n', 'kube-system', '-o', 'jsonpath={.spec.clusterIP}']);
    assert.equal(svc.stdout, '10.96.0.10');
    const deploy = await kubectl(admin, ['get', 'deployment', 'coredns', '-n', 'kube-system', '-o', 'jsonpath={.spec.template.spec.containers[0].env[?(@.name=="KUBERNETES_SERVICE_HOST")].value}']);
    assert.equal(deploy.stdout, '127.0.0.1', 'the DNS pods reach the API server at the advertise address');
    // kubeadm's kubelet configuration: /var/lib/kubelet/config.yaml (--config), the same as the kubelet-config ConfigMap.
    const config = join(prefix, 'var/lib/kubelet/config.yaml');
    assert.equal(/ --config=(\S+?)[ "]/.exec(readFileSync(join(prefix, 'var/lib/kubelet/kubeadm-flags.env'), 'utf8'))?.[1], config);
    const file = parse(readFileSync(config, 'utf8')) as { kind: string; clusterDNS: string[]; clusterDomain: string };
    assert.deepEqual([file.kind, file.clusterDNS, file.clusterDomain], ['KubeletConfiguration', ['10.96.0.10'], 'cluster.local']);
    assert.ok(init.stdout.includes('[kubelet] Creating a ConfigMap "kubelet-config" in namespace kube-system with the configuration for the kubelets in the cluster'), init.stdout);
    const cm = await kubectl(admin, ['get', 'configmap', 'kubelet-config', '-n', 'kube-system', '-o', 'jsonpath={.data.kubelet}']);
    assert.deepEqual(parse(cm.stdout), file);
  });

  it('writes kubeadm\'s layout: pki, one kubeconfig per identity, static pod manifests', () => {
    const pki = filesUnder(join(etc, 'pki'));
    for (const f of ['ca.crt', 'ca.key', 'apiserver.crt', 'apiserver.key', 'apiserver-kubelet-client.crt', 'front-proxy-ca.crt', 'front-proxy-client.crt', 'sa.key', 'sa.pub']) {
      assert.ok(pki.includes(f), `pki/${f} missing: ${pki.join(' ')}`);
    }
    assert.deepEqual(kubeconfigUser(join(etc, 'super-admin.conf')), { commonName: 'kubernetes-super-admin', organizations: ['system:masters'] });
    assert.deepEqual(kubeconfigUser(admin), { commonName: 'kubernetes-admin', organizations: ['kubeadm:cluster-admins'] });
    assert.deepEqual(kubeconfigUser(join(etc, 'kubelet.conf')), { commonName: 'system:node:control-plane', organizations: ['system:nodes'] });
    assert.equal(kubeconfigUser(join(etc, 'controller-manager.conf')).commonName, 'system:kube-controller-manager');
    assert.equal(kubeconfigUser(join(etc, 'scheduler.conf')).commonName, 'system:kube-scheduler');
    const apiserver = parse(readFileSync(join(etc, 'manifests/kube-apiserver.yaml'), 'utf8'));
    assert.deepEqual(apiserver.metadata.labels, { component: 'kube-apiserver', tier: 'control-plane' });
    assert.equal(apiserver.spec.hostNetwork, true);
    assert.deepEqual(apiserver.spec.containers[0].livenessProbe.httpGet, { host: '127.0.0.1', port: ports.api, path: '/livez', scheme: 'HTTPS' });
    assert.deepEqual(apiserver.spec.containers[0].readinessProbe.httpGet.path, '/readyz');
    const scheduler = parse(readFileSync(join(etc, 'manifests/kube-scheduler.yaml'), 'utf8'));
    assert.ok(scheduler.spec.containers[0].command.includes('scheduler'));
  });

  it('the node is Ready and marked control-plane; the bootstrap token is stored as kubeadm stores it', async () => {
    const nodes = await kubectl(admin, ['get', 'nodes', '--no-headers']);
    assert.match(nodes.stdout, /^control-plane\s+Ready\s+control-plane\s/);
    // --pod-network-cidr: the controller manager's node IPAM gives the node the first /24 of it.
    const cm = parse(readFileSync(join(etc, 'manifests/kube-controller-manager.yaml'), 'utf8'));
    assert.ok(cm.spec.containers[0].command.includes('--cluster-cidr=10.244.0.0/16'), cm.spec.containers[0].command.join(' '));
    await eventually(async () => (await kubectl(admin, ['get', 'node', 'control-plane', '-o', 'jsonpath={.spec.podCIDR}'])).stdout === '10.244.0.0/24', 60_000, 'the node\'s pod CIDR');
    const taints = await kubectl(admin, ['get', 'node', 'control-plane', '-o', 'jsonpath={.spec.taints}']);
    assert.match(taints.stdout, /"effect":"NoSchedule","key":"node-role.kubernetes.io\/control-plane"/);
    const token = /--token ([a-z0-9]{6})\.([a-z0-9]{16})/.exec(init.stdout)!;
    const secret = await kubectl(admin, ['get', 'secret', '-n', 'kube-system', `bootstrap-token-${token[1]}`, '-o', 'json']);
    const s = JSON.parse(secret.stdout);
    assert.equal(s.type, 'bootstrap.kubernetes.io/token');
    assert.equal(Buffer.from(s.data['token-secret'], 'base64').toString(), token[2]);
    assert.equal(Buffer.from(s.data['auth-extra-groups'], 'base64').toString(), 'system:bootstrappers:kubeadm:default-node-token');
    const info = await kubectl(admin, ['get', 'configmap', '-n', 'kube-public', 'cluster-info', '-o', 'jsonpath={.data.kubeconfig}']);
    assert.match(info.stdout, new RegExp(`server: https://127.0.0.1:${ports.api}`));
  });

  it("the controller manager fills a service-account-token Secret with a token signed by sa.key, which the API server accepts", async () => {
    const cm = parse(readFileSync(join(etc, 'manifests/kube-controller-manager.yaml'), 'utf8'));
    const command: string[] = cm.spec.containers[0].command;
    assert.ok(command.includes(`--service-account-private-key-file=${join(etc, 'pki/sa.key')}`), command.join(' '));
    assert.ok(command.includes(`--root-ca-file=${join(etc, 'pki/ca.crt')}`), command.join(' '));
    assert.equal((await kubectl(admin, ['create', 'serviceaccount', 'build-robot'])).code, 0);
    const secret = { apiVersion: 'v1', kind: 'Secret', type: 'kubernetes.io/service-account-token', metadata: { name: 'build-robot-secret', annotations: { 'kubernetes.io/service-account.name': 'build-robot' } } };
    // Outside the prefix: reset's test below expects nothing of ours left in it.
    const file = join(tmpdir(), `k8ts-sa-secret-${process.pid}.json`);
    writeFileSync(file, JSON.stringify(secret));
    try {
      assert.equal((await kubectl(admin, ['apply', '-f', file])).code, 0);
    } finally {
      rmSync(file, { force: true });
    }
    const token = await eventually(async () => {
      const r = await kubectl(admin, ['get', 'secret', 'build-robot-secret', '-o', 'jsonpath={.data.token}']);
      return r.stdout ? Buffer.from(r.stdout, 'base64').toString() : undefined;
    }, 60_000, 'the Secret\'s token');
    const ca = await kubectl(admin, ['get', 'secret', 'build-robot-secret', '-o', 'jsonpath={.data.ca\\.crt}']);
    assert.equal(Buffer.from(ca.stdout, 'base64').toString(), readFileSync(join(etc, 'pki/ca.crt'), 'utf8'));
    // The token alone (admin.conf's client certificate would authenticate first).
    const who = await kubectl('/dev/null', ['--server', `https://127.0.0.1:${ports.api}`, '--certificate-authority', join(etc, 'pki/ca.crt'), '--token', token, 'auth', 'whoami', '-o', 'jsonpath={.status.userInfo.username}']);
    assert.equal(who.stdout, 'system:serviceaccount:default:build-robot', who.stderr);
  });

  it('kube-system shows the control plane as mirror pods, Running and Ready from their probes', async () => {
    for (const c of ['kube-apiserver', 'kube-controller-manager', 'kube-scheduler']) {
      await eventually(async () => {
        const r = await kubectl(admin, ['get', 'pod', '-n', 'kube-system', `${c}-control-plane`, '--no-headers', '-L', 'component,tier']);
        return new RegExp(`^${c}-control-plane\\s+1/1\\s+Running\\s+\\d+\\s+\\S+\\s+${c}\\s+control-plane\\s*$`).test(r.stdout.trim());
      }, 90_000, `${c}-control-plane Running and Ready`);
    }
    const mirror = await kubectl(admin, ['get', 'pod', '-n', 'kube-system', 'kube-apiserver-control-plane', '-o', 'jsonpath={.metadata.annotations.kubernetes\\.io/config\\.mirror}']);
    assert.match(mirror.stdout, /^[0-9a-f]{32}$/);
  });

  it('editing a control-plane manifest restarts that component', async () => {
    const get = async () => JSON.parse((await kubectl(admin, ['get', 'pod', '-n', 'kube-system', 'kube-scheduler-control-plane', '-o', 'json'])).stdout || '{}');
    const before = await get();
    const file = join(etc, 'manifests/kube-scheduler.yaml');
    const pod = parse(readFileSync(file, 'utf8'));
    pod.metadata.annotations = { 'k8ts.test/edited': 'yes' };
    writeFileSync(file, JSON.stringify(pod));
    await eventually(async () => {
      const now = await get();
      return now.metadata?.uid && now.metadata.uid !== before.metadata.uid && now.metadata.annotations?.['k8ts.test/edited'] === 'yes'
        && now.status?.conditions?.some((c: { type: string; status: string }) => c.type === 'Ready' && c.status === 'True');
    }, 90_000, 'a new kube-scheduler pod, Ready');
  });

  it('the seed DaemonSet (with the control-plane toleration) is placed on the control-plane node', async () => {
    const ds = seedManifests(seedsDir).find((m) => m.obj.kind === 'DaemonSet' && m.obj.metadata.name === 'fluentd-elasticsearch')!;
    const file = join(prefix, 'fluentd.yaml');
    writeFileSync(file, ds.yaml);
    assert.equal((await kubectl(admin, ['apply', '-f', file])).code, 0);
    // The control-plane node runs the host-process runtime, which runs commands, not images: the pod is
    // placed there but its command-less container cannot start (workers, on the simulated runtime, run it).
    await eventually(async () => {
      const r = await kubectl(admin, ['get', 'pods', '-n', 'kube-system', '-l', 'name=fluentd-elasticsearch', '-o', 'wide', '--no-headers']);
      return /^fluentd-elasticsearch-\S+\s.*\scontrol-plane\s/.test(r.stdout);
    }, 60_000, 'the fluentd pod on control-plane');
  });

  it('the supervisor restarts a killed kubelet, and the node stays Ready', async () => {
    const logFile = join(prefix, 'var/log/k8ts-kubelet.log');
    const started = () => [...readFileSync(logFile, 'utf8').matchAll(/supervise: started \S+ \(pid (\d+)\)/g)].map((m) => Number(m[1]));
    const pids = started();
    // One start so far: an agent that had ended on its own would be a crash to explain (its log says why).
    assert.equal(pids.length, 1, readFileSync(logFile, 'utf8').split('\n').filter((l) => /supervise|error|exit/i.test(l)).slice(-20).join('\n'));
    process.kill(pids[0]!, 'SIGKILL');
    await eventually(async () => started().length === 2, 30_000, 'a restarted agent');
    await eventually(async () => /^control-plane\s+Ready\s/.test((await kubectl(admin, ['get', 'nodes', '--no-headers'])).stdout), 60_000, 'the node Ready');
  });

  it('a second init fails preflight with kubeadm\'s errors and writes nothing', async () => {
    const before = notThePodsFiles(prefix);
    const again = await k8ts(initArgs);
    assert.equal(again.code, 1);
    const manifest = join(etc, 'manifests/kube-apiserver.yaml');
    const name = `FileAvailable-${manifest.replace(/\//g, '-')}`;
    assert.ok(again.stderr.includes('error execution phase preflight: [preflight] Some fatal errors occurred:'), again.stderr);
    assert.ok(again.stderr.includes(`\t[ERROR ${name}]: ${manifest} already exists`), again.stderr);
    assert.ok(again.stderr.includes(`\t[ERROR Port-${ports.api}]: Port ${ports.api} is in use`), again.stderr);
    assert.ok(again.stderr.includes('[preflight] If you know what you are doing, you can make a check non-fatal with `--ignore-preflight-errors=...`'), again.stderr);
    assert.deepEqual(notThePodsFiles(prefix), before);
  });

  it('join against an unreachable server fails with the cause and writes nothing', async () => {
    const worker = tempPrefix('unreachable');
    try {
      const dead = await freePort();
      const r = await k8ts(['join', `127.0.0.1:${dead}`, '--token', 'abcdef.0123456789abcdef', '--discovery-token-ca-cert-hash', `sha256:${'0'.repeat(64)}`,
        '--prefix', worker, '--node-name', 'worker9', '--kubelet-port', String(await freePort()), '--timeout', '5s', '--runtime', 'simulated']);
      assert.equal(r.code, 1);
      assert.match(r.stderr, new RegExp(`^error execution phase preflight: couldn't validate the identity of the API Server: failed to request the cluster-info ConfigMap: Get "https://127.0.0.1:${dead}/api/v1/namespaces/kube-public/configmaps/cluster-info\\?timeout=10s": dial tcp 127.0.0.1:${dead}: connect: connection refused`, 'm'));
      assert.deepEqual(filesUnder(worker), []);
    } finally {
      rmSync(worker, { recursive: true, force: true });
    }
  });

  it('reset asks first, and without a yes changes nothing', async () => {
    const before = notThePodsFiles(prefix);
    const r = await k8ts(['reset', '--prefix', prefix], 'n\n');
    assert.equal(r.code, 1);
    assert.ok(r.stdout.includes('[reset] Are you sure you want to proceed? [y/N]: '));
    assert.match(r.stderr, /aborted reset operation/);
    assert.deepEqual(notThePodsFiles(prefix), before);
  });

  it('reset (answering y) stops the kubelet and the control plane and removes certs, kubeconfigs, manifests and state', async () => {
    const pidFile = join(prefix, 'var/lib/kubelet/k8ts-kubelet.pid');
    const pid = Number(readFileSync(pidFile, 'utf8'));
    const records = filesUnder(join(prefix, 'var/lib/kubelet')).filter((f) => f.endsWith('/record.json'));
    const podRecords = records.map((f) => JSON.parse(readFileSync(join(prefix, 'var/lib/kubelet', f), 'utf8')) as InstanceRecord).filter(processAlive);
    assert.ok(podRecords.length >= 3, `the control plane's processes are recorded: ${records.join(' ')}`);
    const r = await k8ts(['reset', '--prefix', prefix], 'y\n');
    assert.equal(r.code, 0, r.stderr);
    // kubeadm 1.32's lines, in its order (k8ts adds what it stopped and the SQLite datastore it deleted).
    const files = ['admin.conf', 'super-admin.conf', 'kubelet.conf', 'bootstrap-kubelet.conf', 'controller-manager.conf', 'scheduler.conf'].map((f) => join(etc, f));
    let at = 0;
    for (const line of [
      '[reset] Reading configuration from the cluster...',
      '[reset] FYI: You can look at this config file with \'kubectl -n kube-system get cm kubeadm-config -o yaml\'',
      '[reset] Are you sure you want to proceed? [y/N]: ',
      '[preflight] Running pre-flight checks',
      '[reset] Stopping the kubelet service',
      `[reset] Unmounting mounted directories in "${join(prefix, 'var/lib/kubelet')}"`,
      `[reset] Deleting contents of directories: [${join(prefix, 'var/lib/etcd')} ${join(etc, 'manifests')} ${join(prefix, 'var/lib/kubelet')} ${join(etc, 'pki')}]\n`,
      `[reset] Deleting files: [${files.join(' ')}]\n`,
      '\nThe reset process does not clean CNI configuration. To do so, you must remove /etc/cni/net.d\n\n'
        + 'The reset process does not reset or clean up iptables rules or IPVS tables.\n'
        + 'If you wish to reset iptables, you must do so manually by using the "iptables" command.\n\n'
        + 'If your cluster was setup to utilize IPVS, run ipvsadm --clear (or similar)\nto reset your system\'s IPVS tables.\n\n'
        + 'The reset process does not clean your kubeconfig files and you must remove them manually.\n'
        + 'Please, check the contents of the $HOME/.kube/config file.\n',
    ]) {
      const found = r.stdout.indexOf(line, at);
      assert.ok(found >= at, `missing, or out of order: ${line}\n${r.stdout}`);
      at = found + line.length;
    }
    // kubeadm's warning is a klog line: severity, date, time with microseconds, thread id, file:line.
    assert.match(r.stderr, /^W\d{4} \d\d:\d\d:\d\d\.\d{6} +\d+ reset\.ts:\d+\] \[reset\] WARNING: Changes made to this host by 'k8ts init' or 'k8ts join' will be reverted\.$/m);
    assert.throws(() => process.kill(pid, 0), 'the supervised kubelet is gone');
    assert.ok(r.stdout.includes('[reset] Stopped the processes of pods: ['), r.stdout);
    for (const rec of podRecords) assert.equal(processAlive(rec), false, `the pod process ${rec.pid} (${rec.name}) is gone`);
    const left = filesUnder(prefix).filter((f) => !f.startsWith('var/log/') && f !== 'fluentd.yaml');
    assert.deepEqual(left, []);
    assert.equal(existsSync(admin), false);
    const down = await kubectl(join(prefix, 'nope'), ['--server', `https://127.0.0.1:${ports.api}`, '--insecure-skip-tls-verify', 'get', '--raw', '/livez']);
    assert.equal(down.code, 1, 'the API server is stopped');
  });
});

describe('k8ts init --dry-run', () => {
  it('prints the manifests and writes nothing under the prefix', async () => {
    const prefix = tempPrefix('dry');
    try {
      const r = await k8ts(['init', '--dry-run', '--prefix', prefix, '--apiserver-advertise-address', '127.0.0.1', '--apiserver-bind-port', String(await freePort()),
        '--node-name', 'dry', '--kubelet-port', String(await freePort()), '--controller-manager-port', String(await freePort()), '--scheduler-port', String(await freePort()),
        '--runtime', 'process']);
      assert.equal(r.code, 0, r.stderr);
      assert.ok(r.stdout.includes(`[dryrun] Would write file "${join(prefix, 'etc/kubernetes/manifests/kube-apiserver.yaml')}" with content:`), r.stdout);
      assert.match(r.stdout, /component: kube-apiserver/);
      assert.deepEqual(filesUnder(prefix), []);
      const bad = await k8ts(['init', '--dry-run', '--prefix', prefix, '--pod-network-cidr', '10.244.0.0/99']);
      assert.equal(bad.code, 1);
      assert.match(bad.stderr, /networking.podSubnet: Invalid value: "10.244.0.0\/99": couldn't parse subnet/);
    } finally {
      rmSync(prefix, { recursive: true, force: true });
    }
  });
});
