/**
 * The CoreDNS addon as `k8ts up` creates it (kubeadm's addon phase): the
 * coredns Deployment and kube-dns Service at 10.96.0.10 with kubeadm's
 * shape, RBAC that lets the coredns service account watch what DNS needs and
 * nothing more, the two replicas Ready on the simulated nodes; then a real
 * `k8ts dns` authenticated as that service account (its token, in a
 * kubeconfig) answers for the cluster's own Services.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Deployment } from 'kubernetes-types/apps/v1.js';
import type { Service } from 'kubernetes-types/core/v1.js';
import { parse } from 'yaml';
import { cliPath, eventually } from './harness.js';
import { startUp, type UpCluster } from './up-cluster.js';
import { udpQuery, dataOf } from './dns-client.js';

let up: UpCluster;
let dns: ChildProcess | undefined;

describe('the CoreDNS addon of k8ts up', () => {
  before(async () => { up = await startUp('k8ts-e2e-dns-addon-'); });
  after(async () => {
    if (dns && dns.exitCode === null) dns.kill('SIGKILL');
    await up.close();
  });

  it('creates the coredns Deployment as kubeadm does, with k8ts dns as its command', async () => {
    const d: Deployment = JSON.parse((await up.kubectl(['get', 'deployment', 'coredns', '-n', 'kube-system', '-o', 'json'])).stdout);
    assert.deepEqual(d.metadata!.labels, { 'k8s-app': 'kube-dns' });
    assert.equal(d.spec!.replicas, 2);
    const pod = d.spec!.template.spec!;
    assert.equal(pod.priorityClassName, 'system-cluster-critical');
    assert.equal(pod.serviceAccountName, 'coredns');
    assert.equal(pod.hostNetwork, true);
    assert.deepEqual(pod.tolerations, [{ key: 'CriticalAddonsOnly', operator: 'Exists' }, { key: 'node-role.kubernetes.io/control-plane', effect: 'NoSchedule' }]);
    const c = pod.containers[0];
    assert.match(c.image!, /^k8ts\.local\/k8ts:\S+$/);
    assert.deepEqual(c.command!.slice(0, 3), ['k8ts', 'dns', '--bind-address=$(POD_IP)']);
    assert.deepEqual(c.env!.find((e) => e.name === 'POD_IP')?.valueFrom, { fieldRef: { apiVersion: 'v1', fieldPath: 'status.podIP' } });
    assert.deepEqual(c.readinessProbe!.httpGet, { path: '/ready', port: 8181, scheme: 'HTTP' });
    assert.deepEqual(c.livenessProbe!.httpGet, { path: '/health', port: 8080, scheme: 'HTTP' });
    assert.deepEqual(c.ports!.map((p) => `${p.name} ${p.containerPort}/${p.protocol}`), ['dns 53/UDP', 'dns-tcp 53/TCP', 'metrics 9153/TCP']);
  });

  it('creates the kube-dns Service at the service CIDR\'s tenth address', async () => {
    const s: Service = JSON.parse((await up.kubectl(['get', 'service', 'kube-dns', '-n', 'kube-system', '-o', 'json'])).stdout);
    assert.equal(s.spec!.clusterIP, '10.96.0.10');
    assert.deepEqual(s.spec!.selector, { 'k8s-app': 'kube-dns' });
    assert.deepEqual(s.spec!.ports!.map((p) => `${p.name} ${p.port}/${p.protocol}`), ['dns 53/UDP', 'dns-tcp 53/TCP', 'metrics 9153/TCP']);
  });

  it('the coredns service account may list and watch Services and EndpointSlices, and nothing more', async () => {
    const can = async (...args: string[]) => (await up.kubectl(['auth', 'can-i', ...args, '--as=system:serviceaccount:kube-system:coredns'], undefined, true)).stdout.trim();
    assert.equal(await can('watch', 'services', '-A'), 'yes');
    assert.equal(await can('list', 'endpointslices.discovery.k8s.io', '-A'), 'yes');
    assert.equal(await can('create', 'services', '-n', 'default'), 'no');
    assert.equal(await can('get', 'secrets', '-n', 'kube-system'), 'no');
  });

  it('both replicas become Ready on the simulated nodes', async () => {
    await up.kubectl(['rollout', 'status', 'deployment/coredns', '-n', 'kube-system', '--timeout=60s']);
    const r = await up.kubectl(['get', 'deployment', 'coredns', '-n', 'kube-system', '--no-headers']);
    assert.match(r.stdout, /^coredns\s+2\/2\s+2\s+2\s/);
  });

  it('k8ts dns with the coredns service account\'s token answers for kube-dns and kubernetes', async () => {
    const token = (await up.kubectl(['create', 'token', 'coredns', '-n', 'kube-system'])).stdout.trim();
    const admin = parse(readFileSync(up.kubeconfig, 'utf8'));
    admin.users = [{ name: 'coredns', user: { token } }];
    admin.contexts[0].context.user = 'coredns';
    const kubeconfig = join(up.dir, 'coredns.conf');
    writeFileSync(kubeconfig, JSON.stringify(admin));
    writeFileSync(join(up.dir, 'resolv.conf'), '');
    const host = `127.53.${1 + Math.floor(Math.random() * 250)}.${1 + Math.floor(Math.random() * 250)}`;
    dns = spawn(process.execPath, [cliPath, 'dns', '--kubeconfig', kubeconfig, '--bind-address', host, '--port', '10053',
      '--health-port', '0', '--ready-port', '0', '--metrics-port', '0', '--resolv-conf', join(up.dir, 'resolv.conf')], { stdio: ['ignore', 'ignore', 'inherit'] });
    const answer = async (name: string) => dataOf((await udpQuery(host, 10053, name, 'A')).answers, 'A')[0];
    assert.equal(await eventually(() => answer('kube-dns.kube-system.svc.cluster.local'), 20_000, 'kube-dns answered'), '10.96.0.10');
    assert.equal(await answer('kubernetes.default.svc.cluster.local'), '10.96.0.1');
  });
});
