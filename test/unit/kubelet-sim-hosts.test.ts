/** The kubelet's managed /etc/hosts with hostAliases, and `hostname -f/-d/-i/-s` reading it, in simulated containers. */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { managedHostsFile } from '../../src/kubelet/runtime/simulated/rootfs.js';
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
