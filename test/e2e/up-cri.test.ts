/**
 * `sudo k8ts up --runtime cri` as a new user meets it: one command, then the
 * real kubectl against a real containerd node.
 *
 * Arrangement: the whole of `up` (API server on 127.0.0.1, the agent, the
 * private containerd it starts under its data dir) runs inside a network
 * namespace this test creates, entered with `nsenter --net` (not `ip netns
 * exec`, which remounts /sys and hides the cgroup mounts runc needs). The
 * namespace has lo and a veth pair whose end carries the node's address
 * (10.99.0.2): the CNI bridge, the pod addresses and the hostPort DNAT rules
 * exist only there, and kubectl and wget run there too. `k8ts images` talks
 * to containerd through its socket, a file.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { eventually, cliPath } from './harness.js';
import { ensureImages } from './containerd.js';
import { pidsMentioning, startUpCri, type UpCriNode } from './up-cri-node.js';

const run = promisify(execFile);
const nodeIP = '10.99.0.2';

const hostPortPod = (name: string) => `apiVersion: v1
kind: Pod
metadata:
  name: ${name}
spec:
  containers:
  - name: web
    image: k8ts.local/busybox:1
    command: [sh, -c, 'mkdir -p /www && echo hello from ${name} > /www/index.html && exec httpd -f -p 8080 -h /www']
    ports:
    - containerPort: 8080
      hostPort: 18080
`;

describe('k8ts up --runtime cri: one command, a real containerd node', () => {
  let node: UpCriNode;
  let dir: string;
  let dataDir: string;
  const kubectl = (args: string[], input?: string) => node.kubectl(args, input);
  const getJSON = async (args: string[]) => JSON.parse(await kubectl([...args, '-o', 'json']));
  const wget = (url: string) => node.inNode('wget', ['-qO-', '-T', '5', url]);

  before(async () => {
    node = await startUpCri('up', nodeIP);
    ({ dir, dataDir } = node);
  });

  after(async () => { await node?.close(); });

  it('registers the machine as one Ready node with the node address and containerd', async () => {
    const node = await eventually(async () => {
      const n = await getJSON(['get', 'node', 'box']);
      return n.status?.conditions?.some((c: any) => c.type === 'Ready' && c.status === 'True') ? n : undefined;
    }, 120_000, 'node box Ready');
    assert.equal(node.status.addresses.find((a: any) => a.type === 'InternalIP')?.address, nodeIP);
    assert.match(node.status.nodeInfo.containerRuntimeVersion, /^containerd:\/\//);
    assert.equal(node.spec.podCIDR, '10.244.0.0/24');
  });

  it('kubectl create deployment runs busybox httpd on a CNI bridge address; logs and exec reach it', async () => {
    await kubectl(['create', 'deployment', 'web', '--image=k8ts.local/busybox:1', '--',
      'sh', '-c', 'echo serving; mkdir -p /www && echo hello web > /www/index.html && exec httpd -f -p 8080 -h /www']);
    await kubectl(['rollout', 'status', 'deployment/web', '--timeout=120s']);
    const pod = (await getJSON(['get', 'pods', '-l', 'app=web'])).items[0];
    assert.match(pod.status.podIP, /^10\.244\.0\.\d+$/);
    assert.equal(pod.status.hostIP, nodeIP);
    assert.equal(await wget(`http://${pod.status.podIP}:8080/`), 'hello web\n');
    assert.equal(await eventually(async () => (await kubectl(['logs', 'deploy/web'])).includes('serving'), 60_000, 'the log line'), true);
    assert.equal(await kubectl(['exec', 'deploy/web', '--', 'cat', '/www/index.html']), 'hello web\n');
  });

  it('the kubelet writes /etc/hosts: the pod\'s FQDN with its subdomain, then its hostAliases (Adding entries to Pod /etc/hosts with HostAliases)', async () => {
    await kubectl(['apply', '-f', '-'], `apiVersion: v1
kind: Pod
metadata:
  name: hostaliases-pod
spec:
  hostname: busybox-1
  subdomain: busybox-subdomain
  hostAliases:
  - ip: "127.0.0.1"
    hostnames: ["foo.local", "bar.local"]
  - ip: "10.1.2.3"
    hostnames: ["foo.remote", "bar.remote"]
  containers:
  - name: cat-hosts
    image: k8ts.local/busybox:1
    command: ["sleep", "3600"]
`);
    await kubectl(['wait', '--for=condition=Ready', 'pod/hostaliases-pod', '--timeout=120s']);
    const ip = (await getJSON(['get', 'pod', 'hostaliases-pod'])).status.podIP as string;
    const fqdn = 'busybox-1.busybox-subdomain.default.svc.cluster.local';
    assert.equal(await kubectl(['exec', 'hostaliases-pod', '--', 'cat', '/etc/hosts']), '# Kubernetes-managed hosts file.\n127.0.0.1\tlocalhost\n'
      + '::1\tlocalhost ip6-localhost ip6-loopback\nfe00::0\tip6-localnet\nfe00::0\tip6-mcastprefix\nfe00::1\tip6-allnodes\nfe00::2\tip6-allrouters\n'
      + `${ip}\t${fqdn}\tbusybox-1\n\n# Entries added by HostAliases.\n127.0.0.1\tfoo.local\tbar.local\n10.1.2.3\tfoo.remote\tbar.remote\n`);
    // busybox's own hostname -f, which the simulated one follows.
    assert.equal(await kubectl(['exec', 'hostaliases-pod', '--', 'hostname', '-f']), `${fqdn}\n`);
    await kubectl(['delete', 'pod', 'hostaliases-pod', '--now']);
  });

  it('a pod\'s sysctls are set in its sandbox\'s namespaces, which its container shares (Using sysctls: the safe ones)', async () => {
    await kubectl(['apply', '-f', '-'], `apiVersion: v1
kind: Pod
metadata:
  name: sysctl-safe
spec:
  securityContext:
    sysctls:
    - name: kernel.shm_rmid_forced
      value: "1"
    - name: net/ipv4/ip_local_port_range
      value: "1024 65000"
  containers:
  - name: c
    image: k8ts.local/busybox:1
    command: ["sleep", "3600"]
`);
    await kubectl(['wait', '--for=condition=Ready', 'pod/sysctl-safe', '--timeout=120s']);
    assert.equal(await kubectl(['exec', 'sysctl-safe', '--', 'cat', '/proc/sys/kernel/shm_rmid_forced', '/proc/sys/net/ipv4/ip_local_port_range']), '1\n1024\t65000\n');
    await kubectl(['delete', 'pod', 'sysctl-safe', '--now']);
  });

  it('the add-ons run as host processes of this k8ts: kube-proxy 1/1 with logs, coredns Running; a pod resolves Services through 10.96.0.10 and reaches a ClusterIP', async () => {
    await eventually(async () => {
      const ds = await getJSON(['get', 'ds', '-n', 'kube-system', 'kube-proxy']);
      return ds.status?.desiredNumberScheduled === 1 && ds.status?.numberReady === 1;
    }, 120_000, 'kube-proxy 1/1 Ready');
    assert.match(await kubectl(['get', 'ds', '-n', 'kube-system', 'kube-proxy', '--no-headers']), /^kube-proxy\s+1\s+1\s+1\s+1\s+1\s/);
    const proxyPod = (await getJSON(['get', 'pods', '-n', 'kube-system', '-l', 'k8s-app=kube-proxy'])).items[0];
    assert.match(proxyPod.status.containerStatuses[0].containerID, /^process:\/\//, 'the add-on runs on the process runtime, not in containerd');
    assert.equal(await eventually(async () => (await kubectl(['logs', '-n', 'kube-system', 'ds/kube-proxy'])).includes('kube-proxy running'), 60_000, 'kube-proxy\'s log'), true);
    // Two replicas, host ports 53: on one node one runs and the other waits for a second node (the NodePorts filter).
    await eventually(async () => {
      const pods = (await getJSON(['get', 'pods', '-n', 'kube-system', '-l', 'k8s-app=kube-dns'])).items;
      return pods.some((p: any) => p.status.phase === 'Running' && p.status.conditions?.some((c: any) => c.type === 'Ready' && c.status === 'True'));
    }, 120_000, 'a coredns pod Running and Ready');
    await kubectl(['expose', 'deployment', 'web', '--port=80', '--target-port=8080']);
    const clusterIP = (await getJSON(['get', 'service', 'web'])).spec.clusterIP as string;
    await kubectl(['run', 'client', '--image=k8ts.local/busybox:1', '--', 'sleep', '3600']);
    await kubectl(['wait', '--for=condition=Ready', 'pod/client', '--timeout=120s']);
    assert.match(await kubectl(['exec', 'client', '--', 'cat', '/etc/resolv.conf']), /^nameserver 10\.96\.0\.10$/m);
    let last = '';
    const lookup = (name: string) => eventually(async () => {
      const out = last = await kubectl(['exec', 'client', '--', 'sh', '-c', `nslookup ${name} 2>&1`]).catch((e) => String(e));
      return out.includes('Name:') ? out : undefined;
    }, 60_000, `nslookup ${name}`).catch((e) => { throw new Error(`${(e as Error).message}; the last answer: ${last}`); });
    assert.match(await lookup('kubernetes.default.svc.cluster.local'), /Address:\s*10\.96\.0\.1$/m);
    assert.match(await lookup('web.default.svc.cluster.local'), new RegExp(`Address:\\s*${clusterIP.replaceAll('.', '\\.')}$`, 'm'));
    const get = await eventually(async () => {
      const out = await kubectl(['exec', 'client', '--', 'sh', '-c', `printf 'GET / HTTP/1.0\\r\\n\\r\\n' | nc -w 5 ${clusterIP} 80`]).catch(() => '');
      return out.includes('hello web') ? out : undefined;
    }, 60_000, 'the web Service through its ClusterIP');
    assert.match(get, /^HTTP\/1\.[01] 200 /);
    // By its short name: the pod's resolv.conf search path (default.svc.cluster.local ...) through the resolver of busybox's nc.
    let lastByName = '';
    await eventually(async () => {
      lastByName = await kubectl(['exec', 'client', '--', 'sh', '-c', `printf 'GET / HTTP/1.0\\r\\n\\r\\n' | nc -w 5 web 80 2>&1`]).catch((e) => String(e));
      return lastByName.includes('hello web');
    }, 60_000, 'the web Service by its short name').catch((e) => { throw new Error(`${(e as Error).message}; the last answer: ${lastByName}`); });
  });

  it('a NetworkPolicy holds for containerd pods: web admits only the client pod, by pod IP and by ClusterIP; deleting it opens web again', async () => {
    // The pods of the test above: deployment web (app=web) behind Service web, pod client (run=client).
    const webIP = (await getJSON(['get', 'pods', '-l', 'app=web'])).items[0].status.podIP as string;
    const clusterIP = (await getJSON(['get', 'service', 'web'])).spec.clusterIP as string;
    await kubectl(['run', 'intruder', '--image=k8ts.local/busybox:1', '--', 'sleep', '3600']);
    await kubectl(['wait', '--for=condition=Ready', 'pod/intruder', '--timeout=120s']);
    /** What `from` gets for GET / from host:port; '' when the connection is dropped (nc gives up after 3 s). */
    const get = (from: string, host: string, port: number) =>
      kubectl(['exec', from, '--', 'sh', '-c', `printf 'GET / HTTP/1.0\\r\\n\\r\\n' | nc -w 3 ${host} ${port} 2>&1; true`]).catch((e) => String(e));
    const reaches = async (from: string, host: string, port: number) => (await get(from, host, port)).includes('hello web');
    assert.equal(await reaches('intruder', webIP, 8080), true, 'no policy: every pod reaches web');
    await kubectl(['apply', '-f', '-'], JSON.stringify({
      apiVersion: 'networking.k8s.io/v1', kind: 'NetworkPolicy', metadata: { name: 'web-from-client', namespace: 'default' },
      spec: { podSelector: { matchLabels: { app: 'web' } }, ingress: [{ from: [{ podSelector: { matchLabels: { run: 'client' } } }], ports: [{ port: 8080 }] }] },
    }));
    await eventually(async () => !(await reaches('intruder', webIP, 8080)), 60_000, 'the intruder is dropped once the policy is enforced');
    assert.equal(await reaches('intruder', clusterIP, 80), false, 'through the Service too: the policy is checked after kube-proxy\'s DNAT');
    assert.equal(await reaches('client', webIP, 8080), true, 'the client is admitted by pod IP');
    assert.equal(await reaches('client', clusterIP, 80), true, 'and through the Service');
    await kubectl(['delete', 'networkpolicy', 'web-from-client']);
    await eventually(async () => reaches('intruder', webIP, 8080), 60_000, 'the intruder reaches web once the policy is gone');
    await kubectl(['delete', 'pod', 'intruder', '--wait=false']);
  });

  it('a hostPort pod answers on the node address; a second one for the same port stays Pending as upstream', async () => {
    await kubectl(['apply', '-f', '-'], hostPortPod('hp1'));
    await kubectl(['wait', '--for=condition=Ready', 'pod/hp1', '--timeout=120s']);
    assert.equal(await wget(`http://${nodeIP}:18080/`), 'hello from hp1\n');
    await kubectl(['apply', '-f', '-'], hostPortPod('hp2'));
    const message = await eventually(async () => {
      const events = (await getJSON(['get', 'events', '--field-selector', 'involvedObject.name=hp2,reason=FailedScheduling'])).items;
      return events[0]?.message as string | undefined;
    }, 60_000, 'FailedScheduling for hp2');
    assert.match(message, /^0\/1 nodes are available: 1 node\(s\) didn't have free ports for the requested pod ports\./);
    assert.equal((await getJSON(['get', 'pod', 'hp2'])).status.phase, 'Pending');
    // Freeing the port lets the scheduler place the second pod, and the port now leads to it.
    await kubectl(['delete', 'pod', 'hp1', '--wait=true']);
    await kubectl(['wait', '--for=condition=Ready', 'pod/hp2', '--timeout=120s']);
    assert.equal(await eventually(async () => (await wget(`http://${nodeIP}:18080/`).catch(() => '')) === 'hello from hp2\n', 60_000, 'hp2 behind the hostPort'), true);
  });

  it('k8ts images import loads an archive that a pod then runs without a registry; images list shows it', async () => {
    const archive = await retaggedBusybox(dir, 'k8ts.local/mybox:2');
    const imported = await run(process.execPath, [cliPath, 'images', 'import', archive, '--data-dir', dataDir]);
    assert.match(imported.stdout, /k8ts\.local\/mybox:2/);
    const list = (await run(process.execPath, [cliPath, 'images', 'list', '--data-dir', dataDir])).stdout.split('\n');
    assert.match(list[0]!, /^IMAGE\s+TAG\s+IMAGE ID\s+SIZE$/);
    for (const [image, tag] of [['k8ts.local/mybox', '2'], ['k8ts.local/busybox', '1'], ['k8ts.local/pause', '1']]) {
      assert.ok(list.some((l) => l.split(/\s+/)[0] === image && l.split(/\s+/)[1] === tag), `${image}:${tag} listed:\n${list.join('\n')}`);
    }
    await kubectl(['run', 'mybox', '--image=k8ts.local/mybox:2', '--', 'sh', '-c', 'echo from mybox; exec sleep 3600']);
    await kubectl(['wait', '--for=condition=Ready', 'pod/mybox', '--timeout=120s']);
    assert.equal(await eventually(async () => (await kubectl(['logs', 'mybox'])) === 'from mybox\n', 60_000, 'the log line'), true);
  });

  it('a private containerd that dies is started again, and the running pods stay reachable', async () => {
    const config = join(dataDir, 'containerd', 'config.toml');
    const [first] = await pidsMentioning(config);
    assert.ok(first, 'containerd runs with the config under the data dir');
    process.kill(first, 'SIGKILL');
    await eventually(async () => (await pidsMentioning(config)).some((p) => p !== first), 60_000, 'a new containerd');
    assert.equal(await eventually(async () => (await kubectl(['exec', 'deploy/web', '--', 'cat', '/www/index.html']).catch(() => '')) === 'hello web\n', 60_000, 'exec after the restart'), true);
  });

  it('SIGTERM stops the agent, the pods and the private containerd, and leaves nothing mounted', async () => {
    const code = await node.terminate();
    assert.equal(code, 0, node.log().slice(-3000));
    assert.deepEqual(await pidsMentioning(dir), []);
    const mounts = readFileSync('/proc/self/mountinfo', 'utf8').split('\n').filter((l) => l.includes(`${dir}/`));
    assert.deepEqual(mounts, []);
  });
});

