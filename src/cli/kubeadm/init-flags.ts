/**
 * `k8ts init`'s usage and flags, apart from its phases (init.ts): main.ts answers `--help`
 * and rejects a bad flag with these alone, before loading the command's modules (the API
 * client, PKI, etcd, the kubelet's network code: hundreds of milliseconds), as `up` and
 * `server` do.
 */
import { parseArgs } from 'node:util';

export const initHelp = `Run this command in order to set up the Kubernetes control plane

The "init" command executes the following phases:
  preflight            Run pre-flight checks
  certs                Certificate generation
  kubeconfig           Generate all kubeconfig files necessary to establish the control plane and the admin kubeconfig file
  etcd                 Generate static Pod manifest file for local etcd
  control-plane        Generate all static Pod manifest files necessary to establish the control plane
  kubelet-start        Write kubelet settings and (re)start the kubelet
  wait-control-plane   Wait for the control plane to start
  mark-control-plane   Mark a node as a control-plane
  bootstrap-token      Generates bootstrap tokens used to join a node to a cluster

Usage:
  k8ts init [flags]

Flags:
      --apiserver-advertise-address string   The IP address the API Server will advertise it's listening on (default: the host's first non-loopback IPv4 address)
      --apiserver-bind-port int              Port for the API Server to bind to (default 6443)
      --cert-dir string                      The path where to save and store the certificates (default "/etc/kubernetes/pki")
      --certificate-key string               Key used to encrypt the control-plane certificates in the kubeadm-certs Secret. The certificate key is a hex encoded string that is an AES key of size 32 bytes.
      --control-plane-endpoint string        Specify a stable IP address or DNS name for the control plane (HOST:PORT; a load balancer
                                             in front of every control plane's API server). Needed to join more control planes
      --config string                        Path to a kubeadm configuration file (k8ts reads ClusterConfiguration's etcd: external or local.dataDir)
      --cri-socket string                    Path to the CRI socket to connect. If empty k8ts will try to auto-detect this value
                                             (kubeadm's known sockets, under --prefix); use this option only if you have more than
                                             one CRI installed or if you have non-standard CRI socket. The control plane's static
                                             pods stay host processes
      --dry-run                              Don't apply any changes; just output what would be done
      --ignore-preflight-errors strings      A list of checks whose errors will be shown as warnings, e.g. 'IsPrivilegedUser,Swap'. Value 'all' ignores errors from all checks
      --node-name string                     Specify the node name (default: the host name)
      --pod-network-cidr string              Specify range of IP addresses for the pod network
      --pod-network-backend string           k8ts: with --pod-network-cidr and --cri-socket, the built-in pod network's backend:
                                             host-gw, vxlan or auto (host-gw between nodes on one link, VXLAN otherwise);
                                             recorded in the kubeadm-config ConfigMap, joining nodes use it; "none" for none
                                             (default "auto" with both flags, else "none")
      --service-cidr string                  Use alternative range of IP address for service VIPs (default "10.96.0.0/12")
      --skip-phases strings                  List of phases to be skipped
      --token string                         The token to use for establishing bidirectional trust between nodes and control-plane nodes. The format is [a-z0-9]{6}\\.[a-z0-9]{16}
      --upload-certs                         Upload control-plane certificates to the kubeadm-certs Secret.
      --token-ttl duration                   The duration before the token is automatically deleted (e.g. 1s, 2m, 3h). If set to '0', the token will never expire (default 24h0m0s)

k8ts flags:
      --runtime string                       The node's pods run on: cri (containerd or another CRI runtime at --cri-socket),
                                             process (host processes, the image is not used) or simulated (no containers)
                                             (default "cri")
      --prefix string                        Root of this node's files: PREFIX/etc/kubernetes, PREFIX/var/lib/kubelet, PREFIX/var/lib/k8ts (default "/")
      --kubelet-port int                     Port of the kubelet API (default 10250)
      --controller-manager-port int          Port of the controller manager's /healthz (default 10257)
      --scheduler-port int                   Port of the scheduler's /healthz (default 10259)
      --timeout duration                     How long to wait for the control plane and the node (default 4m0s)
      --datastore string                     etcd (local etcd as a static pod, kubeadm's stacked etcd) or sqlite (the API server's
                                             embedded database, single control plane) (default "etcd")
      --etcd-client-port int                 Port of local etcd's client URLs (default 2379)
      --etcd-peer-port int                   Port of local etcd's peer URL (default 2380)
      --etcd-metrics-port int                Port of local etcd's metrics and health URL on 127.0.0.1 (default 2381)
  -h, --help                                 help for init`;

/** The command's flags, parsed (strict: an unknown flag throws, as cobra's "unknown flag"). */
export function parseInitFlags(args: string[]) {
  return parseArgs({
    args, strict: true, options: {
      'apiserver-advertise-address': { type: 'string' }, 'apiserver-bind-port': { type: 'string', default: '6443' },
      'pod-network-cidr': { type: 'string' }, 'pod-network-backend': { type: 'string' }, 'service-cidr': { type: 'string', default: '10.96.0.0/12' },
      'node-name': { type: 'string' }, token: { type: 'string' }, 'token-ttl': { type: 'string', default: '24h0m0s' },
      'cert-dir': { type: 'string' }, 'control-plane-endpoint': { type: 'string' }, 'upload-certs': { type: 'boolean' }, 'certificate-key': { type: 'string' }, config: { type: 'string' }, datastore: { type: 'string', default: 'etcd' },
      'etcd-client-port': { type: 'string', default: '2379' }, 'etcd-peer-port': { type: 'string', default: '2380' },
      'etcd-metrics-port': { type: 'string', default: '2381' }, 'cri-socket': { type: 'string' }, runtime: { type: 'string' }, 'skip-phases': { type: 'string' }, 'dry-run': { type: 'boolean' },
      'ignore-preflight-errors': { type: 'string' },
      prefix: { type: 'string', default: '/' },
      'kubelet-port': { type: 'string', default: '10250' }, 'controller-manager-port': { type: 'string', default: '10257' },
      'scheduler-port': { type: 'string', default: '10259' }, timeout: { type: 'string', default: '4m' },
    },
  });
}
