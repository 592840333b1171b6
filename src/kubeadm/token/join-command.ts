/**
 * The worker join command `token create --print-join-command` prints
 * (kubeadm's GetJoinWorkerCommand): the kubeconfig's server without its
 * scheme, the token, and one --discovery-token-ca-cert-hash per CA
 * certificate, each followed by a space. kubeadm's template ends with that
 * space and the command is printed as rendered, so the line ends in a space.
 */
import { loadKubeconfig } from '../../client/index.js';
import { caCertHash, pemBlocks } from '../../pki/index.js';

export function joinWorkerCommand(opts: { server: string; caPem: string; token: string; program?: string }): string {
  const pins = pemBlocks(opts.caPem).map(caCertHash);
  const hostPort = opts.server.replaceAll('https://', '');
  return `${opts.program ?? 'k8ts'} join ${hostPort} --token ${opts.token} ${pins.map((h) => `--discovery-token-ca-cert-hash ${h} `).join('')}`;
}

/** GetJoinWorkerCommand from a kubeconfig file (admin.conf), with kubeadm's error words. */
export function joinWorkerCommandFromKubeconfig(kubeconfigPath: string, token: string): string {
  let cfg;
  try { cfg = loadKubeconfig(kubeconfigPath); } catch (e) { throw new Error(`failed to load kubeconfig: ${(e as Error).message}`); }
  if (!cfg.caPem) throw new Error('no CA certificates found in kubeconfig');
  return joinWorkerCommand({ server: cfg.server, caPem: cfg.caPem, token });
}
