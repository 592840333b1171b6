/**
 * A kubelet on node credentials (issue #8): a real `k8ts server` with every
 * controller, and a real `k8ts agent --runtime simulated` whose kubeconfig
 * holds a client certificate for CN system:node:kn1, O system:nodes from the
 * cluster CA, like kubeadm's kubelet.conf. Under the Node authorizer and
 * NodeRestriction it registers its Node, heartbeats its Lease, runs the pods
 * scheduled to it and posts their status, records events, and mirrors its
 * static pods; its credentials then read the secret its pod uses.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cliPath, eventually, startCluster, type Cluster } from './harness.js';
import { killChild } from './helpers.js';
import { nodeKubeconfig } from './node-credentials.js';

const node = 'kn1';
const root = mkdtempSync(join(tmpdir(), 'k8ts-e2e-node-agent-'));
const manifests = join(root, 'manifests');
let cluster: Cluster;
let agent: ChildProcess;
let kubeletConf: string;
const agentLog: string[] = [];

const staticPod = `apiVersion: v1
kind: Pod
metadata:
  name: static-web
spec:
  containers:
  - name: web
    image: nginx
`;

const workload = `apiVersion: v1
kind: Pod
metadata:
  name: uses-secret
spec:
  containers:
  - name: app
    image: nginx
    envFrom:
    - secretRef:
        name: app-secret
    volumeMounts:
    - name: config
      mountPath: /etc/app
  volumes:
  - name: config
    configMap:
      name: app-config
`;

async function getJSON(args: string[]): Promise<any | undefined> {
  const r = await cluster.kubectl([...args, '-o', 'json'], { allowFail: true });
  return r.code === 0 ? JSON.parse(r.stdout) : undefined;
}

describe('k8ts agent with node credentials', () => {
  before(async () => {
    mkdirSync(manifests, { recursive: true });
    writeFileSync(join(manifests, 'static-web.yaml'), staticPod);
    cluster = await startCluster({ controllers: 'all' });
    kubeletConf = await nodeKubeconfig(cluster, node);
    agent = spawn(process.execPath, [cliPath, 'agent', '--kubeconfig', kubeletConf, '--node-name', node, '--runtime', 'simulated',
      '--kubelet-port', '0', '--pod-manifest-path', manifests, '--file-check-frequency', '1s', '--delete-delay', '100ms'], {
      stdio: ['ignore', 'ignore', 'pipe'], env: { ...process.env, K8TS_LOG_LEVEL: 'info' },
    });
    agent.stderr!.on('data', (d: Buffer) => agentLog.push(d.toString()));
  });
  after(async () => {
    if (agent) await killChild(agent);
    await cluster?.cleanup();
    rmSync(root, { recursive: true, force: true });
  });

  const log = () => `\nagent log:\n${agentLog.join('')}`;

  it('registers its Node, Ready, and heartbeats its Lease', async () => {
    await eventually(async () => {
      const n = await getJSON(['get', 'node', node]);
      return n?.status?.conditions?.some((c: any) => c.type === 'Ready' && c.status === 'True');
    }, 30_000, `node ${node} Ready${log()}`);
    const first = await eventually(() => getJSON(['-n', 'kube-node-lease', 'get', 'lease', node]), 30_000, `lease${log()}`);
    assert.equal(first.spec.holderIdentity, node);
    await eventually(async () => (await getJSON(['-n', 'kube-node-lease', 'get', 'lease', node]))?.spec?.renewTime !== first.spec.renewTime,
      60_000, `lease renewed${log()}`);
  });

  it('creates its CSINode under its own credentials (Node authorizer and NodeRestriction allow it)', async () => {
    const csiNode = await eventually(() => getJSON(['get', 'csinode', node]), 30_000, `CSINode${log()}`);
    assert.deepEqual(csiNode.metadata.ownerReferences.map((r: any) => `${r.kind}/${r.name}`), [`Node/${node}`]);
  });

  it('mirrors its static pod, owned by its Node, Running', async () => {
    const mirror = await eventually(async () => {
      const p = await getJSON(['get', 'pod', `static-web-${node}`]);
      return p?.status?.phase === 'Running' ? p : undefined;
    }, 30_000, `mirror pod Running${log()}`);
    assert.ok('kubernetes.io/config.mirror' in mirror.metadata.annotations);
    assert.equal(mirror.metadata.ownerReferences[0].kind, 'Node');
    assert.equal(mirror.metadata.ownerReferences[0].name, node);
  });

  it('runs a scheduled pod using a secret and a configmap, posts its status and events', async () => {
    await cluster.kubectl(['create', 'secret', 'generic', 'app-secret', '--from-literal=TOKEN=t']);
    await cluster.kubectl(['create', 'configmap', 'app-config', '--from-literal=app.conf=x']);
    await cluster.kubectl(['create', '-f', '-'], { input: workload });
    await eventually(async () => {
      const p = await getJSON(['get', 'pod', 'uses-secret']);
      return p?.spec?.nodeName === node && p.status?.phase === 'Running' && p.status.containerStatuses?.[0]?.ready;
    }, 30_000, `pod Running and ready on ${node}${log()}`);
    await eventually(async () => {
      const events = await getJSON(['get', 'events', '--field-selector', 'involvedObject.name=uses-secret']);
      return events?.items?.some((e: any) => e.reason === 'Started' && e.source?.host === node);
    }, 30_000, `the kubelet's Started event${log()}`);
    // What the kubelet may read follows what its pods use.
    const asNode = (args: string[]) => cluster.kubectl(['--kubeconfig', kubeletConf, ...args], { allowFail: true });
    await eventually(async () => (await asNode(['get', 'secret', 'app-secret'])).code === 0, 20_000, 'the node reads its pod\'s secret');
    const cm = await asNode(['get', 'configmap', 'app-config', '-o', 'name']);
    assert.equal(cm.code, 0, cm.stderr);
    await cluster.kubectl(['create', 'secret', 'generic', 'not-for-nodes', '--from-literal=k=v']);
    const refused = await asNode(['get', 'secret', 'not-for-nodes']);
    assert.match(refused.stderr, /no relationship found between node 'kn1' and this object/);
  });

  it('deletes a pod it ran once the API asks it to', async () => {
    await cluster.kubectl(['delete', 'pod', 'uses-secret', '--timeout=30s']);
    assert.equal(await getJSON(['get', 'pod', 'uses-secret']), undefined);
    assert.doesNotMatch(agentLog.join(''), /is forbidden/, `the agent was refused something${log()}`);
  });
});
