/**
 * `kubectl debug` with ephemeral containers on simulated nodes, with the real
 * kubectl: the docs' "Debug Running Pods" steps (kubectl run, then kubectl
 * debug --target), the container in spec.ephemeralContainers and its status,
 * pods/ephemeralcontainers in discovery, and the refusals in upstream's words
 * (removing or changing one, a name already taken, ports, a plain pod update,
 * Pod Security admission).
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startCluster, eventually, minEventuallyMs, type Cluster } from './harness.js';
import { Clientset, loadKubeconfig } from '../../src/client/index.js';
import { NodeSimulator } from '../../src/kubelet/index.js';
import { silentLogger } from '../../src/util/log.js';

const rawPath = '/api/v1/namespaces/default/pods/nginx/ephemeralcontainers';

describe('kubectl debug with ephemeral containers (simulated node)', () => {
  let cluster: Cluster;
  let clients: Clientset;
  let sim: NodeSimulator;

  const podJSON = async (): Promise<any> => JSON.parse((await cluster.kubectl(['get', 'pod', 'nginx', '-o', 'json', '--show-managed-fields'])).stdout);
  /** A PUT of pods/ephemeralcontainers with the pod as `edit` leaves it; kubectl's combined output and exit code. */
  const replaceRaw = async (edit: (pod: any) => void) => {
    const pod = await podJSON();
    edit(pod);
    const r = await cluster.kubectl(['replace', '--raw', rawPath, '-f', '-'], { input: JSON.stringify(pod), allowFail: true });
    return { code: r.code, out: r.stdout + r.stderr };
  };

  before(async () => {
    cluster = await startCluster({ controllers: 'all' });
    clients = new Clientset(loadKubeconfig(cluster.kubeconfig));
    sim = new NodeSimulator(clients, { count: 1, renewIntervalMs: 1000, logger: silentLogger });
    await sim.start();
    await cluster.kubectl(['run', 'nginx', '--image=nginx']);
    await cluster.kubectl(['wait', '--for=condition=Ready', 'pod/nginx', '--timeout=60s']);
  });

  after(async () => {
    await sim?.close();
    clients?.close();
    await cluster?.cleanup();
  });

  it('lists pods/ephemeralcontainers in discovery as upstream does (kind Pod; get, patch, update)', async () => {
    const list = JSON.parse((await cluster.kubectl(['get', '--raw', '/api/v1'])).stdout);
    const sub = list.resources.find((r: any) => r.name === 'pods/ephemeralcontainers');
    assert.deepEqual({ kind: sub.kind, verbs: sub.verbs, namespaced: sub.namespaced }, { kind: 'Pod', verbs: ['get', 'patch', 'update'], namespaced: true });
    // kubectl debug -it then attaches: the streaming subresources are listed too, as upstream lists them.
    const streams = list.resources.filter((r: any) => ['pods/attach', 'pods/exec', 'pods/portforward'].includes(r.name)).map((r: any) => `${r.name} ${r.kind} ${r.verbs.join(',')}`);
    assert.deepEqual(streams, ['pods/attach PodAttachOptions create,get', 'pods/exec PodExecOptions create,get', 'pods/portforward PodPortForwardOptions create,get']);
  });

  it('kubectl debug --target adds the container to spec.ephemeralContainers, and the node runs it', async () => {
    const { stdout, stderr } = await cluster.kubectl(['debug', 'nginx', '--image=busybox', '--target=nginx', '--', 'sh', '-c', 'echo hi']);
    const name = /Defaulting debug container name to (debugger-\w+)\./.exec(stdout + stderr)?.[1];
    assert.ok(name, stdout + stderr);
    const spec = JSON.parse((await cluster.kubectl(['get', 'pod', 'nginx', '-o', 'jsonpath={.spec.ephemeralContainers}'])).stdout);
    assert.deepEqual(spec.map((c: any) => [c.name, c.image, c.targetContainerName, c.command]), [[name, 'busybox', 'nginx', ['sh', '-c', 'echo hi']]]);
    const status = await eventually(async () => {
      const out = (await cluster.kubectl(['get', 'pod', 'nginx', '-o', 'jsonpath={.status.ephemeralContainerStatuses}'])).stdout;
      const [s] = out ? JSON.parse(out) : [];
      return s?.state?.running ? s : undefined;
    }, minEventuallyMs, 'the ephemeral container running');
    assert.equal(status.name, name);
    assert.match(status.containerID, /^sim:\/\//);
    assert.equal(status.ready, false);
    // The pod itself is as it was: still Ready, and kubectl describe names the container (read as protobuf).
    const describe = (await cluster.kubectl(['describe', 'pod', 'nginx'])).stdout;
    assert.match(describe, new RegExp(`Ephemeral Containers:\\n  ${name}:\\n`));
    assert.match(describe, /Ready\s+True/);
    // kubectl logs -c answers for it as for the pod's other simulated containers.
    const logs = await cluster.kubectl(['logs', 'nginx', '-c', name!], { allowFail: true });
    const other = await cluster.kubectl(['logs', 'nginx', '-c', 'nginx'], { allowFail: true });
    assert.equal(logs.stderr, other.stderr);
  });

  it('refuses to remove an ephemeral container, with upstream\'s words', async () => {
    const r = await replaceRaw((pod) => { pod.spec.ephemeralContainers = []; });
    assert.notEqual(r.code, 0);
    assert.match(r.out, /The Pod "nginx" is invalid: spec.ephemeralContainers: Forbidden: existing ephemeral containers "debugger-\w+" may not be removed/);
  });

  it('refuses to change an ephemeral container, with upstream\'s words', async () => {
    const r = await replaceRaw((pod) => { pod.spec.ephemeralContainers[0].image = 'alpine'; });
    assert.notEqual(r.code, 0);
    assert.match(r.out, /spec.ephemeralContainers\[debugger-\w+\]: Forbidden: existing ephemeral containers "debugger-\w+" may not be changed\n  core.EphemeralContainer\{\n- \tImage: "busybox",\n\+ \tImage: "alpine",/);
  });

  it('refuses ports on an ephemeral container', async () => {
    const r = await replaceRaw((pod) => { pod.spec.ephemeralContainers.push({ name: 'web', image: 'busybox', ports: [{ containerPort: 80 }] }); });
    assert.notEqual(r.code, 0);
    assert.match(r.out, /spec.ephemeralContainers\[1\].ports: Forbidden: cannot be set for an Ephemeral Container/);
  });

  it('refuses a name another container of the pod has (kubectl debug --container)', async () => {
    const r = await cluster.kubectl(['debug', 'nginx', '--image=busybox', '--container=nginx'], { allowFail: true });
    assert.notEqual(r.code, 0);
    assert.match(r.stderr, /The Pod "nginx" is invalid: spec.ephemeralContainers\[1\].name: Duplicate value: "nginx"/);
  });

  it('a plain pod update cannot add or change ephemeral containers', async () => {
    const pod = await podJSON();
    pod.spec.ephemeralContainers.push({ name: 'sneaky', image: 'busybox', terminationMessagePolicy: 'File', imagePullPolicy: 'Always' });
    const r = await cluster.kubectl(['replace', '-f', '-'], { input: JSON.stringify(pod), allowFail: true });
    assert.notEqual(r.code, 0);
    assert.match(r.stderr, /spec: Forbidden: pod updates may not change fields other than/);
    assert.equal((await podJSON()).spec.ephemeralContainers.length, 1);
  });

  it('nothing but spec.ephemeralContainers changes through the subresource, and the write is in managedFields', async () => {
    const r = await replaceRaw((pod) => { pod.metadata.labels.extra = 'x'; pod.spec.ephemeralContainers.push({ name: 'second', image: 'busybox', terminationMessagePolicy: 'File', imagePullPolicy: 'Always' }); });
    assert.equal(r.code, 0, r.out);
    const pod = await podJSON();
    assert.deepEqual(pod.metadata.labels, { run: 'nginx' });
    assert.deepEqual(pod.spec.ephemeralContainers.map((c: any) => c.name).slice(1), ['second']);
    const entry = pod.metadata.managedFields.find((m: any) => m.subresource === 'ephemeralcontainers');
    assert.equal(entry?.operation, 'Update');
  });

  it('Pod Security admission checks the ephemeral container: a privileged one is refused in a baseline namespace', async () => {
    await cluster.kubectl(['create', 'namespace', 'guarded']);
    await cluster.kubectl(['label', 'namespace', 'guarded', 'pod-security.kubernetes.io/enforce=baseline']);
    await cluster.kubectl(['run', 'web', '-n', 'guarded', '--image=nginx']);
    await cluster.kubectl(['wait', '-n', 'guarded', '--for=condition=Ready', 'pod/web', '--timeout=60s']);
    const r = await cluster.kubectl(['debug', '-n', 'guarded', 'web', '--image=busybox', '--profile=sysadmin', '--container=root'], { allowFail: true });
    assert.notEqual(r.code, 0);
    assert.match(r.stderr, /pods "web" is forbidden: violates PodSecurity "baseline:latest": privileged \(container "root" must not set securityContext.privileged=true\)/);
    await cluster.kubectl(['debug', '-n', 'guarded', 'web', '--image=busybox', '--profile=baseline', '--container=plain']);
  });

  it('as upstream, the edit role does not grant pods/ephemeralcontainers (an administrator adds it)', async () => {
    await cluster.kubectl(['create', 'rolebinding', 'jane-edit', '--clusterrole=edit', '--user=jane']);
    const can = async (...args: string[]) => (await cluster.kubectl(['auth', 'can-i', ...args, '--as=jane'], { allowFail: true })).stdout.trim();
    assert.equal(await can('patch', 'pods'), 'yes');
    assert.equal(await can('patch', 'pods', '--subresource=ephemeralcontainers'), 'no');
  });
});
