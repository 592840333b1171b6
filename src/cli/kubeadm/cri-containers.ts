/**
 * reset's "remove the node's containers" for a CRI runtime: a stopped kubelet
 * leaves its pods running, so reset stops and removes every pod sandbox (and
 * with it its containers) through the CRI, as kubeadm reset removes the
 * Kubernetes-managed containers with crictl. The socket is --cri-socket, else
 * the one join or init gave the kubelet (its kubeadm-flags.env; kubeadm reads
 * it from the node's configuration too).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { CRIClient, goGRPCError } from '../../kubelet/runtime/cri/index.js';

/** The kubelet's --container-runtime-endpoint in KUBELET_DIR/kubeadm-flags.env, when it used a CRI runtime. */
export function criSocketOfKubelet(kubeletDir: string): string | undefined {
  try {
    return /--container-runtime-endpoint=(\S+?)(?:\s|"|$)/.exec(readFileSync(join(kubeletDir, 'kubeadm-flags.env'), 'utf8'))?.[1];
  } catch {
    return undefined;
  }
}

/** Stops and removes every pod sandbox of the runtime; returns the pods removed (namespace/name). */
export async function removeCRIPods(socket: string): Promise<{ removed: string[]; error?: string }> {
  const client = new CRIClient(socket);
  const removed: string[] = [];
  try {
    for (const s of await client.listPodSandbox()) {
      await client.stopPodSandbox(s.id);
      await client.removePodSandbox(s.id);
      removed.push(`${s.metadata?.namespace}/${s.metadata?.name}`);
    }
    return { removed };
  } catch (e) {
    return { removed, error: goGRPCError(e) };
  } finally {
    client.close();
  }
}
