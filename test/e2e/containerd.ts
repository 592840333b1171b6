/**
 * A private containerd for one e2e test, never the machine's own. Its
 * config, CNI network, images and stop are `k8ts up --runtime cri`'s
 * (src/cli/containerd/), under a temp dir; what the test adds:
 *
 *  - it runs inside a network namespace the test creates
 *    (k8ts-e2e-<random>, lo up), entered with `nsenter --net` only: the
 *    bridge, the pod addresses and any image-pull attempt stay inside that
 *    namespace. (`ip netns exec` is not used because it also remounts /sys,
 *    hiding the cgroup mounts runc needs: "no cgroup mount found in mountinfo".)
 *    The socket is a file, so the agent and the test reach it from the host
 *    network namespace, where the k8ts server listens on 127.0.0.1;
 *  - with `streaming`, containerd's streaming server (CRI Exec/Attach URLs)
 *    listens on a veth pair's namespace end (169.254.N.M+2/30, the host end
 *    .M+1/30, both link-local and private to this machine): the agent in the
 *    host namespace must reach it, and the namespace's 127.0.0.1 is not the
 *    host's. Deleting the namespace deletes the pair.
 *
 * stop() stops containerd as `k8ts up` does, then deletes the namespace and
 * the dir. It is safe to call more than once and after a failed start.
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { CRIClient } from '../../src/kubelet/runtime/cri/client.js';
import { startContainerd as startPrivateContainerd, type RunningContainerd } from '../../src/cli/containerd/launch.js';
import { localImages, localImagesDir, missingArchives } from '../../src/cli/containerd/images.js';
import { inPath } from '../../src/cli/containerd/preflight.js';

export { pauseImage, busyboxImage } from '../../src/cli/containerd/config.js';

const run = promisify(execFile);

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
  /** containerd's process (for the benchmarks' CPU accounting). */
  pid: number;
  /** containerd's own log (for failure messages). */
  log(): string;
  stop(): Promise<void>;
}

const required = ['containerd', 'runc', 'ctr', 'nsenter', 'ip'];

/** Builds the OCI archives once per checkout (scripts/images.sh is deterministic). */
export async function ensureImages(): Promise<{ pause: string; busybox: string }> {
  const images = localImages();
  if (missingArchives(images).length) await run(join(localImagesDir, '..', '..', 'scripts', 'images.sh'), [localImagesDir]);
  return { pause: images[0]!.file, busybox: images[1]!.file };
}

/**
 * `netns`: run in that existing namespace (a node of a multi-node test, which
 * owns it: it is neither created nor deleted here) instead of a new one.
 */
export async function startContainerd(opts: { podSubnet?: string; streaming?: boolean; netns?: string } = {}): Promise<PrivateContainerd> {
  for (const cmd of required) {
    if (!inPath(cmd)) throw new Error(`${cmd} not found: run scripts/ci-setup-containerd.sh (containerd, runc, containernetworking-plugins, busybox-static, iproute2)`);
  }
  if (!existsSync('/usr/lib/cni/bridge')) throw new Error('CNI plugins not found in /usr/lib/cni: apt-get install containernetworking-plugins');
  await ensureImages();
  const podSubnet = opts.podSubnet ?? '10.244.0.0/24';
  const dir = mkdtempSync(join(tmpdir(), 'k8ts-ctrd-'));
  const netns = opts.netns ?? `k8ts-e2e-${randomBytes(4).toString('hex')}`;
  const [n, m] = [1 + (randomBytes(1)[0]! % 254), 4 * (randomBytes(1)[0]! % 63)];
  const streamAddress = opts.streaming ? `169.254.${n}.${m + 2}` : '127.0.0.1';
  let ctrd: RunningContainerd | undefined;
  let netnsCreated = false;
  let stopped = false;

  const stop = async () => {
    if (stopped) return;
    stopped = true;
    await ctrd?.stop();
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
    ctrd = await startPrivateContainerd({
      dir, podSubnet, streamAddress, wrap: ['nsenter', `--net=/run/netns/${netns}`], images: localImages(), readyTimeoutMs: 20_000,
    });
  } catch (e) {
    await stop();
    throw e;
  }
  return { dir, socket: ctrd.socket, endpoint: ctrd.endpoint, netns, podSubnet, streamAddress, client: ctrd.client, pid: ctrd.proc.pid!, log: ctrd.log, stop };
}
