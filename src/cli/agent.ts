/**
 * `k8ts agent`: one node agent (kubelet) against any API server, with the simulated runtime or a CRI runtime (containerd).
 * This module holds the help and the flags; the agent's code (agent-run.ts) loads once they parse, so `--help` and a
 * flag error answer without loading the kubelet.
 */
import { parseArgs } from 'node:util';
import { podNetworkFlagHelp, staticPodFlagOptions, staticPodFlagsHelp } from './agent-flags.js';

export const agentHelp = `Run a node agent (kubelet) that registers a node and runs the pods bound to it.

Usage:
  k8ts agent --kubeconfig FILE [flags]
  k8ts agent --pod-manifest-path DIR [flags]      (standalone: static pods only)

With --runtime simulated (the default) no container runs: pods move
Pending → Running → Ready on a script (see src/kubelet/runtime/simulated/README.md).
With --runtime cri the pods run as real containers of the CRI runtime at
--container-runtime-endpoint (containerd 1.6+); with --runtime process each
container's command and args run as host processes in the host's network (the
image is not used; see src/kubelet/runtime/process/README.md). Add-on pods
(every container on the image k8ts.local/k8ts:<tag>, e.g. kube-proxy and
coredns) run on the process runtime on a cri node too, their command "k8ts"
being this installation's binary. With either,
capacity, OS image and kernel come from the host. Either way the node heartbeats through its Lease in
kube-node-lease and posts its status.

Flags:
      --kubeconfig string                   kubeconfig with the API server and credentials (required unless standalone)
      --bootstrap-kubeconfig string         kubeconfig with a bootstrap token: used when --kubeconfig is missing or its client
                                            certificate has expired, to get a certificate through a CSR; --kubeconfig is then
                                            written pointing at it, and the certificate is rotated before it expires
      --cert-dir string                     where the client certificate is kept, as kubelet-client-current.pem
                                            (default "<root-dir>/pki")
      --node-name string                    name of the Node (default: the host name)
      --runtime string                      container runtime: simulated, cri or process (default "simulated")
      --container-runtime-endpoint string   cri: the runtime's socket (default "unix:///run/containerd/containerd.sock")
      --static-pod-runtime string           the runtime of the control plane's static pods (--pod-manifest-path, labelled
                                            tier=control-plane as kubeadm's) when it is not --runtime's: e.g. process, so a
                                            control plane runs as host processes while the node's other pods, user static
                                            pods included, run on --runtime cri (default: --runtime)
      --root-dir string                     cri, process: the kubelet's directory, volumes live under it (default "/var/lib/kubelet")
      --labels, --node-labels string        labels added at registration, k=v,k2=v2
      --register-with-taints string         taints added at registration, k=v:Effect,k2:Effect
      --control-plane                       register as a control-plane node (label node-role.kubernetes.io/control-plane
                                            and taint node-role.kubernetes.io/control-plane:NoSchedule)
      --max-pods int                        pods the node can run (default 110)
      --allowed-unsafe-sysctls strings      comma-separated allowlist of unsafe sysctls or unsafe sysctl patterns
                                            (ending in *) pods may set beside the safe ones; use at your own risk
      --cpu string                          cpu capacity (default "4"; cri, process: the host's)
      --memory string                       memory capacity (default "8Gi"; cri, process: the host's)
      --ephemeral-storage string            ephemeral-storage capacity (default "100Gi"; cri, process: the root dir's filesystem)
      --node-ip string                      InternalIP of the node (default: derived from the name, in 172.16.0.0/12;
                                            cri, process: the host's first non-loopback IPv4 address, else 127.0.0.1)
      --pod-cidr string                     pod CIDR of the node (default: derived from the name, 10.244.x.0/24;
                                            cri, process: none, the CNI configuration decides pod addresses)
      --start-delay duration                simulated: pod bound → containers running (default 0s)
      --ready-delay duration                simulated: containers running → ready (default 0s)
      --delete-delay duration               longest time a pod takes to stop when deleted (default: simulated 200ms,
                                            cri the pod's grace period)
      --node-lease-duration-seconds int     Lease duration; renewed every quarter of it (default 40)
      --node-status-report-frequency dur    re-post an unchanged node status after this long (default 5m0s)
      --kube-api-qps int                    client QPS against the API server (default 50)
      --kube-api-burst int                  client burst (default 100)
      --metrics-port int                    serve Prometheus /metrics on 127.0.0.1:PORT (default: off)
      --kubelet-port int                    port of the kubelet's HTTPS API (logs, health, pods); 0 picks a free one (default 10250)
      --address string                      address the kubelet's API listens on (default "0.0.0.0")
      --client-ca-file string               CA bundle whose client certificates may call the kubelet's API
                                            (default: the cluster CA of --kubeconfig); bearer tokens are checked
                                            by TokenReview; other callers get 401. Every request is authorized
                                            by a SubjectAccessReview (nodes/proxy, nodes/stats, ...; else 403)
      --tls-cert-file string                the kubelet API's serving certificate (default: a self-signed one made at start)
      --tls-private-key-file string         its key
      --pod-logs-dir string                 where container logs are written (default: cri, process "/var/log/pods",
                                            simulated "$TMPDIR/k8ts-kubelet-<node>/pods")
      --no-events                           do not record kubelet events
      --cluster-dns strings                 cri: the cluster DNS servers, comma-separated, for pods with dnsPolicy ClusterFirst
                                            (default: none; such pods then use the node's resolver, with a MissingClusterDNS warning)
      --cluster-domain string               cri: the cluster's DNS domain, for the search paths of ClusterFirst pods (default "cluster.local")
      --config string                       a KubeletConfiguration file (kubeadm's /var/lib/kubelet/config.yaml): clusterDNS and
                                            clusterDomain are read from it; the flags above win over it
      --resolv-conf string                  cri: the node's resolver configuration, the base of dnsPolicy Default; "" for none
                                            (default "/etc/resolv.conf")
${podNetworkFlagHelp}
${staticPodFlagsHelp}
  -h, --help                                help for agent`;

