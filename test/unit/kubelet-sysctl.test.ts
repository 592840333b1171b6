/**
 * The kubelet's sysctl allowlist (pkg/kubelet/sysctl): the safe list, name
 * normalization, host namespaces, prefixes for unsafe sysctls a node allows,
 * and the admission result the pod gets (SysctlForbidden, first of the checks).
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Node, Pod } from 'kubernetes-types/core/v1.js';
import { SysctlAllowlist, nodeSysctlAllowlist, normalizeSysctlName } from '../../src/kubelet/sysctl.js';
import { parseUnsafeSysctlsFlag } from '../../src/kubelet/flags.js';
import { parseKubeletConfiguration } from '../../src/cli/kubelet-config-file.js';
import { canAdmitPod } from '../../src/kubelet/admission.js';

const pod = (sysctls: Record<string, string>, spec: Partial<NonNullable<Pod['spec']>> = {}): Pod => ({
  metadata: { name: 'sysctl-example', namespace: 'default' },
  spec: { containers: [{ name: 'c', image: 'busybox' }], securityContext: { sysctls: Object.entries(sysctls).map(([name, value]) => ({ name, value })) }, ...spec },
});

describe('kubelet sysctl allowlist', () => {
  const safe = new SysctlAllowlist();
  const cases: [string, Pod, string | undefined][] = [
    ['safe sysctls only', pod({ 'kernel.shm_rmid_forced': '0', 'net.ipv4.ip_local_port_range': '32768 60999', 'net.ipv4.tcp_rmem': '4096 87380 16777216' }), undefined],
    ['the page\'s pod: somaxconn is namespaced but unsafe', pod({ 'kernel.shm_rmid_forced': '0', 'net.core.somaxconn': '1024', 'kernel.msgmax': '65536' }),
      'forbidden sysctl: "net.core.somaxconn" not allowlisted'],
    ['a slash-separated name is normalized', pod({ 'net/ipv4/ip_local_port_range': '1024 65000' }), undefined],
    ['a network sysctl with hostNetwork', pod({ 'net.ipv4.tcp_syncookies': '1' }, { hostNetwork: true }),
      'forbidden sysctl: "net.ipv4.tcp_syncookies" not allowed with host Net enabled'],
    ['an IPC sysctl with hostIPC', pod({ 'kernel.shm_rmid_forced': '1' }, { hostIPC: true }),
      'forbidden sysctl: "kernel.shm_rmid_forced" not allowed with host IPC enabled'],
    ['no sysctls', { metadata: { name: 'p' }, spec: { containers: [] } }, undefined],
  ];
  for (const [name, p, want] of cases) it(name, () => assert.equal(safe.forbidden(p), want));

  it('a node allowing unsafe ones, by name or prefix', () => {
    const node = new SysctlAllowlist(['kernel.shm_rmid_forced', 'net.core.somaxconn', 'kernel.msg*']);
    assert.equal(node.forbidden(pod({ 'net.core.somaxconn': '1024', 'kernel.msgmax': '65536' })), undefined);
    assert.equal(node.forbidden(pod({ 'kernel.msgmax': '65536' }, { hostIPC: true })), 'forbidden sysctl: "kernel.msgmax" not allowed with host IPC enabled');
  });

  it('normalizeSysctlName: only when the first separator is a slash', () => {
    assert.equal(normalizeSysctlName('net/ipv4/conf/eno2.100/rp_filter'), 'net.ipv4.conf.eno2/100.rp_filter');
    assert.equal(normalizeSysctlName('net.ipv4.conf.eno2/100.rp_filter'), 'net.ipv4.conf.eno2/100.rp_filter');
    assert.equal(normalizeSysctlName('kernel'), 'kernel');
  });

  it('admission: SysctlForbidden before any resource check', () => {
    const node: Node = { metadata: { name: 'n' }, status: { allocatable: { pods: '0', cpu: '1', memory: '1Gi' } } };
    assert.deepEqual(canAdmitPod(node, pod({ 'net.core.somaxconn': '1024' }), []),
      { admit: false, reason: 'SysctlForbidden', message: 'forbidden sysctl: "net.core.somaxconn" not allowlisted' });
  });

  it('--allowed-unsafe-sysctls: the page\'s patterns beside the safe list, as the node admits with them', () => {
    const node = parseUnsafeSysctlsFlag(' kernel.msg*, net.core.somaxconn ')!;
    assert.equal(node.forbidden(pod({ 'kernel.shm_rmid_forced': '0', 'net.core.somaxconn': '1024', 'kernel.msgmax': '65536' })), undefined);
    assert.equal(node.forbidden(pod({ 'net.ipv4.tcp_max_syn_backlog': '1024' })), 'forbidden sysctl: "net.ipv4.tcp_max_syn_backlog" not allowlisted');
    assert.equal(node.forbidden(pod({ 'net.core.somaxconn': '1024' }, { hostNetwork: true })), 'forbidden sysctl: "net.core.somaxconn" not allowed with host Net enabled');
    assert.equal(nodeSysctlAllowlist(['net/core/somaxconn']).forbidden(pod({ 'net.core.somaxconn': '1' })), undefined);
    assert.equal(parseUnsafeSysctlsFlag(undefined), undefined);
    assert.equal(parseUnsafeSysctlsFlag(' , '), undefined);
  });

  it('--allowed-unsafe-sysctls: the kubelet\'s start-up errors', () => {
    assert.throws(() => nodeSysctlAllowlist(['kernel.panic']), { message: 'the sysctls "kernel.panic" are not known to be namespaced' });
    assert.throws(() => nodeSysctlAllowlist(['vm.*']), { message: 'the sysctls "vm." are not known to be namespaced' });
    assert.throws(() => nodeSysctlAllowlist(['*']), { message: 'the sysctls "" are not known to be namespaced' });
    assert.throws(() => nodeSysctlAllowlist(['kernel.sem', 'fs.inotify.max_user_instances']), { message: 'the sysctls "fs.inotify.max_user_instances" are not known to be namespaced' });
    const fmt = '([a-z0-9]([-_a-z0-9]*[a-z0-9])?[\\./])*([a-z0-9][-_a-z0-9]*)?[a-z0-9*]';
    for (const bad of ['Net.core', 'net..core', 'net.core.', `net.${'a'.repeat(250)}`]) {
      assert.throws(() => nodeSysctlAllowlist([bad]), { message: `sysctl ${JSON.stringify(bad)} must have at most 253 characters and match regex ${fmt}` });
    }
    for (const good of ['net.*', 'kernel.msg*', 'fs.mqueue.*', 'kernel.shm_rmid_forced', 'net.ipv4.conf.all.rp_filter']) assert.ok(nodeSysctlAllowlist([good]));
  });

  it('KubeletConfiguration allowedUnsafeSysctls: a list of strings', () => {
    const doc = (v: string) => `apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\nallowedUnsafeSysctls: ${v}\n`;
    assert.deepEqual(parseKubeletConfiguration(doc('["kernel.msg*", "net.core.somaxconn"]'), 'file "c"').allowedUnsafeSysctls, ['kernel.msg*', 'net.core.somaxconn']);
    assert.throws(() => parseKubeletConfiguration(doc('kernel.msg*'), 'file "c"'), { message: 'invalid configuration: allowedUnsafeSysctls (--allowed-unsafe-sysctls) must be a list of strings' });
  });
});
