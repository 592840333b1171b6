/**
 * `k8ts reset`: kubeadm reset's best-effort revert of init or join — asks for
 * confirmation (--force skips it), stops the agent and the processes of the
 * pods it ran (the control plane's static pods), deletes the database, the
 * contents of the manifest, kubelet and certificate directories and the
 * kubeconfigs, and says what it does not clean, with kubeadm's words.
 */
import { createInterface } from 'node:readline';
import { existsSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { nodeLayout, KUBECONFIG_NAMES } from './layout.js';
import { KUBELET_SERVICE, stopService } from './service.js';
import { stopHostProcessPods } from './host-processes.js';
import { localEtcdClientURL, localEtcdDataDir, localEtcdPeerURL } from './etcd-manifest.js';
import { etcdEndpointsFromCluster, openEtcdMembersClient, removeEtcdMember } from './etcd-members.js';
import { criSocketOfKubelet, removeCRIPods } from './cri-containers.js';
import { execRunner, readPodNetworkState, teardownPodNetwork } from '../../kubelet/network/index.js';
import { Clientset, loadKubeconfig } from '../../client/index.js';
import { klogLine } from './klog.js';
import { unmountKubeletDirectory } from './unmount.js';
import { parseResetFlags } from './reset-flags.js';
import { componentUserAgent } from '../../util/user-agent.js';



async function confirm(): Promise<boolean> {
  const rl = createInterface({ input: process.stdin, output: process.stdout, terminal: false });
  process.stdout.write('[reset] Are you sure you want to proceed? [y/N]: ');
  const answer = await new Promise<string>((resolve) => {
    rl.once('line', resolve);
    rl.once('close', () => resolve(''));
  });
  rl.close();
  return /^y(es)?$/i.test(answer.trim());
}

/** Deletes what is inside `dir` (kubeadm's CleanDir keeps the directory itself). */
function cleanDir(dir: string): void {
  if (!existsSync(dir)) return;
  for (const entry of readdirSync(dir)) rmSync(join(dir, entry), { recursive: true, force: true });
}

export async function runReset(args: string[]): Promise<number> {
  const { values } = parseResetFlags(args);
  const l = nodeLayout(values.prefix, values['cert-dir']);
  const dry = !!values['dry-run'];
  // kubeadm reads the cluster's configuration where this node has admin.conf (a control plane).
  if (existsSync(l.kubeconfig('admin.conf'))) await readConfigurationFromCluster(l.kubeconfig('admin.conf'));
  console.error(klogLine('W', "[reset] WARNING: Changes made to this host by 'k8ts init' or 'k8ts join' will be reverted."));
  if (!values.force && !(await confirm())) {
    console.error('error execution phase preflight: aborted reset operation\nTo see the stack trace of this error execute with --v=5 or higher');
    return 1;
  }
  console.log('[preflight] Running pre-flight checks');
  const say = (line: string) => console.log(dry ? `[dryrun] Would ${line.replace(/^\[reset\] /, '').replace(/^./, (c) => c.toLowerCase())}` : line);
  // Read before the kubelet directory is cleaned: the socket the kubelet ran its pods on.
  const criSocket = values['cri-socket'] ?? criSocketOfKubelet(l.kubeletDir);
  // Read before the manifests are deleted: kubeadm's remove-etcd-member phase adds local etcd's data directory to the cleanup.
  const etcdDataDir = localEtcdDataDir(l);
  // kubeadm's remove-etcd-member phase, before the node's etcd stops: the cluster keeps its quorum count right.
  if (etcdDataDir) {
    if (dry) console.log('[dryrun] Would remove the etcd member on this node from the etcd cluster');
    else if (existsSync(l.kubeconfig('admin.conf'))) await removeLocalEtcdMember(l);
  }
  say('[reset] Stopping the kubelet service');
  if (!dry) {
    await stopService(l, KUBELET_SERVICE);
  }
  // Said where kubeadm says it; done once the pods that use the volumes are gone (below).
  console.log(`[reset] ${dry ? 'Would unmount' : 'Unmounting'} mounted directories in "${l.kubeletDir}"`);
  if (!dry) {
    const stopped = await stopHostProcessPods(l.kubeletDir);
    if (stopped.length) console.log(`[reset] Stopped the processes of pods: [${stopped.join(' ')}]`);
  }
  if (criSocket) {
    say(`[reset] Removing Kubernetes-managed containers (CRI socket ${criSocket})`);
    if (!dry) {
      const { removed, error } = await removeCRIPods(criSocket);
      if (removed.length) console.log(`[reset] Removed the pod sandboxes of: [${removed.join(' ')}]`);
      if (error) console.error(klogLine('W', `[reset] Failed to remove containers: ${error}`));
    }
  }
  // After the pods are gone (their veths hang off the bridge); read before the kubelet directory is cleaned.
  const podNetwork = readPodNetworkState(l.kubeletDir);
  if (podNetwork) {
    say(`[reset] Removing the pod network: bridge, VXLAN device, routes, CNI configuration (${podNetwork.cniConfDir}) and the nftables table ip k8ts-podnet`);
    if (!dry) for (const err of await teardownPodNetwork(execRunner, podNetwork)) console.error(klogLine('W', `[reset] Failed to remove part of the pod network: ${err}`));
  }
  if (!dry) for (const err of unmountKubeletDirectory(l.kubeletDir)) console.error(klogLine('W', `[reset] Failed to unmount mounted directories in ${l.kubeletDir}: ${err}`));
  if (existsSync(l.dataDir)) {
    if (!dry) cleanDir(l.dataDir);
    say(`[reset] Deleted contents of the datastore directory: ${l.dataDir}`);
  }
  // kubeadm 1.32's list, local etcd's data directory first; like kubeadm, the pods' logs (/var/log/pods) are left.
  const dirs = [...(etcdDataDir ? [etcdDataDir] : []), l.manifestsDir, l.kubeletDir, l.certDir];
  say(`[reset] Deleting contents of directories: [${dirs.join(' ')}]`);
  if (!dry) dirs.forEach(cleanDir);
  const files = KUBECONFIG_NAMES.map((k) => l.kubeconfig(k));
  say(`[reset] Deleting files: [${files.join(' ')}]`);
  if (!dry) for (const f of files) rmSync(f, { force: true });
  console.log(`
The reset process does not clean CNI configuration. To do so, you must remove /etc/cni/net.d

The reset process does not reset or clean up iptables rules or IPVS tables.
If you wish to reset iptables, you must do so manually by using the "iptables" command.

If your cluster was setup to utilize IPVS, run ipvsadm --clear (or similar)
to reset your system's IPVS tables.

The reset process does not clean your kubeconfig files and you must remove them manually.
Please, check the contents of the $HOME/.kube/config file.`);
  return 0;
}

/**
 * kubeadm's RemoveStackedEtcdMemberFromCluster: this node's member (found by its peer URL) removed
 * through the cluster's etcd endpoints, unless it is the only one; a failure is a warning, as kubeadm's.
 */
async function removeLocalEtcdMember(l: ReturnType<typeof nodeLayout>): Promise<void> {
  const peerURL = localEtcdPeerURL(l);
  let clients: Clientset | undefined;
  let etcd: ReturnType<typeof openEtcdMembersClient> | undefined;
  try {
    if (!peerURL) throw new Error('the etcd manifest names no peer URL');
    clients = new Clientset(loadKubeconfig(l.kubeconfig('admin.conf')), { userAgent: componentUserAgent('kubeadm') });
    // Ask the other members: this node's etcd stops itself once removed, mid-call if the call went to it.
    const self = localEtcdClientURL(l);
    const all = await etcdEndpointsFromCluster(clients);
    const others = all.filter((u) => u !== self);
    etcd = openEtcdMembersClient(others.length ? others : all, l.certDir);
    const r = await removeEtcdMember(etcd, peerURL);
    if ('removed' in r) console.log(`[reset] Removed the etcd member ${peerURL} (ID ${BigInt(r.removed).toString(16)}) from the etcd cluster`);
    // The last member stays (kubeadm says so only at --v=1): its data directory is deleted below anyway.
  } catch (e) {
    console.error(klogLine('W', `[reset] Failed to remove etcd member: ${(e as Error).message}, please manually remove this etcd member using etcdctl`));
  } finally {
    etcd?.close();
    clients?.close();
  }
}

/**
 * kubeadm's FetchInitConfigurationFromCluster at the start of reset: the
 * kubeadm-config ConfigMap through admin.conf, with its two lines, or its
 * warning when the cluster does not answer (reset goes on either way).
 */
async function readConfigurationFromCluster(adminConf: string): Promise<void> {
  let clients: Clientset | undefined;
  try {
    clients = new Clientset(loadKubeconfig(adminConf), { userAgent: componentUserAgent('kubeadm') });
    const c = clients;
    await Promise.race([
      c.resource('configmaps').get('kube-system', 'kubeadm-config'),
      new Promise((_, reject) => setTimeout(() => reject(new Error('context deadline exceeded')), 10_000).unref()),
    ]);
    console.log('[reset] Reading configuration from the cluster...');
    console.log("[reset] FYI: You can look at this config file with 'kubectl -n kube-system get cm kubeadm-config -o yaml'");
  } catch (e) {
    console.error(klogLine('W', `[reset] Unable to fetch the kubeadm-config ConfigMap from cluster: failed to get config map: ${(e as Error).message}`));
  } finally {
    clients?.close();
  }
}
