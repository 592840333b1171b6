/** The CRI runtime's pure parts: configs, back-off, runtime status, error words, host info. */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Pod } from 'kubernetes-types/core/v1.js';
import {
  ContainerConfigError, containerConfig, containerEnv, expandVars, labelNodeName, podSandboxConfig,
} from '../../src/kubelet/runtime/cri/config.js';
import { Backoff, goDuration } from '../../src/kubelet/runtime/cri/backoff.js';
import { newPodEntry, podStatus, type ContainerRecord } from '../../src/kubelet/runtime/cri/podstate.js';
import { goGRPCError } from '../../src/kubelet/runtime/cri/images.js';
import { MountError, containerMounts, emptyDirPath } from '../../src/kubelet/runtime/cri/volumes.js';
import { criTarget, protoPath } from '../../src/kubelet/runtime/cri/client.js';
import { prettyName } from '../../src/kubelet/hostinfo.js';
import { containerStatus } from '../../src/kubelet/status/generate.js';

const ctx = { nodeName: 'n1', podLogsDir: '/var/log/pods', hostIP: '192.0.2.10' };
const pod = (spec: Partial<NonNullable<Pod['spec']>> = {}): Pod => ({
  metadata: { name: 'web', namespace: 'prod', uid: 'u-1', labels: { app: 'web' } },
  spec: { containers: [{ name: 'c', image: 'k8ts.local/busybox:1' }], ...spec },
});

describe('CRI configs', () => {
  it('labels the sandbox with the pod and the node, logs under <ns>_<name>_<uid>', () => {
    const cfg = podSandboxConfig(pod(), ctx, 2);
    assert.deepEqual(cfg.metadata, { name: 'web', uid: 'u-1', namespace: 'prod', attempt: 2 });
    assert.equal(cfg.logDirectory, '/var/log/pods/prod_web_u-1');
    assert.equal(cfg.labels!['io.kubernetes.pod.uid'], 'u-1');
    assert.equal(cfg.labels![labelNodeName], 'n1');
    assert.equal(cfg.labels!.app, 'web');
    assert.equal(cfg.hostname, 'web');
    assert.deepEqual(cfg.linux!.securityContext!.namespaceOptions, { network: 'POD', pid: 'CONTAINER', ipc: 'POD' });
  });

  it('hostNetwork: network NODE and no hostname; hostPID, hostIPC, shareProcessNamespace', () => {
    const table: [Partial<NonNullable<Pod['spec']>>, object, string][] = [
      [{ hostNetwork: true }, { network: 'NODE', pid: 'CONTAINER', ipc: 'POD' }, ''],
      [{ hostPID: true, hostIPC: true }, { network: 'POD', pid: 'NODE', ipc: 'NODE' }, 'web'],
      [{ shareProcessNamespace: true }, { network: 'POD', pid: 'POD', ipc: 'POD' }, 'web'],
    ];
    for (const [spec, ns, hostname] of table) {
      const cfg = podSandboxConfig(pod(spec), ctx, 0);
      assert.deepEqual(cfg.linux!.securityContext!.namespaceOptions, ns);
      assert.equal(cfg.hostname, hostname);
    }
  });

  it('the pod\'s sysctls go to the sandbox, names dotted as the kubelet converts them; none: no sysctls member', () => {
    const cfg = podSandboxConfig(pod({ securityContext: { sysctls: [
      { name: 'kernel.shm_rmid_forced', value: '1' }, { name: 'net/ipv4/ip_local_port_range', value: '1024 65000' },
    ] } }), ctx, 0);
    assert.deepEqual(cfg.linux!.sysctls, { 'kernel.shm_rmid_forced': '1', 'net.ipv4.ip_local_port_range': '1024 65000' });
    assert.equal('sysctls' in podSandboxConfig(pod(), ctx, 0).linux!, false);
  });

  it('port mappings: every app container port, TCP by default, a repeated name left out (MakePortMappings)', () => {
    const cfg = podSandboxConfig(pod({
      containers: [
        { name: 'a', image: 'i', ports: [{ name: 'http', containerPort: 80, hostPort: 8080 }, { name: 'http', containerPort: 81 }, { containerPort: 53, protocol: 'UDP', hostIP: '127.0.0.1', hostPort: 53 }] },
        { name: 'b', image: 'i', ports: [{ name: 'http', containerPort: 9090 }] },
      ],
      initContainers: [{ name: 'init', image: 'i', ports: [{ containerPort: 7 }] }],
    }), ctx, 0);
    assert.deepEqual(cfg.portMappings, [
      { protocol: 'TCP', containerPort: 80, hostPort: 8080, hostIp: '' },
      { protocol: 'UDP', containerPort: 53, hostPort: 53, hostIp: '127.0.0.1' },
      { protocol: 'TCP', containerPort: 9090, hostPort: 0, hostIp: '' },
    ]);
    assert.deepEqual(podSandboxConfig(pod(), ctx, 0).portMappings, []);
  });

  it('expands $(VAR) as upstream: defined → value, undefined → literal, $$ → $', () => {
    const env = new Map([['A', 'x'], ['B', 'y']]);
    const table: [string, string][] = [
      ['$(A)', 'x'], ['$(A)-$(B)', 'x-y'], ['$(C)', '$(C)'], ['$$(A)', '$(A)'], ['a$b', 'a$b'], ['$(A', '$(A'],
    ];
    for (const [input, want] of table) assert.equal(expandVars(input, env), want, input);
  });

  it('env: values expand earlier ones; fieldRefs resolve; other valueFrom is a config error', () => {
    const p = pod();
    const env = containerEnv(p, {
      name: 'c', env: [
        { name: 'A', value: 'one' }, { name: 'B', value: '$(A)-two' },
        { name: 'NS', valueFrom: { fieldRef: { fieldPath: 'metadata.namespace' } } },
        { name: 'IP', valueFrom: { fieldRef: { fieldPath: 'status.podIP' } } },
        { name: 'L', valueFrom: { fieldRef: { fieldPath: "metadata.labels['app']" } } },
      ],
    }, ctx, '10.244.0.5');
    assert.deepEqual(env, [{ key: 'A', value: 'one' }, { key: 'B', value: 'one-two' }, { key: 'NS', value: 'prod' }, { key: 'IP', value: '10.244.0.5' }, { key: 'L', value: 'web' }]);
    assert.throws(() => containerEnv(p, { name: 'c', env: [{ name: 'S', valueFrom: { secretKeyRef: { name: 's', key: 'k' } } }] }, ctx), ContainerConfigError);
  });

  it('container config: attempt = restart count, log path <name>/<restartCount>.log, labels and command expansion', () => {
    const p = pod();
    const c = { name: 'c', image: 'k8ts.local/busybox:1', command: ['sh', '-c'], args: ['echo $(X)'], env: [{ name: 'X', value: 'hi' }] };
    const cfg = containerConfig({ pod: p, container: c, imageRef: 'sha256:abc', restartCount: 3, mounts: [] }, ctx);
    assert.deepEqual(cfg.metadata, { name: 'c', attempt: 3 });
    assert.equal(cfg.logPath, 'c/3.log');
    assert.deepEqual(cfg.args, ['echo hi']);
    assert.equal(cfg.image.image, 'sha256:abc');
    assert.equal(cfg.labels!['io.kubernetes.container.name'], 'c');
    assert.equal(cfg.labels![labelNodeName], 'n1');
    assert.equal(cfg.annotations!['io.kubernetes.container.restartCount'], '3');
  });
});

