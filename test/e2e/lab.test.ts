/**
 * `k8ts lab` as a user runs it (root, real containerd, real kubectl): `lab up --nodes 2`
 * makes two machines and runs init on the first; the printed join command pasted into
 * `lab exec worker1 -- ...` joins the worker; kubectl (run on the master with lab exec) sees
 * both nodes Ready on containerd at their lab addresses; a pod runs its image on the worker
 * and a pod on the master reaches it across the machines (the pod network);
 * `lab down` leaves no namespace, bridge, process, mount or file of the lab behind.
 */
import { describe, it, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BlockList } from 'node:net';
import type { Node, Pod } from 'kubernetes-types/core/v1.js';
import { eventually, cliPath } from './harness.js';
import { ensureImages } from './containerd.js';

interface Run { code: number; stdout: string; stderr: string }
const k8ts = (args: string[]): Promise<Run> => new Promise((resolve) => {
  execFile(process.execPath, [cliPath, ...args], { maxBuffer: 16 << 20 }, (err, stdout, stderr) => {
    resolve({ code: err ? (typeof err.code === 'number' ? err.code : 1) : 0, stdout, stderr });
  });
});
const ipNetns = (): Promise<string> => new Promise((resolve, reject) => {
  execFile('ip', ['netns', 'list'], (err, stdout) => (err ? reject(err) : resolve(stdout)));
});

/** Processes whose command line names `dir` (the lab's kubelets, API server, containerds, shims). */
function processesUsing(dir: string): string[] {
  const found: string[] = [];
  for (const pid of readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
    try {
      const cmd = readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0/g, ' ');
      if (cmd.includes(dir) && Number(pid) !== process.pid) found.push(`${pid}: ${cmd}`);
    } catch { /* gone */ }
  }
  return found;
}

/** The last `n` lines of a file, or why there are none. */
function tail(file: string, n: number): string {
  try { return readFileSync(file, 'utf8').trimEnd().split('\n').slice(-n).join('\n'); } catch (e) { return `(${(e as Error).message})`; }
}

