/**
 * The capability sets of a simulated container (capabilities.ts) and the
 * /proc/1/status lines that show them, as the Configure a Security Context
 * page reads them: containerd's default set, `add` and `drop` (ALL too),
 * privileged, and a non-root user's empty permitted and effective sets;
 * and the groups an image's /etc/group adds (the page's agnhost 50000).
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Container, Pod, PodSecurityContext } from 'kubernetes-types/core/v1.js';
import { capabilityHex, containerCapabilities } from '../../src/kubelet/runtime/simulated/capabilities.js';
import { procStatus } from '../../src/kubelet/runtime/simulated/proc-status.js';
import { imageGroups } from '../../src/kubelet/runtime/simulated/image-accounts.js';
import { visibleProcesses } from '../../src/kubelet/runtime/simulated/processes.js';

const pod = (c: Container, podSC: PodSecurityContext = {}): Pod => ({ metadata: { name: 'p' }, spec: { containers: [c], securityContext: podSC } });
const hello = (securityContext?: Container['securityContext']): Container => ({ name: 'c', image: 'gcr.io/google-samples/hello-app:2.0', ...(securityContext ? { securityContext } : {}) });

describe('simulated container capabilities', () => {
  const cases: [string, Container, PodSecurityContext, { prm: string; bnd: string }][] = [
    ['containerd\'s default set (the page\'s security-context-3)', hello(), {}, { prm: '00000000a80425fb', bnd: '00000000a80425fb' }],
    ['NET_ADMIN and SYS_TIME added (security-context-4): bits 12 and 25', hello({ capabilities: { add: ['NET_ADMIN', 'SYS_TIME'] } }), {}, { prm: '00000000aa0435fb', bnd: '00000000aa0435fb' }],
    ['lower-case names; a CAP_-prefixed one names nothing (containerd adds the prefix)', hello({ capabilities: { add: ['net_admin', 'CAP_SYS_TIME'] } }), {}, { prm: '00000000a80435fb', bnd: '00000000a80435fb' }],
    ['NET_RAW dropped', hello({ capabilities: { drop: ['NET_RAW'] } }), {}, { prm: '00000000a80405fb', bnd: '00000000a80405fb' }],
    ['drop ALL, add NET_BIND_SERVICE', hello({ capabilities: { drop: ['ALL'], add: ['NET_BIND_SERVICE'] } }), {}, { prm: '0000000000000400', bnd: '0000000000000400' }],
    ['add ALL: the 41 capabilities', hello({ capabilities: { add: ['ALL'] } }), {}, { prm: '000001ffffffffff', bnd: '000001ffffffffff' }],
    ['add ALL, drop CHOWN', hello({ capabilities: { add: ['ALL'], drop: ['CHOWN'] } }), {}, { prm: '000001fffffffffe', bnd: '000001fffffffffe' }],
    ['privileged', hello({ privileged: true }), {}, { prm: '000001ffffffffff', bnd: '000001ffffffffff' }],
    ['a non-root user (the pod\'s runAsUser): none permitted, the bounding set kept', hello(), { runAsUser: 1000 }, { prm: '0000000000000000', bnd: '00000000a80425fb' }],
    ['the container\'s runAsUser 0 over the pod\'s 1000', hello({ runAsUser: 0 }), { runAsUser: 1000 }, { prm: '00000000a80425fb', bnd: '00000000a80425fb' }],
  ];
  for (const [name, c, podSC, want] of cases) {
    it(name, () => {
      const caps = containerCapabilities(pod(c, podSC), c);
      assert.deepEqual({ prm: capabilityHex(caps.permitted), eff: capabilityHex(caps.effective), bnd: capabilityHex(caps.bounding), inh: capabilityHex(caps.inheritable) },
        { prm: want.prm, eff: want.prm, bnd: want.bnd, inh: '0000000000000000' });
    });
  }

  it('/proc/1/status: the program\'s name, ids, groups, capability lines, NoNewPrivs and the seccomp mode', () => {
    const c = hello({ runAsUser: 2000, allowPrivilegeEscalation: false, seccompProfile: { type: 'RuntimeDefault' } });
    const p = pod(c, { fsGroup: 2000 });
    const status = procStatus(p, { uid: 2000, args: './hello-app', container: c }, c);
    assert.match(status, /^Name:\thello-app\nUmask:\t0022\nState:\tS \(sleeping\)\n/);
    assert.match(status, /\nUid:\t2000\t2000\t2000\t2000\nGid:\t0\t0\t0\t0\nFDSize:\t64\nGroups:\t0 2000 \n/);
    assert.match(status, /\nCapInh:\t0{16}\nCapPrm:\t0{16}\nCapEff:\t0{16}\nCapBnd:\t00000000a80425fb\nCapAmb:\t0{16}\nNoNewPrivs:\t1\nSeccomp:\t2\nSeccomp_filters:\t1\n/);
    const plain = procStatus(pod(hello()), { uid: 0, args: 'nginx: master process nginx -g daemon off;' }, hello());
    assert.match(plain, /^Name:\tnginx\n/);
    assert.match(plain, /\nCapPrm:\t00000000a80425fb\nCapEff:\t00000000a80425fb\n[^]*\nNoNewPrivs:\t0\nSeccomp:\t0\nSeccomp_filters:\t0\n/);
  });
});

describe('image accounts: the groups containerd adds from the image\'s /etc/group', () => {
  it('agnhost: user-defined-in-image (1000) is in group-defined-in-image (50000); root in alpine\'s root groups; other uids and images in none', () => {
    assert.deepEqual(imageGroups('registry.k8s.io/e2e-test-images/agnhost:2.45', 1000), [50000]);
    assert.deepEqual(imageGroups('registry.k8s.io/e2e-test-images/agnhost:2.45', 0), [0, 1, 2, 3, 4, 6, 10, 11, 20, 26, 27]);
    assert.deepEqual(imageGroups('registry.k8s.io/e2e-test-images/agnhost:2.45', 2000), []);
    assert.equal(imageGroups('busybox:1.28', 1000), undefined);
  });
});

describe('the main process of images whose entrypoint the simulation knows', () => {
  const main = (c: Container) => visibleProcesses(pod(c), c).map((p) => p.args);
  it('hello-app: ./hello-app; agnhost: /agnhost and its args (pause without), a command replacing it', () => {
    assert.deepEqual(main(hello()), ['./hello-app']);
    const agnhost = 'registry.k8s.io/e2e-test-images/agnhost:2.45';
    assert.deepEqual(main({ name: 'c', image: agnhost }), ['/agnhost pause']);
    assert.deepEqual(main({ name: 'c', image: agnhost, args: ['liveness'] }), ['/agnhost liveness']);
    assert.deepEqual(main({ name: 'c', image: agnhost, command: ['sh', '-c', 'sleep 1h'] }), ['sleep 1h']);
  });
});
