/**
 * Which container runtime a node's pods run on when no --cri-socket is given,
 * found as kubeadm finds it (cmd/kubeadm/app/util/runtime: DetectCRISocket):
 * the known CRI endpoints are tried in order, and the one whose path is a
 * socket is used; none found, the default (containerd's) is used and
 * preflight's CRI check reports that nothing answers there; more than one
 * found, kubeadm refuses to guess.
 *
 * k8ts resolves the known paths under --prefix like every other kubeadm path
 * (PREFIX/var/run/containerd/containerd.sock), so a test, or a second node
 * on one machine, can give each node its own "default" socket. With the
 * default prefix `/` these are exactly kubeadm's paths.
 */
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { CRIClient, goGRPCError } from '../../kubelet/runtime/cri/index.js';
import { containerRuntime, type Check } from './preflight.js';

/** kubeadm's DefaultCRISocket (containerd). */
export const DEFAULT_CRI_SOCKET_PATH = '/var/run/containerd/containerd.sock';

/**
 * kubeadm's defaultKnownCRISockets, in its order (containerd, CRI-O,
 * cri-dockerd). /run/containerd/containerd.sock is containerd's own default
 * address; on most hosts /var/run links to /run and both name one socket.
 */
export const KNOWN_CRI_SOCKET_PATHS = [DEFAULT_CRI_SOCKET_PATH, '/run/containerd/containerd.sock', '/var/run/crio/crio.sock', '/var/run/cri-dockerd.sock'];

/** A path that exists and is a socket (kubeadm's isExistingSocket; a symbolic link to one counts). */
function isExistingSocket(path: string): { dev: number; ino: number } | undefined {
  try {
    const st = statSync(path);
    return st.isSocket() ? { dev: st.dev, ino: st.ino } : undefined;
  } catch {
    return undefined;
  }
}

/** `unix://PATH` of the known socket under `prefix`. */
const endpointOf = (prefix: string, path: string) => `unix://${join(prefix, path)}`;

/**
 * The CRI endpoint for a node whose files live under `prefix`, or an error
 * in kubeadm's words when several runtimes answer.
 */
export function detectCRISocket(prefix: string): { endpoint: string } | { error: string } {
  const found: string[] = [];
  const seen = new Set<string>();
  for (const path of KNOWN_CRI_SOCKET_PATHS) {
    const id = isExistingSocket(join(prefix, path));
    if (!id || seen.has(`${id.dev}:${id.ino}`)) continue;
    seen.add(`${id.dev}:${id.ino}`);
    found.push(endpointOf(prefix, path));
  }
  if (found.length === 0) return { endpoint: endpointOf(prefix, DEFAULT_CRI_SOCKET_PATH) };
  if (found.length === 1) return { endpoint: found[0]! };
  return {
    error: `found multiple CRI endpoints on the host. Please define which one do you wish to use by setting the 'criSocket' field in the kubeadm configuration file: ${found.join(', ')}`,
  };
}

/** Go's time.RFC3339 with the local offset, as crictl's logrus prints `time="..."`. */
function rfc3339(d: Date): string {
  const off = -d.getTimezoneOffset();
  const pad = (n: number) => String(Math.trunc(Math.abs(n))).padStart(2, '0');
  const local = new Date(d.getTime() + off * 60_000).toISOString().slice(0, 19);
  return `${local}${off === 0 ? 'Z' : `${off > 0 ? '+' : '-'}${pad(off / 60)}:${pad(off % 60)}`}`;
}

/**
 * kubeadm's CRI check: the runtime must answer the CRI v1 Version call. The
 * failure reads as kubeadm's (which runs `crictl -r SOCKET info`):
 * `container runtime is not running: output: time="..." level=fatal
 * msg="validate service connection: ..."\n, error: exit status 1`.
 */
export function criCheck(endpoint: string): Check {
  return containerRuntime(async () => {
    const client = new CRIClient(endpoint);
    try {
      await client.version();
      return undefined;
    } catch (e) {
      const msg = `validate service connection: validate CRI v1 runtime API for endpoint ${JSON.stringify(endpoint)}: ${goGRPCError(e)}`;
      return `output: time="${rfc3339(new Date())}" level=fatal msg=${JSON.stringify(msg)}\n, error: exit status 1`;
    } finally {
      client.close();
    }
  });
}