describe('k8ts lab: two machines on this host, init, join, a pod on the worker, down', () => {
  const dir = join(mkdtempSync(join(tmpdir(), 'k8ts-e2e-lab-')), 'lab');
  const lab = (args: string[]) => k8ts(['lab', ...args.slice(0, 1), '--dir', dir, ...args.slice(1)]);
  /**
   * The pod is Running and ready on `node` with an address of that node's spec.podCIDR.
   * Which /24 of 10.244.0.0/16 a node gets is the node IPAM controller's choice (upstream's
   * range allocator may skip one), so the node's own podCIDR is read, not assumed.
   */
  const runningOn = async (pod: string, node: string): Promise<boolean> => {
    const [p, n] = await Promise.all([pod, node].map(async (name, i) => {
      const r = await lab(['exec', 'master', '--', 'kubectl', 'get', i === 0 ? 'pod' : 'node', name, '-o', 'json']);
      return r.code === 0 ? JSON.parse(r.stdout) : undefined;
    })) as [Pod | undefined, Node | undefined];
    const ip = p?.status?.podIP;
    const cidr = n?.spec?.podCIDR;
    if (p?.spec?.nodeName !== node || p.status?.phase !== 'Running' || !p.status.containerStatuses?.every((c) => c.ready) || !ip || !cidr) return false;
    const [base, bits] = cidr.split('/');
    const subnet = new BlockList();
    subnet.addSubnet(base!, Number(bits));
    return subnet.check(ip);
  };
  /**
   * What a CI log needs when a pod never runs: its describe (status, conditions, events),
   * and the recent lines of the kubelet and the containerd of the machine it is on.
   */
  const podEvidence = (pod: string, machine: string) => async (): Promise<string> => {
    const describe = await lab(['exec', 'master', '--', 'kubectl', 'describe', 'pod', pod]);
    return [
      `--- kubectl describe pod ${pod} (exit ${describe.code}):`, describe.stdout + describe.stderr,
      `--- node pod CIDRs:`, (await lab(['exec', 'master', '--', 'kubectl', 'get', 'nodes', '-o', 'custom-columns=NAME:.metadata.name,POD-CIDR:.spec.podCIDR'])).stdout,
      `--- ${machine}'s kubelet log (last 60 lines):`, tail(join(dir, machine, 'var/log/k8ts-kubelet.log'), 60),
      `--- ${machine}'s containerd log (last 30 lines):`, tail(join(dir, machine, 'containerd/containerd.log'), 30),
    ].join('\n');
  };
  let namespaces: string[] = [];
  let joinLine: string;

  after(async () => {
    await lab(['down']);
    rmSync(join(dir, '..'), { recursive: true, force: true });
  });

  it('lab up --nodes 2 makes the machines, runs init on master and prints the join command to paste', async () => {
    await ensureImages();
    const up = await lab(['up', '--nodes', '2']);
    assert.equal(up.code, 0, up.stderr + up.stdout);
    assert.match(up.stdout, /Your Kubernetes control-plane has initialized successfully!/);
    const m = /^ {2}k8ts lab exec --dir \S+ worker1 -- (k8ts join 10\.77\.0\.1:6443 --token \S+ --discovery-token-ca-cert-hash sha256:[0-9a-f]{64})$/m.exec(up.stdout);
    assert.ok(m, up.stdout);
    joinLine = m[1]!;
    const state = JSON.parse(readFileSync(join(dir, 'lab.json'), 'utf8'));
    namespaces = [state.switchNetns, ...state.machines.map((x: { netns: string }) => x.netns)];
    const listed = await ipNetns();
    for (const ns of namespaces) assert.ok(listed.includes(ns), `${ns} exists`);
    const status = await lab(['status']);
    assert.match(status.stdout, /^master\s+10\.77\.0\.1\s+\S+\s+running \(pid \d+\)\s+running\s/m, status.stdout);
    assert.match(status.stdout, /^worker1\s+10\.77\.0\.2\s+\S+\s+running \(pid \d+\)\s+stopped\s/m, status.stdout);
    // Each machine has its own host name.
    assert.equal((await lab(['exec', 'worker1', '--', 'hostname'])).stdout, 'worker1\n');
  });

  it('the printed join command pasted into lab exec worker1 joins it; both nodes Ready on containerd', async () => {
    const joined = await lab(['exec', 'worker1', '--', ...joinLine.split(' ')]);
    assert.equal(joined.code, 0, joined.stderr + joined.stdout);
    assert.match(joined.stdout, /This node has joined the cluster:/);
    await eventually(async () => {
      const r = await lab(['exec', 'master', '--', 'kubectl', 'get', 'nodes', '-o', 'wide', '--no-headers']);
      return /^master\s+Ready\s.*\s10\.77\.0\.1\s.*containerd:\/\//m.test(r.stdout) && /^worker1\s+Ready\s.*\s10\.77\.0\.2\s.*containerd:\/\//m.test(r.stdout);
    }, 60_000, 'master and worker1 Ready');
  });

  it('a pod runs its image on the worker', async () => {
    const run = await lab(['exec', 'master', '--', 'kubectl', 'run', 'web', '--image', 'k8ts.local/busybox:1',
      '--overrides', '{"apiVersion":"v1","spec":{"nodeSelector":{"kubernetes.io/hostname":"worker1"}}}', '--command', '--', 'sh', '-c', 'echo hello from $(hostname); sleep 100000']);
    assert.equal(run.code, 0, run.stderr);
    await eventually(() => runningOn('web', 'worker1'), 60_000, 'web Running on worker1 with a worker1 pod address', podEvidence('web', 'worker1'));
    const logs = await lab(['exec', 'master', '--', 'kubectl', 'logs', 'web']);
    assert.equal(logs.stdout, 'hello from web\n', logs.stderr);
  });

  it('the pod network (init --pod-network-cidr 10.244.0.0/16, lab up\'s default) joins the machines: a pod on master reaches the worker\'s pod', async () => {
    const run = await lab(['exec', 'master', '--', 'kubectl', 'run', 'probe', '--image', 'k8ts.local/busybox:1',
      '--overrides', '{"apiVersion":"v1","spec":{"nodeSelector":{"kubernetes.io/hostname":"master"},"tolerations":[{"operator":"Exists"}]}}',
      '--command', '--', 'sleep', '100000']);
    assert.equal(run.code, 0, run.stderr);
    await eventually(() => runningOn('probe', 'master'), 60_000, 'probe Running on master with a master pod address', podEvidence('probe', 'master'));
    const web = JSON.parse((await lab(['exec', 'master', '--', 'kubectl', 'get', 'pod', 'web', '-o', 'json'])).stdout);
    const ping = await lab(['exec', 'master', '--', 'kubectl', 'exec', 'probe', '--', 'ping', '-c', '1', '-W', '5', web.status.podIP]);
    assert.equal(ping.code, 0, ping.stderr + ping.stdout);
    assert.match(ping.stdout, /1 packets transmitted, 1 packets received/);
  });

  it('lab down leaves no namespace, bridge, process, mount or file behind', async () => {
    const down = await lab(['down']);
    assert.equal(down.code, 0, down.stderr + down.stdout);
    const listed = await ipNetns();
    for (const ns of namespaces) assert.ok(!listed.includes(ns), `${ns} is gone`);
    assert.deepEqual(processesUsing(dir), []);
    assert.deepEqual(readFileSync('/proc/self/mountinfo', 'utf8').split('\n').filter((l) => l.includes(dir)), []);
    assert.ok(!existsSync(dir));
    // No state left either: the lab is gone for status too.
    const status = await lab(['status']);
    assert.equal(status.code, 1);
    assert.equal(status.stderr, `Error: no lab in ${dir} (k8ts lab up first)\n`);
  });
});