const agentFlagOptions = {
  kubeconfig: { type: 'string' }, 'bootstrap-kubeconfig': { type: 'string' }, 'cert-dir': { type: 'string' }, 'node-name': { type: 'string' }, runtime: { type: 'string', default: 'simulated' },
  'static-pod-runtime': { type: 'string' },
  labels: { type: 'string' }, 'node-labels': { type: 'string' }, 'register-with-taints': { type: 'string' }, 'control-plane': { type: 'boolean' },
  'max-pods': { type: 'string', default: '110' }, 'allowed-unsafe-sysctls': { type: 'string' }, cpu: { type: 'string' }, memory: { type: 'string' },
  'ephemeral-storage': { type: 'string' }, 'node-ip': { type: 'string' }, 'pod-cidr': { type: 'string' },
  'start-delay': { type: 'string', default: '0s' }, 'ready-delay': { type: 'string', default: '0s' }, 'delete-delay': { type: 'string' },
  'container-runtime-endpoint': { type: 'string', default: 'unix:///run/containerd/containerd.sock' },
  'root-dir': { type: 'string', default: '/var/lib/kubelet' },
  'node-lease-duration-seconds': { type: 'string', default: '40' }, 'node-status-report-frequency': { type: 'string', default: '5m' },
  'kube-api-qps': { type: 'string', default: '50' }, 'kube-api-burst': { type: 'string', default: '100' },
  'metrics-port': { type: 'string' }, 'no-events': { type: 'boolean' },
  'kubelet-port': { type: 'string', default: '10250' }, address: { type: 'string', default: '0.0.0.0' }, 'client-ca-file': { type: 'string' },
  'tls-cert-file': { type: 'string' }, 'tls-private-key-file': { type: 'string' }, 'pod-logs-dir': { type: 'string' },
  'cluster-dns': { type: 'string' }, 'cluster-domain': { type: 'string' }, config: { type: 'string' },
  'resolv-conf': { type: 'string', default: '/etc/resolv.conf' }, 'pod-network-backend': { type: 'string', default: 'none' },
  ...staticPodFlagOptions,
} as const;

const parseAgentFlags = (args: string[]) => parseArgs({ args, strict: true, allowPositionals: false, options: agentFlagOptions });
export type AgentFlags = ReturnType<typeof parseAgentFlags>['values'];

export async function runAgent(args: string[]): Promise<number> {
  const { values } = parseAgentFlags(args);
  const { runAgentWith } = await import('./agent-run.js');
  return runAgentWith(values);
}
