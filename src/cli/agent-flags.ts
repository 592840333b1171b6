/**
 * The flag texts of `k8ts agent` shared with its static-pod and pod-network
 * parts, apart from those parts' code so that the agent's help and flags load
 * nothing of the kubelet.
 */

export const staticPodFlagsHelp = `      --pod-manifest-path string            directory of static pod manifests (YAML or JSON); with no --kubeconfig the
                                            agent runs standalone: static pods only, no API server
      --file-check-frequency duration       rescan the manifest directory this often (default 20s)
      --sync-frequency duration             re-check mirror pods this often (default 10s)`;

export const staticPodFlagOptions = {
  'pod-manifest-path': { type: 'string' },
  'file-check-frequency': { type: 'string', default: '20s' },
  'sync-frequency': { type: 'string', default: '10s' },
} as const;

export const podNetworkFlagHelp = `      --pod-network-backend string          cri: run the node's pod network: pods take addresses from the Node's podCIDR and
                                            reach every other node's pods, by host-gw routes, a VXLAN overlay, or auto
                                            (host-gw where the peer shares a link, VXLAN elsewhere); "none" leaves the
                                            runtime's CNI configuration alone (default "none")`;