describe('k8ts up --runtime cri: pre-flight errors before anything starts', () => {
  const tryUp = async (cmd: string, args: string[], env: NodeJS.ProcessEnv) => {
    const dir = mkdtempSync(join(tmpdir(), 'k8ts-e2e-upcri-pf-'));
    try {
      const r = await run(cmd, [...args, process.execPath, cliPath, 'up', '--runtime', 'cri', '--data-dir', join(dir, 'data')], { env }).then(() => ({ code: 0, stderr: '' }), (e) => ({ code: e.code as number, stderr: String(e.stderr) }));
      return { ...r, dataDirMade: existsSync(join(dir, 'data')) };
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  };

  it('not root: kubeadm\'s IsPrivilegedUser error and the fix; nothing started', async () => {
    // CAP_DAC_READ_SEARCH (ambient): the checkout may sit in a directory only root can enter (mktemp -d makes it 0700).
    const r = await tryUp('setpriv', ['--reuid', '65534', '--regid', '65534', '--clear-groups', '--inh-caps', '+dac_read_search', '--ambient-caps', '+dac_read_search'], process.env);
    assert.equal(r.code, 1);
    assert.match(r.stderr, /^Error: \[preflight\] Some fatal errors occurred:\n\t\[ERROR IsPrivilegedUser\]: user is not running as root\n/);
    assert.match(r.stderr, /run: sudo bash scripts\/ci-setup-containerd\.sh/);
    assert.equal(r.dataDirMade, false);
  });

  it('no containerd on the PATH: FileExisting errors for each missing binary', async () => {
    const r = await tryUp('/usr/bin/env', [], { PATH: '/nonexistent' });
    assert.equal(r.code, 1);
    for (const cmd of ['containerd', 'runc', 'ctr']) assert.ok(r.stderr.includes(`\t[ERROR FileExisting-${cmd}]: ${cmd} not found in system path\n`), r.stderr);
    assert.equal(r.dataDirMade, false);
  });
});

/** build/images/busybox.tar under another name (its index's org.opencontainers.image.ref.name), as a user's own archive. */
async function retaggedBusybox(dir: string, name: string): Promise<string> {
  const { busybox } = await ensureImages();
  const work = join(dir, 'mybox');
  mkdirSync(work);
  await run('tar', ['-xf', busybox, '-C', work]);
  const index = JSON.parse(readFileSync(join(work, 'index.json'), 'utf8'));
  index.manifests[0].annotations['org.opencontainers.image.ref.name'] = name;
  writeFileSync(join(work, 'index.json'), JSON.stringify(index));
  const archive = join(dir, 'mybox.tar');
  await run('tar', ['-cf', archive, '-C', work, 'oci-layout', 'index.json', 'blobs']);
  return archive;
}
