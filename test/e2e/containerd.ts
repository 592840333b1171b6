/**
 * A private containerd for one e2e test, never the machine's own:
 *
 *  - its own config, root, state and socket under a temp dir; runc;
 *    restrict_oom_score_adj (the sandbox may not lower oom_score_adj);
 *    the locally built pause image as sandbox_image; a CNI bridge
 *    (k8ts0, host-local IPAM over podSubnet) from /usr/lib/cni;
 *  - it runs inside a network namespace the test creates
 *    (k8ts-e2e-<random>, lo up), entered with `nsenter --net` only: the
 *    bridge, the pod addresses and any image-pull attempt stay inside that
 *    namespace. (`ip netns exec` is not used because it also remounts /sys,
 *    hiding the cgroup mounts runc needs: "no cgroup mount found in mountinfo".)
 *    The socket is a file, so the agent and the test reach it from the host
 *    network namespace, where the k8ts server listens on 127.0.0.1;
 *  - pod network namespaces are mounted under the state dir
 *    (netns_mounts_under_state_dir), so none is left in /run/netns;
 *  - with `streaming`, containerd's streaming server (CRI Exec/Attach URLs)
 *    listens on a veth pair's namespace end (169.254.N.M+2/30, the host end
 *    .M+1/30, both link-local and private to this machine): the agent in the
 *    host namespace must reach it, and the namespace's 127.0.0.1 is not the
 *    host's. Deleting the namespace deletes the pair;
 *  - the images of scripts/images.sh (k8ts.local/pause:1, k8ts.local/busybox:1)
 *    are imported into the CRI's k8s.io namespace.
 *
 * stop() removes every sandbox through the CRI, stops containerd, kills any
 * shim it left (found by its socket path in their command line), unmounts
 * what is left under the temp dir, deletes the namespace and the dir. It is
 * safe to call more than once and after a failed start.
 */
