/**
 * `k8ts join`'s usage and flags, apart from its phases (join.ts): main.ts answers `--help`
 * and rejects a bad flag with these alone, before loading the command's modules (the API
 * client, PKI, etcd, the kubelet's network code: hundreds of milliseconds), as `up` and
 * `server` do.
 */
import { parseArgs } from 'node:util';

export const joinHelp = `Run this on any machine you wish to join an existing cluster

Usage:
  k8ts join [api-server-endpoint] [flags]

Flags:
      --apiserver-advertise-address string                If the node should host a new control plane instance, the IP address the API Server will advertise it's listening on
      --apiserver-bind-port int                           If the node should host a new control plane instance, the port for the API Server to bind to (default 6443)
      --certificate-key string                            Use this key to decrypt the certificate secrets uploaded by init. The certificate key is a hex encoded string that is an AES key of size 32 bytes.
      --control-plane                                     Create a new control plane instance on this node
      --cri-socket string                                 Path to the CRI socket to connect. If empty k8ts will try to auto-detect this value
                                                          (kubeadm's known sockets, under --prefix); use this option only if you have more
                                                          than one CRI installed or if you have non-standard CRI socket
      --discovery-token string                            For token-based discovery, the token used to validate cluster information fetched from the API server
      --discovery-token-ca-cert-hash strings              For token-based discovery, validate that the root CA public key matches this hash (format: "<type>:<value>")
      --discovery-token-unsafe-skip-ca-verification       For token-based discovery, allow joining without --discovery-token-ca-cert-hash pinning
      --ignore-preflight-errors strings                   A list of checks whose errors will be shown as warnings. Value 'all' ignores errors from all checks
      --node-name string                                  Specify the node name (default: the host name)
      --tls-bootstrap-token string                        Specify the token used to temporarily authenticate with the Kubernetes Control Plane while joining the node
      --token string                                      Use this token for both discovery-token and tls-bootstrap-token when those values are not provided

k8ts flags:
      --prefix string                                     Root of this node's files (default "/")
      --runtime string                                    The node's pods run on: cri (containerd or another CRI runtime at --cri-socket),
                                                          process (host processes) or simulated (no containers) (default "cri")
      --node-ip string                                    The node's address; the kubelet API listens on it (default: this host's address on the route to the API server)
      --kubelet-port int                                  Port of the kubelet API (default 10250)
      --controller-manager-port int                       With --control-plane: port of the controller manager's /healthz (default 10257)
      --scheduler-port int                                With --control-plane: port of the scheduler's /healthz (default 10259)
      --etcd-client-port int                              With --control-plane: port of the local etcd member's client URLs (default 2379)
      --etcd-peer-port int                                With --control-plane: port of its peer URL (default 2380)
      --etcd-metrics-port int                             With --control-plane: port of its metrics and health URL on 127.0.0.1 (default 2381)
      --timeout duration                                  How long to wait for discovery, the TLS bootstrap and a Ready node (default 4m0s)
  -h, --help                                              help for join`;

/** The command's flags, parsed (strict: an unknown flag throws, as cobra's "unknown flag"). */
export function parseJoinFlags(args: string[]) {
  return parseArgs({
    args, strict: true, allowPositionals: true, options: {
      token: { type: 'string' }, 'discovery-token': { type: 'string' }, 'tls-bootstrap-token': { type: 'string' },
      'discovery-token-ca-cert-hash': { type: 'string', multiple: true }, 'discovery-token-unsafe-skip-ca-verification': { type: 'boolean' },
      'node-name': { type: 'string' }, 'cri-socket': { type: 'string' }, 'ignore-preflight-errors': { type: 'string' },
      prefix: { type: 'string', default: '/' }, runtime: { type: 'string' }, 'node-ip': { type: 'string' },
      'kubelet-port': { type: 'string', default: '10250' }, timeout: { type: 'string', default: '4m' },
      'control-plane': { type: 'boolean' }, 'certificate-key': { type: 'string' }, 'apiserver-advertise-address': { type: 'string' },
      'apiserver-bind-port': { type: 'string', default: '6443' }, 'controller-manager-port': { type: 'string', default: '10257' },
      'scheduler-port': { type: 'string', default: '10259' }, 'etcd-client-port': { type: 'string', default: '2379' },
      'etcd-peer-port': { type: 'string', default: '2380' }, 'etcd-metrics-port': { type: 'string', default: '2381' },
    },
  });
}
