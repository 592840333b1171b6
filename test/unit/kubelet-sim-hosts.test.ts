/** The kubelet's managed /etc/hosts with hostAliases (simulated and real nodes), and `hostname -f/-d/-i/-s` reading it. */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { managedHostsFile, nodeHostsFile, podHostnameAndDomain } from '../../src/kubelet/hosts-file.js';
import { hostsMount } from '../../src/kubelet/runtime/cri/hosts-mount.js';
import { hostnameCommand } from '../../src/kubelet/runtime/simulated/hostname.js';

const boilerplate = '# Kubernetes-managed hosts file.\n127.0.0.1\tlocalhost\n::1\tlocalhost ip6-localhost ip6-loopback\n'
  + 'fe00::0\tip6-localnet\nfe00::0\tip6-mcastprefix\nfe00::1\tip6-allnodes\nfe00::2\tip6-allrouters\n';

describe('managedHostsFile', () => {
  it('appends the pod\'s hostAliases under their heading, one line per IP (the HostAliases page)', () => {
    const aliases = [{ ip: '127.0.0.1', hostnames: ['foo.local', 'bar.local'] }, { ip: '10.1.2.3', hostnames: ['foo.remote', 'bar.remote'] }];
    assert.equal(managedHostsFile('10.200.0.5', 'hostaliases-pod', { aliases }), `${boilerplate}10.200.0.5\thostaliases-pod\n`
      + '\n# Entries added by HostAliases.\n127.0.0.1\tfoo.local\tbar.local\n10.1.2.3\tfoo.remote\tbar.remote\n');
  });

  it('has no heading without aliases, and the FQDN first for a pod with a subdomain', () => {
    assert.equal(managedHostsFile('10.200.0.4', 'nginx', { aliases: [] }), `${boilerplate}10.200.0.4\tnginx\n`);
    assert.equal(managedHostsFile('10.1.1.1', 'busybox-1', { domain: 'sub.default.svc.cluster.local' }),
      `${boilerplate}10.1.1.1\tbusybox-1.sub.default.svc.cluster.local\tbusybox-1\n`);
  });
});

describe('hostname', () => {
  const hosts = managedHostsFile('10.1.1.1', 'busybox-1', { domain: 'sub.default.svc.cluster.local' });
  const run = (args: string[], file: string | undefined = hosts) => {
    let text = '';
    const code = hostnameCommand(args, 'busybox-1', file, (t) => { text += t; });
    return { code, text };
  };

  it('prints the hostname, the canonical name from /etc/hosts, its domain, address and short name', () => {
    assert.deepEqual(run([]), { code: 0, text: 'busybox-1\n' });
    assert.deepEqual(run(['-f']), { code: 0, text: 'busybox-1.sub.default.svc.cluster.local\n' });
    assert.deepEqual(run(['--fqdn']), { code: 0, text: 'busybox-1.sub.default.svc.cluster.local\n' });
    assert.deepEqual(run(['-d']), { code: 0, text: 'sub.default.svc.cluster.local\n' });
    assert.deepEqual(run(['-i']), { code: 0, text: '10.1.1.1 \n' });
    assert.deepEqual(run(['-s']), { code: 0, text: 'busybox-1\n' });
  });

  it('gives the hostname itself where /etc/hosts has no FQDN for it', () => {
    assert.deepEqual(run(['-f'], managedHostsFile('10.1.1.2', 'busybox-1')), { code: 0, text: 'busybox-1\n' });
    assert.deepEqual(run(['-d'], managedHostsFile('10.1.1.2', 'busybox-1')), { code: 0, text: '' });
  });
});

describe('nodeHostsFile and podHostnameAndDomain', () => {
  it('gives a hostNetwork pod the node\'s hosts file with the aliases after it', () => {
    assert.equal(nodeHostsFile('127.0.0.1\tlocalhost\n', [{ ip: '10.1.2.3', hostnames: ['foo.remote'] }]),
      '127.0.0.1\tlocalhost\n\n# Entries added by HostAliases.\n10.1.2.3\tfoo.remote\n');
    assert.equal(nodeHostsFile('127.0.0.1\tlocalhost\n', undefined), '127.0.0.1\tlocalhost\n');
  });

  it('takes spec.hostname over the pod\'s name, and the subdomain\'s domain in the cluster domain', () => {
    assert.deepEqual(podHostnameAndDomain({ metadata: { name: 'busybox1', namespace: 'ns' }, spec: { hostname: 'busybox-1', subdomain: 'sub' } }, 'cluster.local'),
      { hostname: 'busybox-1', domain: 'sub.ns.svc.cluster.local' });
    assert.deepEqual(podHostnameAndDomain({ metadata: { name: 'web-0', namespace: 'ns' } }, 'cluster.local'), { hostname: 'web-0' });
  });
});

describe('hostsMount (real nodes)', () => {
  const pod = (spec: Record<string, unknown>) => ({ metadata: { name: 'p', namespace: 'default', uid: 'u1' }, spec: { containers: [], ...spec } });
  it('writes pods/UID/etc-hosts and mounts it at /etc/hosts, read-write', () => {
    const rootDir = mkdtempSync(join(tmpdir(), 'k8ts-hosts-'));
    try {
      const m = hostsMount(pod({ hostAliases: [{ ip: '127.0.0.1', hostnames: ['foo.local'] }] }), { name: 'c' }, { podIP: '10.1.1.1', rootDir, clusterDomain: 'cluster.local' });
      assert.deepEqual(m, { containerPath: '/etc/hosts', hostPath: join(rootDir, 'pods', 'u1', 'etc-hosts'), readonly: false, propagation: 'PROPAGATION_PRIVATE' });
      assert.equal(readFileSync(m!.hostPath, 'utf8'), `${managedHostsFile('10.1.1.1', 'p')}\n# Entries added by HostAliases.\n127.0.0.1\tfoo.local\n`);
      const nodeHostsPath = join(rootDir, 'node-hosts');
      writeFileSync(nodeHostsPath, '127.0.0.1\tlocalhost\n');
      const host = hostsMount(pod({ hostNetwork: true }), { name: 'c' }, { podIP: '192.168.1.2', rootDir, clusterDomain: 'cluster.local', nodeHostsPath });
      assert.equal(readFileSync(host!.hostPath, 'utf8'), '127.0.0.1\tlocalhost\n');
    } finally {
      rmSync(rootDir, { recursive: true, force: true });
    }
  });

  it('mounts nothing before the sandbox has an IP, or where the container mounts /etc/hosts itself', () => {
    assert.equal(hostsMount(pod({}), { name: 'c' }, { rootDir: '/nonexistent', clusterDomain: 'cluster.local' }), undefined);
    assert.equal(hostsMount(pod({}), { name: 'c', volumeMounts: [{ name: 'h', mountPath: '/etc/hosts' }] }, { podIP: '10.1.1.1', rootDir: '/nonexistent', clusterDomain: 'cluster.local' }), undefined);
  });
});