import { spawn, execFile, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, openSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { CRIClient } from '../../src/kubelet/runtime/cri/client.js';

const run = promisify(execFile);
const repoRoot = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');

export const pauseImage = 'k8ts.local/pause:1';
export const busyboxImage = 'k8ts.local/busybox:1';

export interface PrivateContainerd {
  dir: string;
  socket: string;
  /** unix://<socket>, for --container-runtime-endpoint. */
  endpoint: string;
  netns: string;
  podSubnet: string;
  /** Where containerd's streaming server listens (its address only; the port is its choice). */
  streamAddress: string;
  client: CRIClient;
  /** containerd's own log (for failure messages). */
  log(): string;
  stop(): Promise<void>;
}

const required = ['containerd', 'runc', 'ctr', 'nsenter', 'ip'];

async function which(cmd: string): Promise<boolean> {
  try { await run('sh', ['-c', `command -v ${cmd}`]); return true; } catch { return false; }
}

/** Builds the OCI archives once per checkout (scripts/images.sh is deterministic). */
export async function ensureImages(): Promise<{ pause: string; busybox: string }> {
  const dir = join(repoRoot, 'build', 'images');
  const pause = join(dir, 'pause.tar');
  const busybox = join(dir, 'busybox.tar');
  if (!existsSync(pause) || !existsSync(busybox)) await run(join(repoRoot, 'scripts', 'images.sh'), [dir]);
  return { pause, busybox };
}

function config(dir: string, streamAddress: string): string {
  return `version = 2
root = "${dir}/root"
state = "${dir}/state"
[grpc]
  address = "${dir}/containerd.sock"
[ttrpc]
  address = "${dir}/containerd-ttrpc.sock"
[debug]
  address = ""
[metrics]
  address = ""
[plugins."io.containerd.grpc.v1.cri"]
  sandbox_image = "${pauseImage}"
  stream_server_address = "${streamAddress}"
  stream_server_port = "0"
  restrict_oom_score_adj = true
  enable_selinux = false
  # Pod network namespaces under the state dir, not /run/netns: nothing of the test outlives its dir.
  netns_mounts_under_state_dir = true
  [plugins."io.containerd.grpc.v1.cri".cni]
    bin_dir = "/usr/lib/cni"
    conf_dir = "${dir}/cni"
  [plugins."io.containerd.grpc.v1.cri".containerd]
    default_runtime_name = "runc"
    [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc]
      runtime_type = "io.containerd.runc.v2"
`;
}

function conflist(podSubnet: string): string {
  return JSON.stringify({
    cniVersion: '0.4.0', name: 'k8ts',
    plugins: [
      { type: 'bridge', bridge: 'k8ts0', isGateway: true, ipMasq: false, hairpinMode: true, ipam: { type: 'host-local', ranges: [[{ subnet: podSubnet }]], routes: [{ dst: '0.0.0.0/0' }] } },
      { type: 'loopback' },
    ],
  });
}

/**
 * `netns`: run in that existing namespace (a node of a multi-node test, which
 * owns it: it is neither created nor deleted here) instead of a new one.
 */
export async function startContainerd(opts: { podSubnet?: string; streaming?: boolean; netns?: string } = {}): Promise<PrivateContainerd> {
  for (const cmd of required) {
    if (!(await which(cmd))) throw new Error(`${cmd} not found: run scripts/ci-setup-containerd.sh (containerd, runc, containernetworking-plugins, busybox-static, iproute2)`);
  }
  if (!existsSync('/usr/lib/cni/bridge')) throw new Error('CNI plugins not found in /usr/lib/cni: apt-get install containernetworking-plugins');
  const images = await ensureImages();
  const podSubnet = opts.podSubnet ?? '10.244.0.0/24';
  const dir = mkdtempSync(join(tmpdir(), 'k8ts-ctrd-'));
  const socket = join(dir, 'containerd.sock');
  const netns = opts.netns ?? `k8ts-e2e-${randomBytes(4).toString('hex')}`;
  mkdirSync(join(dir, 'cni'));
  writeFileSync(join(dir, 'cni', '10-k8ts.conflist'), conflist(podSubnet));
  const [n, m] = [1 + (randomBytes(1)[0]! % 254), 4 * (randomBytes(1)[0]! % 63)];
  const streamAddress = opts.streaming ? `169.254.${n}.${m + 2}` : '127.0.0.1';
  writeFileSync(join(dir, 'config.toml'), config(dir, streamAddress));
  const logFile = join(dir, 'containerd.log');
  let proc: ChildProcess | undefined;
  let client: CRIClient | undefined;
  let netnsCreated = false;
  let stopped = false;

  const stop = async () => {
    if (stopped) return;
    stopped = true;
    if (client && proc && proc.exitCode === null) {
      try {
        const sandboxes = await client.listPodSandbox();
        for (const s of sandboxes) {
          await client.stopPodSandbox(s.id).catch(() => {});
          await client.removePodSandbox(s.id).catch(() => {});
        }
      } catch { /* containerd may be gone already */ }
    }
    client?.close();
    if (proc && proc.exitCode === null && proc.signalCode === null) {
      const exited = new Promise((r) => proc!.once('exit', r));
      proc.kill('SIGTERM');
      const t = setTimeout(() => proc!.kill('SIGKILL'), 5000);
      await exited;
      clearTimeout(t);
    }
    killShims(socket);
    await unmountUnder(dir);
    if (netnsCreated) await run('ip', ['netns', 'del', netns]).catch(() => {});
    rmSync(dir, { recursive: true, force: true });
  };

  try {
    if (!opts.netns) {
      await run('ip', ['netns', 'add', netns]);
      netnsCreated = true;
      await run('ip', ['netns', 'exec', netns, 'ip', 'link', 'set', 'lo', 'up']);
    }
    if (opts.streaming) {
      const hostEnd = `k8tsv${netns.slice(-8)}`;
      await run('ip', ['link', 'add', hostEnd, 'type', 'veth', 'peer', 'name', 'stream0', 'netns', netns]);
      await run('ip', ['addr', 'add', `169.254.${n}.${m + 1}/30`, 'dev', hostEnd]);
      await run('ip', ['link', 'set', hostEnd, 'up']);
      await run('ip', ['netns', 'exec', netns, 'ip', 'addr', 'add', `${streamAddress}/30`, 'dev', 'stream0']);
      await run('ip', ['netns', 'exec', netns, 'ip', 'link', 'set', 'stream0', 'up']);
    }
    const out = openSync(logFile, 'a');
    proc = spawn('nsenter', [`--net=/run/netns/${netns}`, 'containerd', '--config', join(dir, 'config.toml')], { stdio: ['ignore', out, out] });
    client = new CRIClient(`unix://${socket}`);
    const deadline = Date.now() + 20_000;
    for (;;) {
      if (proc.exitCode !== null) throw new Error(`containerd exited with ${proc.exitCode}: ${readFileSync(logFile, 'utf8').slice(-2000)}`);
      if (existsSync(socket)) {
        try { await client.version(); break; } catch { /* not serving yet */ }
      }
      if (Date.now() > deadline) throw new Error(`containerd not ready in 20s: ${readFileSync(logFile, 'utf8').slice(-2000)}`);
      await new Promise((r) => setTimeout(r, 100));
    }
    for (const [name, file] of [[pauseImage, images.pause], [busyboxImage, images.busybox]]) await importImage(socket, name, file);
  } catch (e) {
    await stop();
    throw e;
  }
  return { dir, socket, endpoint: `unix://${socket}`, netns, podSubnet, streamAddress, client: client!, log: () => readFileSync(logFile, 'utf8'), stop };
}

/** SIGKILLs containerd-shim processes serving this containerd (their -address is our socket). */
/**
 * `ctr images import`, tried up to three times: on a loaded machine containerd 1.6's content
 * garbage collection can remove a blob the import wrote but had not yet referenced
 * ("content digest sha256:...: not found"), and the same import then succeeds.
 */
async function importImage(socket: string, name: string, file: string): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      await run('ctr', ['-a', socket, '-n', 'k8s.io', 'images', 'import', '--index-name', name, file]);
      return;
    } catch (e) {
      if (attempt >= 3 || !/content digest .* not found/.test(String((e as Error).message))) throw e;
    }
  }
}

function killShims(socket: string): void {
  for (const pid of readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
    let cmdline: string;
    try { cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8'); } catch { continue; }
    const args = cmdline.split('\0');
    if (args[0]?.includes('containerd-shim') && args.includes(socket)) {
      try { process.kill(Number(pid), 'SIGKILL'); } catch { /* gone */ }
    }
  }
}

/** Lazily unmounts whatever containerd left mounted under dir (rootfs overlays, shm). */
async function unmountUnder(dir: string): Promise<void> {
  const mounts = readFileSync('/proc/self/mountinfo', 'utf8').split('\n').map((l) => l.split(' ')[4]).filter((m) => m && m.startsWith(dir + '/'));
  for (const m of mounts.sort((a, b) => b.length - a.length)) await run('umount', ['-l', m]).catch(() => {});
}
