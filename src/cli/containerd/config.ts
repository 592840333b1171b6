/**
 * The files of a private containerd, the one `k8ts up --runtime cri` and the
 * end-to-end tests start (never the machine's own):
 *
 *  - config.toml: root, state and sockets under one directory; the CRI plugin
 *    with the locally built pause image as sandbox_image (nothing is pulled),
 *    restrict_oom_score_adj (the sandbox may not lower oom_score_adj, which an
 *    unprivileged or nested root cannot), runc, pod network namespaces under
 *    the state dir (nothing left in /run/netns), the CNI plugins of
 *    /usr/lib/cni (Debian's containernetworking-plugins) and the conflist below;
 *  - the CNI conflist: a bridge (k8ts0) with host-local IPAM over the node's
 *    pod CIDR (its allocations under the dir too, not in the machine-wide
 *    /var/lib/cni/networks that every "k8ts" network would share), portmap (hostPort: the sandbox's port mappings as DNAT rules,
 *    capabilities {portMappings: true}, as containerd hands them over) and
 *    loopback.
 */
import { join } from 'node:path';

export const pauseImage = 'k8ts.local/pause:1';
export const busyboxImage = 'k8ts.local/busybox:1';
export const cniBinDir = '/usr/lib/cni';
export { cniBridge } from '../../kubelet/network/cni-config.js';

export interface ContainerdLayout {
  /** Everything of this containerd lives under it. */
  dir: string;
  config: string;
  socket: string;
  cniConfDir: string;
  log: string;
  ipamDataDir: string;
}

export function containerdLayout(dir: string): ContainerdLayout {
  return {
    dir, config: join(dir, 'config.toml'), socket: join(dir, 'containerd.sock'), cniConfDir: join(dir, 'cni'), log: join(dir, 'containerd.log'),
    ipamDataDir: join(dir, 'cni-ipam'),
  };
}

/** containerd 1.6 config (version 2); the streaming server (CRI Exec/Attach/PortForward URLs) listens on streamAddress with a port of its choice. */
export function containerdConfig(layout: ContainerdLayout, streamAddress = '127.0.0.1'): string {
  const { dir } = layout;
  return `version = 2
root = "${dir}/root"
state = "${dir}/state"
[grpc]
  address = "${layout.socket}"
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
  netns_mounts_under_state_dir = true
  [plugins."io.containerd.grpc.v1.cri".cni]
    bin_dir = "${cniBinDir}"
    conf_dir = "${layout.cniConfDir}"
  [plugins."io.containerd.grpc.v1.cri".containerd]
    default_runtime_name = "runc"
    [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc]
      runtime_type = "io.containerd.runc.v2"
`;
}

/** The CNI network of the node's pods (bridge + host-local over podSubnet, portmap, loopback): the pod network's own conflist. */
export { cniConflist } from '../../kubelet/network/cni-config.js';
