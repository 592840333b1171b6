/**
 * A pod's resolv.conf on a real node (src/kubelet/dns.ts): `k8ts agent
 * --runtime cri` over a private containerd, the real kubectl, and the file
 * each container reads (printed by busybox's cat, read with kubectl logs).
 *  1. Without --cluster-dns, a ClusterFirst pod gets the node's resolver
 *     (--resolv-conf) and a Warning MissingClusterDNS event, as upstream.
 *  2. dnsPolicy None takes the pod's dnsConfig alone.
 *  3. With --cluster-dns, a ClusterFirst pod gets the cluster's server, the
 *     namespace's search paths before the node's, and ndots:5.
 */
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startCluster, eventually, type Cluster } from './harness.js';
import { startContainerd, busyboxImage, type PrivateContainerd } from './containerd.js';
import { nodeReady, startCRIAgent, type CRIAgent } from './real-node.js';

const nodeName = 'dns-node';
let cluster: Cluster | undefined;
let ctrd: PrivateContainerd | undefined;
let agent: CRIAgent | undefined;
const work = mkdtempSync(join(tmpdir(), 'k8ts-e2e-dns-'));
const resolvConf = join(work, 'resolv.conf');

async function runPod(name: string, spec: Record<string, unknown> = {}): Promise<string> {
  const pod = {
    apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace: 'default' },
    spec: { nodeName, restartPolicy: 'Never', containers: [{ name: 'main', image: busyboxImage, command: ['sh', '-c', 'cat /etc/resolv.conf; sleep 3600'] }], ...spec },
  };
  await cluster!.kubectl(['create', '-f', '-'], { input: JSON.stringify(pod) });
  return eventually(async () => {
    const r = await cluster!.kubectl(['logs', name], { allowFail: true });
    return r.code === 0 && r.stdout.includes('nameserver') && r.stdout;
  }, 90_000, `${name}'s resolv.conf`);
}

const lines = (text: string) => text.trim().split('\n').map((l) => l.trim()).filter(Boolean).sort();

before(async () => {
  writeFileSync(resolvConf, 'nameserver 192.0.2.53\nsearch corp.example\noptions timeout:2\n');
  ctrd = await startContainerd();
  cluster = await startCluster({ controllers: 'root-ca-cert-publisher' });
  agent = startCRIAgent({ cluster, ctrd, nodeName, work, extraArgs: ['--resolv-conf', resolvConf] });
  await nodeReady(cluster, nodeName, 60_000);
});

after(async () => {
  await agent?.stop();
  await cluster?.cleanup().catch(() => {});
  await ctrd?.stop();
  rmSync(work, { recursive: true, force: true });
});

describe('pod DNS on a real node', () => {
  test('ClusterFirst without --cluster-dns: the node\'s resolver and a MissingClusterDNS warning', async () => {
    const conf = await runPod('dns-fallback');
    assert.deepEqual(lines(conf), ['nameserver 192.0.2.53', 'options timeout:2', 'search corp.example']);
    const events = await eventually(async () => {
      const r = await cluster!.kubectl(['get', 'events', '--field-selector', 'involvedObject.name=dns-fallback,reason=MissingClusterDNS', '-o', 'json']);
      const items = JSON.parse(r.stdout).items;
      return items.length > 0 && items;
    }, 30_000, 'the MissingClusterDNS event');
    assert.equal(events[0].type, 'Warning');
    assert.match(events[0].message, /^pod: "dns-fallback_default\([0-9a-f-]+\)"\. kubelet does not have ClusterDNS IP configured and cannot create Pod using "ClusterFirst" policy\. Falling back to "Default" policy\.$/);
  });

  test('dnsPolicy None: the pod\'s dnsConfig alone', async () => {
    const conf = await runPod('dns-none', {
      dnsPolicy: 'None',
      dnsConfig: { nameservers: ['192.0.2.99'], searches: ['ns1.svc.cluster-domain.example', 'my.dns.search.suffix'], options: [{ name: 'ndots', value: '2' }, { name: 'edns0' }] },
    });
    assert.deepEqual(lines(conf), ['nameserver 192.0.2.99', 'options ndots:2 edns0', 'search ns1.svc.cluster-domain.example my.dns.search.suffix']);
  });

  test('with --cluster-dns: the cluster\'s server, namespace searches first, ndots:5', async () => {
    await agent!.stop();
    agent = startCRIAgent({ cluster: cluster!, ctrd: ctrd!, nodeName, work, extraArgs: ['--resolv-conf', resolvConf, '--cluster-dns', '10.96.0.10', '--cluster-domain', 'cluster.local'] });
    await nodeReady(cluster!, nodeName, 60_000);
    const conf = await runPod('dns-cluster');
    assert.deepEqual(lines(conf), ['nameserver 10.96.0.10', 'options ndots:5', 'search default.svc.cluster.local svc.cluster.local cluster.local corp.example']);
  });
});
