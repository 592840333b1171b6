/**
 * --service-cluster-ip-range (kube-apiserver's flag; kubeadm init's
 * --service-cidr reaches it): the `kubernetes` Service takes the range's first
 * address, others are allocated inside it, and a requested address outside it
 * is refused with the allocator's words.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startCluster, eventually, type Cluster } from './harness.js';

describe('service cluster IP range (--service-cluster-ip-range)', () => {
  let cluster: Cluster;
  before(async () => { cluster = await startCluster({ extraArgs: ['--service-cluster-ip-range', '10.100.0.0/24'] }); });
  after(async () => { await cluster?.cleanup(); });

  it('gives the kubernetes Service the first address of the range', async () => {
    const ip = await eventually(async () => (await cluster.kubectl(['get', 'svc', 'kubernetes', '-o', 'jsonpath={.spec.clusterIP}'], { allowFail: true })).stdout.trim(), 10_000, 'kubernetes Service');
    assert.equal(ip, '10.100.0.1');
  });

  it('allocates every new Service inside the range', async () => {
    for (let i = 0; i < 5; i++) await cluster.kubectl(['create', 'service', 'clusterip', `s${i}`, '--tcp=80:80']);
    const ips = (await cluster.kubectl(['get', 'svc', '-o', 'jsonpath={range .items[*]}{.spec.clusterIP}{"\\n"}{end}'])).stdout.trim().split('\n');
    assert.equal(ips.length, 6);
    for (const ip of ips) assert.match(ip, /^10\.100\.0\.(\d+)$/);
    assert.ok(ips.every((ip) => Number(ip.split('.')[3]) >= 1 && Number(ip.split('.')[3]) <= 254));
  });

  it('refuses a requested cluster IP outside the range, as kube-apiserver does', async () => {
    const r = await cluster.kubectl(['create', 'service', 'clusterip', 'outside', '--tcp=80:80', '--clusterip=10.96.0.50'], { allowFail: true });
    assert.notEqual(r.code, 0);
    assert.equal(r.stderr.trim(), 'error: failed to create ClusterIP service: Service "outside" is invalid: spec.clusterIPs: Invalid value: []string{"10.96.0.50"}: failed to allocate IP 10.96.0.50: the provided IP (10.96.0.50) is not in the valid range. The range of valid IPs is 10.100.0.0/24');
    const ok = await cluster.kubectl(['create', 'service', 'clusterip', 'inside', '--tcp=80:80', '--clusterip=10.100.0.77']);
    assert.match(ok.stdout, /service\/inside created/);
  });

  it('refuses IPv6 and RequireDualStack Services on this single-stack cluster, as kube-apiserver does', async () => {
    const create = (name: string, spec: Record<string, unknown>) => cluster.kubectl(['create', '-f', '-'], { allowFail: true,
      input: JSON.stringify({ apiVersion: 'v1', kind: 'Service', metadata: { name }, spec: { selector: { app: name }, ports: [{ port: 80 }], ...spec } }) });
    const v6 = await create('v6', { ipFamilies: ['IPv6'] });
    assert.equal(v6.stderr.trim(), 'The Service "v6" is invalid: spec.ipFamilies[0]: Invalid value: "IPv6": not configured on this cluster');
    const dual = await create('dual', { ipFamilyPolicy: 'RequireDualStack' });
    assert.equal(dual.stderr.trim(), 'The Service "dual" is invalid: spec.ipFamilyPolicy: Invalid value: "RequireDualStack": this cluster is not configured for dual-stack services');
    const prefer = await create('prefer', { ipFamilyPolicy: 'PreferDualStack' });
    assert.equal(prefer.code, 0, prefer.stderr);
    assert.equal((await cluster.kubectl(['get', 'svc', 'prefer', '-o', 'jsonpath={.spec.ipFamilies}'])).stdout, '["IPv4"]');
  });

  it('refuses a bad range at start with the flag\'s name', async () => {
    const bad = await startCluster({ extraArgs: ['--service-cluster-ip-range', '10.100.0.0/30'] }).then((c) => c.cleanup().then(() => 'started'), (e: Error) => e.message);
    assert.match(bad, /invalid argument "10\.100\.0\.0\/30" for "--service-cluster-ip-range" flag/);
  });
});