describe('CRI volumes', () => {
  it('hostPath types and emptyDir', () => {
    const root = mkdtempSync(join(tmpdir(), 'k8ts-cri-unit-'));
    try {
      const dir = join(root, 'exists');
      mkdirSync(dir);
      const mk = (volumes: NonNullable<Pod['spec']>['volumes']) => pod({ volumes });
      const c = { name: 'c', volumeMounts: [{ name: 'v', mountPath: '/v' }] };
      assert.equal(containerMounts(mk([{ name: 'v', hostPath: { path: dir, type: 'Directory' } }]), c, root)[0].hostPath, dir);
      assert.throws(() => containerMounts(mk([{ name: 'v', hostPath: { path: join(root, 'nope'), type: 'Directory' } }]), c, root),
        (e: Error) => e instanceof MountError && e.message === `hostPath type check failed: ${join(root, 'nope')} is not a directory`);
      containerMounts(mk([{ name: 'v', hostPath: { path: join(root, 'made'), type: 'DirectoryOrCreate' } }]), c, root);
      assert.ok(existsSync(join(root, 'made')));
      const m = containerMounts(mk([{ name: 'v', emptyDir: {} }]), c, root);
      assert.equal(m[0].hostPath, emptyDirPath(root, 'u-1', 'v'));
      assert.ok(existsSync(m[0].hostPath));
      const cm = containerMounts(mk([{ name: 'v', configMap: { name: 'x' } }]), c, root)[0];
      assert.deepEqual([cm.hostPath, cm.readonly], [join(root, 'pods', 'u-1', 'volumes', 'kubernetes.io~configmap', 'v'), true]);
      assert.throws(() => containerMounts(mk([{ name: 'v', iscsi: { targetPortal: 't', iqn: 'i', lun: 0 } }]), c, root), MountError);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});

describe('Backoff (flowcontrol.Backoff)', () => {
  it('first restart at once, then 10s doubling to 5m; forgotten after 10 min idle', () => {
    let now = 0;
    const b = new Backoff(() => now);
    assert.equal(b.isInBackOffSince('k', now), false);
    b.next('k');
    assert.equal(b.get('k'), 10_000);
    now = 1000;
    assert.equal(b.isInBackOffSince('k', 500), true);
    now = 10_600;
    assert.equal(b.isInBackOffSince('k', 500), false);
    for (let i = 0; i < 10; i++) b.next('k');
    assert.equal(b.get('k'), 300_000);
    now += 600_001;
    assert.equal(b.isInBackOffSince('k', now), false);
    b.next('k');
    assert.equal(b.get('k'), 10_000);
  });

  it('formats delays as Go durations', () => {
    assert.deepEqual([10_000, 40_000, 80_000, 300_000].map(goDuration), ['10s', '40s', '1m20s', '5m0s']);
  });
});

describe('CRI pod status', () => {
  const rec = (over: Partial<ContainerRecord>): ContainerRecord => ({
    id: 'a', name: 'c', attempt: 0, sandboxId: 's', state: 'CONTAINER_RUNNING', image: 'img', imageRef: 'sha256:1', createdAt: new Date(1000), ...over,
  });

  it('newest instance is current, the one before is lastTermination; waiting keeps the last exit', () => {
    const p = newPodEntry('u-1', 'prod', 'web');
    p.pod = pod();
    p.sandboxes = [{ id: 's', attempt: 0, state: 'SANDBOX_READY', createdAt: new Date(0), ip: '10.244.0.2' }];
    p.containers = [
      rec({ id: 'old', attempt: 0, state: 'CONTAINER_EXITED', exitCode: 1, reason: 'Error', finishedAt: new Date(2000) }),
      rec({ id: 'new', attempt: 1, state: 'CONTAINER_EXITED', exitCode: 1, finishedAt: new Date(3000) }),
    ];
    let st = podStatus(p, 'containerd', '192.0.2.10');
    assert.equal(st.sandbox!.ip, '10.244.0.2');
    assert.equal(st.containers[0].id, 'containerd://new');
    assert.equal(st.containers[0].state, 'exited');
    assert.equal(st.containers[0].reason, 'Error');
    assert.equal(st.containers[0].restartCount, 1);
    assert.equal(st.containers[0].lastTermination!.id, 'containerd://old');
    p.waiting.set('c', { reason: 'CrashLoopBackOff', message: 'back-off 10s restarting failed container=c pod=web_prod(u-1)' });
    st = podStatus(p, 'containerd', '192.0.2.10');
    assert.equal(st.containers[0].state, 'waiting');
    assert.equal(st.containers[0].id, 'containerd://new');
    assert.equal(st.containers[0].lastTermination!.id, 'containerd://new');
    const api = containerStatus(p.pod.spec!.containers[0], st.containers[0], 'ContainerCreating');
    assert.deepEqual(api.state, { waiting: { reason: 'CrashLoopBackOff', message: 'back-off 10s restarting failed container=c pod=web_prod(u-1)' } });
    assert.equal(api.lastState.terminated?.exitCode, 1);
    assert.equal(api.restartCount, 1);
  });

  it('a container never created but held back (ErrImagePull) has no containerID', () => {
    const p = newPodEntry('u-1', 'prod', 'web');
    p.pod = pod({ hostNetwork: true });
    p.sandboxes = [{ id: 's', attempt: 0, state: 'SANDBOX_READY', createdAt: new Date(0) }];
    p.waiting.set('c', { reason: 'ErrImagePull', message: 'rpc error: code = Unknown desc = x' });
    const st = podStatus(p, 'containerd', '192.0.2.10');
    assert.equal(st.sandbox!.ip, '192.0.2.10', 'hostNetwork pods have the node IP');
    const api = containerStatus(p.pod.spec!.containers[0], st.containers[0], 'ContainerCreating');
    assert.equal(api.containerID, undefined);
    assert.equal(api.image, 'k8ts.local/busybox:1');
    assert.deepEqual(api.state, { waiting: { reason: 'ErrImagePull', message: 'rpc error: code = Unknown desc = x' } });
    assert.deepEqual(api.lastState, {});
  });
});

describe('CRI plumbing', () => {
  it('prints gRPC errors as Go does', () => {
    assert.equal(goGRPCError({ code: 2, details: 'failed to pull' }), 'rpc error: code = Unknown desc = failed to pull');
    assert.equal(goGRPCError({ code: 4, details: 'x' }), 'rpc error: code = DeadlineExceeded desc = x');
    assert.equal(goGRPCError({ code: 5, details: 'y' }), 'rpc error: code = NotFound desc = y');
  });

  it('endpoints: unix:// or a path; the proto is found', () => {
    assert.equal(criTarget('unix:///run/containerd/containerd.sock'), 'unix:///run/containerd/containerd.sock');
    assert.equal(criTarget('/run/x.sock'), 'unix:///run/x.sock');
    assert.throws(() => criTarget('tcp://1.2.3.4:1'), /only unix:\/\/ sockets/);
    assert.ok(existsSync(protoPath()));
  });

  it('OS image from os-release', () => {
    assert.equal(prettyName('NAME="Debian"\nPRETTY_NAME="Debian GNU/Linux 12 (bookworm)"\n'), 'Debian GNU/Linux 12 (bookworm)');
    assert.equal(prettyName('PRETTY_NAME=Alpine\n'), 'Alpine');
    assert.equal(prettyName(''), 'Linux');
  });
});
