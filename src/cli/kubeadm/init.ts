/**
 * `k8ts init`: kubeadm init's phases with kubeadm's progress lines —
 * preflight, certs, kubeconfig, control-plane (static pod manifests),
 * kubelet-start, wait-control-plane, mark-control-plane, bootstrap-token —
 * and its closing message with the join command.
 */
import { uploadConfigPhase } from './upload-config.js';
import { uploadKubeletConfigPhase } from './upload-kubelet-config.js';
import { defaultKubeletConfiguration } from '../kubelet-config-file.js';
import { podNetworkRBACPhase } from './pod-network-rbac.js';
import { parsePodNetworkBackend } from '../agent-podnet.js';
import { hostname, networkInterfaces, tmpdir } from 'node:os';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { Taint } from 'kubernetes-types/core/v1.js';
import { caCertHash } from '../../pki/index.js';
import { Clientset, ResourceClient, isAlreadyExists, isConflict, loadKubeconfig as loadKubeconfigSync } from '../../client/index.js';
import { parseDuration } from '../duration.js';
import { nodeLayout, KUBECONFIG_NAMES, type NodeLayout } from './layout.js';
import { PreflightError, runChecks, parseIgnored, isPrivilegedUser, portOpen, fileAvailable, dirAvailable, type Check } from './preflight.js';
import { certsPhase, type Datastore } from './certs.js';
import { etcdClientFiles } from './etcd-certs.js';
import { etcdPhase, etcdManifestPath, etcdClientURL, type LocalEtcdConfig } from './etcd-manifest.js';
import { readInitConfig, type InitFileConfig } from './init-config.js';
import { uploadCertsPhase, generateCertificateKey } from './upload-certs.js';
import { kubeconfigPhase, CLUSTER_ADMINS_GROUP } from './kubeconfigs.js';
import { parseCIDR } from '../../controllers/nodeipam/index.js';
import { controlPlanePhase, manifestPath, CONTROL_PLANE_COMPONENTS, type ControlPlaneConfig } from './manifests.js';
import { applyCoreDNSAddon } from './addon-coredns.js';
import { applyKubeProxyAddon } from './addon-kube-proxy.js';
import { kubeletStartPhase, type AgentRuntime } from './kubelet-start.js';
import { bootstrapTokenPhase, generateToken, TOKEN_PATTERN } from './bootstrap-token.js';
import { waitForAPIServer, waitForNodeReady, poll, getNode } from './wait.js';
import { nodeRuntimeOf, serviceIPOf } from './common.js';
import { criCheck } from './cri-socket.js';
import { parseInitFlags } from './init-flags.js';
import { componentUserAgent } from '../../util/user-agent.js';




export async function runInit(args: string[]): Promise<number> {
  const { values } = parseInitFlags(args);
  const log = (line: string) => console.log(line);
  const token = values.token ?? generateToken();
  if (!TOKEN_PATTERN.test(token)) { console.error(`the bootstrap token "${token}" was not of the form "${TOKEN_PATTERN.source}"`); return 1; }
  // The control plane's static pods are host processes. The node's other pods (a DaemonSet that tolerates the
  // control-plane taint) run on the node's runtime: containerd by default, as kubeadm's; --runtime picks another.
  let runtime: AgentRuntime;
  let criSocket: string | undefined;
  try {
    ({ runtime, criSocket } = nodeRuntimeOf(values, values.prefix!));
  } catch (e) {
    console.error(`${(e as Error).message}\nTo see the stack trace of this error execute with --v=5 or higher`);
    return 1;
  }
  const serviceIP = serviceIPOf(values['service-cidr']!);
  const dnsIP = serviceIPOf(values['service-cidr']!, 10);
  const nodeName = (values['node-name'] ?? hostname()).toLowerCase();
  const advertiseAddress = values['apiserver-advertise-address'] ?? hostIPv4();
  const port = Number(values['apiserver-bind-port']);
  const skip = new Set((values['skip-phases'] ?? '').split(',').map((s) => s.trim()).filter(Boolean));
  const dryRun = !!values['dry-run'];
  // A dry run writes into a temporary directory and starts nothing, as kubeadm's does.
  const layout = dryRun ? nodeLayout(mkdtempSync(join(tmpdir(), 'k8ts-init-dryrun-'))) : nodeLayout(values.prefix, values['cert-dir']);
  const server = `https://${advertiseAddress.includes(':') ? `[${advertiseAddress}]` : advertiseAddress}:${port}`;
  // kubeadm's controlPlaneEndpoint: admin.conf, kubelet.conf, cluster-info and the join commands name it; the
  // controller manager and scheduler keep talking to their own API server (kubeadm's LocalAPIEndpoint).
  const endpoint = values['control-plane-endpoint']?.trim() || undefined;
  const endpointHost = endpoint ? splitEndpoint(endpoint) : undefined;
  if (endpoint && !endpointHost) { console.error(`controlPlaneEndpoint: Invalid value: "${endpoint}": must be HOST or HOST:PORT`); return 1; }
  const endpointServer = endpoint ? `https://${endpointHost!.port ? endpoint : `${endpoint}:${port}`}` : server;
  const podSubnet = values['pod-network-cidr']?.trim() || undefined;
  // kubeadm's check: networking.podSubnet must parse, as one CIDR per IP family.
  for (const c of podSubnet?.split(',') ?? []) {
    if (!parseCIDR(c)) { console.error(`networking.podSubnet: Invalid value: "${podSubnet}": couldn't parse subnet`); return 1; }
  }
  // The built-in pod network needs node pod CIDRs (the node IPAM controller, --pod-network-cidr) and containers (the cri runtime).
  const podNetworkBackend = values['pod-network-backend'] ?? (podSubnet && criSocket ? 'auto' : 'none');
  try { parsePodNetworkBackend(podNetworkBackend); } catch (e) { console.error((e as Error).message); return 1; }
  if (podNetworkBackend !== 'none' && !(podSubnet && criSocket)) { console.error('--pod-network-backend needs --pod-network-cidr and --runtime cri'); return 1; }
  let fileConfig: InitFileConfig = {};
  try {
    if (values.config) fileConfig = readInitConfig(values.config);
  } catch (e) { console.error(`${(e as Error).message}\nTo see the stack trace of this error execute with --v=5 or higher`); return 1; }
  if (values.datastore !== 'etcd' && values.datastore !== 'sqlite') { console.error(`invalid argument "${values.datastore}" for "--datastore" flag: must be etcd or sqlite`); return 1; }
  const certificateKey = values['certificate-key'] ?? generateCertificateKey();
  if (!/^[0-9a-f]{64}$/i.test(certificateKey)) { console.error('the certificate key must be a hex encoded AES key of 32 bytes'); return 1; }
  const datastore: Datastore = values.datastore === 'sqlite' ? 'sqlite' : fileConfig.externalEtcd ? 'external-etcd' : 'etcd';
  if (fileConfig.localEtcdDataDir) layout.etcdDataDir = fileConfig.localEtcdDataDir;
  const localEtcd: LocalEtcdConfig | undefined = datastore === 'etcd' ? {
    layout, nodeName, advertiseAddress, clientPort: Number(values['etcd-client-port']),
    peerPort: Number(values['etcd-peer-port']), metricsPort: Number(values['etcd-metrics-port']),
  } : undefined;
  const cp: ControlPlaneConfig = {
    layout, advertiseAddress, bindPort: port, podSubnet, serviceSubnet: values['service-cidr'],
    controllerManagerPort: Number(values['controller-manager-port']), schedulerPort: Number(values['scheduler-port']),
    etcd: apiServerEtcd(datastore, layout, localEtcd, fileConfig),
  };
  const timeoutMs = parseDuration(values.timeout!);
  let phase = 'preflight';
  try {
    log(`[init] Using Kubernetes version: ${KUBERNETES_VERSION}`);
    if (!skip.has('preflight')) {
      log('[preflight] Running pre-flight checks');
      const real = nodeLayout(values.prefix, values['cert-dir']);
      if (fileConfig.localEtcdDataDir) real.etcdDataDir = fileConfig.localEtcdDataDir;
      await runChecks([...initChecks(real, cp, Number(values['kubelet-port'])), ...(localEtcd ? etcdChecks(real, localEtcd) : []), ...(runtime === 'cri' ? [criCheck(criSocket!)] : [])], parseIgnored(values['ignore-preflight-errors']));
    }
    if (dryRun) log(`[dryrun] Writing files to the temporary directory "${layout.prefix}" instead of the real ones`);
    mkdirSync(layout.kubernetesDir, { recursive: true, mode: 0o755 });
    mkdirSync(layout.manifestsDir, { recursive: true, mode: 0o700 });
    phase = 'certs';
    const pki = skip.has('certs') ? undefined : await certsPhase({ certDir: layout.certDir, dataDir: layout.dataDir, nodeName, advertiseAddress, serviceIP, datastore, log, ...(endpointHost ? { extraHosts: [endpointHost.host] } : {}) });
    const ca = pki ? { certPem: pki.caCertPem, keyPem: pki.caKeyPem }
      : { certPem: readFileSync(join(layout.certDir, 'ca.crt'), 'utf8'), keyPem: readFileSync(join(layout.certDir, 'ca.key'), 'utf8') };
    phase = 'kubeconfig';
    if (!skip.has('kubeconfig')) await kubeconfigPhase({ layout, ca, server: endpointServer, localServer: server, nodeName, log });
    phase = 'etcd';
    if (localEtcd && !skip.has('etcd') && !skip.has('etcd/local')) await etcdPhase(localEtcd, log);
    phase = 'control-plane';
    if (!skip.has('control-plane')) await controlPlanePhase(cp, log);
    if (dryRun) {
      if (localEtcd) log(`[dryrun] Would write file "${etcdManifestPath(nodeLayout(values.prefix))}" with content:\n${readFileSync(etcdManifestPath(layout), 'utf8')}`);
      for (const c of CONTROL_PLANE_COMPONENTS) log(`[dryrun] Would write file "${manifestPath(nodeLayout(values.prefix), c)}" with content:\n${readFileSync(manifestPath(layout, c), 'utf8')}`);
      log(`[dryrun] Would start the kubelet (node "${nodeName}", ${runtime} runtime) and wait for the control plane at ${server}`);
      log(`[dryrun] Would mark the node ${nodeName} as control-plane and create the bootstrap token ${token}`);
      log('[dryrun] Finished dry-running successfully. Above are the resources that would be created');
      rmSync(layout.prefix, { recursive: true, force: true });
      return 0;
    }
    phase = 'kubelet-start';
    // kubeadm's cluster-wide KubeletConfiguration: this node's config.yaml, and the kubelet-config ConfigMap joining nodes read.
    const kubeletConfiguration = defaultKubeletConfiguration(dnsIP);
    const agentConfig = {
      layout, nodeName, nodeIP: advertiseAddress, kubeletPort: Number(values['kubelet-port']), runtime, kubeletConfiguration,
      ...(criSocket ? { criSocket } : {}), ...(runtime !== 'process' ? { staticPodRuntime: 'process' as const } : {}), podNetworkBackend,
    };
    let stopHint = '';
    if (!skip.has('kubelet-start')) {
      stopHint = kubeletStartPhase({ ...agentConfig, staticPods: true }, log).howToStop;
    }
    phase = 'wait-control-plane';
    const admin = new Clientset(clientConfigOf(layout, 'super-admin.conf'), { userAgent: componentUserAgent('kubeadm') });
    try {
      if (!skip.has('wait-control-plane')) {
        log(`[wait-control-plane] Waiting for the kubelet to boot up the control plane as static Pods from directory "${layout.manifestsDir}"`);
        log(`[api-check] Waiting for a healthy API server. This can take up to ${values.timeout}`);
        const started = Date.now();
        await waitForAPIServer(server, ca.certPem, timeoutMs);
        log(`[api-check] The API server is healthy after ${seconds(Date.now() - started)}`);
      }
      phase = 'upload-config';
      await bindClusterAdmins(admin);
      if (!skip.has('upload-config')) {
        await uploadConfigPhase(admin, {
          kubernetesVersion: KUBERNETES_VERSION, controlPlaneEndpoint: endpoint ?? '', podSubnet, serviceSubnet: values['service-cidr']!, podNetworkBackend,
        }, log);
      }
      if (!skip.has('upload-config') && !skip.has('upload-config/kubelet')) await uploadKubeletConfigPhase(admin, kubeletConfiguration, log);
      phase = 'upload-certs';
      if (values['upload-certs'] && !skip.has('upload-certs')) {
        await uploadCertsPhase(admin, { certDir: layout.certDir, certificateKey, externalEtcd: fileConfig.externalEtcd, log });
      } else {
        log('[upload-certs] Skipping phase. Please see --upload-certs');
      }
      if (podNetworkBackend !== 'none') await podNetworkRBACPhase(admin, log);
      phase = 'mark-control-plane';
      if (!skip.has('mark-control-plane')) await markControlPlane(admin, nodeName, timeoutMs, log);
      phase = 'bootstrap-token';
      if (!skip.has('bootstrap-token')) await bootstrapTokenPhase(admin, { token, ttlMs: parseDuration(values['token-ttl']!), server: endpointServer, caCertPem: ca.certPem, log });
      phase = 'addon';
      if (!skip.has('addon') && !skip.has('addon/coredns')) {
        await applyCoreDNSAddon(admin, { dnsIP, apiServerHost: advertiseAddress, apiServerPort: port }, log);
      }
      // kube-proxy rewrites the node's nftables: only on a cri node, whose pods have a network of their own. With
      // --runtime process every pod is a host process in the host's network, and the host's rules are left alone.
      if (criSocket && !skip.has('addon') && !skip.has('addon/kube-proxy')) {
        await applyKubeProxyAddon(admin, { apiServerHost: advertiseAddress, apiServerPort: port, clusterCIDR: podSubnet?.split(',')[0] }, log);
      }
      phase = 'wait-control-plane';
      await waitForNodeReady(admin, nodeName, timeoutMs);
    } finally {
      admin.close();
    }
    log(closingMessage(layout, {
      server: endpointServer, token, hash: caCertHash(ca.certPem), stopHint,
      controlPlaneJoin: endpoint ? (values['upload-certs'] && !skip.has('upload-certs') ? { certificateKey } : {}) : undefined,
    }));
    return 0;
  } catch (e) {
    if (e instanceof PreflightError) console.error(`error execution phase preflight: ${e.message}\nTo see the stack trace of this error execute with --v=5 or higher`);
    else console.error(`error execution phase ${phase}: ${e instanceof Error ? e.message : String(e)}\nTo see the stack trace of this error execute with --v=5 or higher`);
    return 1;
  }
}

/** The version k8ts serves (kubectl 1.32 is its reference client). */
const KUBERNETES_VERSION = 'v1.32.0';

const seconds = (ms: number) => `${(ms / 1000).toFixed(3)}s`;

function initChecks(l: NodeLayout, cp: ControlPlaneConfig, kubeletPort: number): Check[] {
  return [
    isPrivilegedUser(),
    portOpen(cp.bindPort), portOpen(cp.controllerManagerPort), portOpen(cp.schedulerPort), portOpen(kubeletPort),
    ...CONTROL_PLANE_COMPONENTS.map((c) => fileAvailable(manifestPath(l, c))),
    ...KUBECONFIG_NAMES.map((k) => fileAvailable(l.kubeconfig(k))),
    dirAvailable(l.dataDir),
  ];
}

/** kubeadm's local etcd checks: its two ports free, no etcd.yaml, an empty data directory. */
function etcdChecks(l: NodeLayout, e: LocalEtcdConfig): Check[] {
  return [portOpen(e.clientPort), portOpen(e.peerPort), fileAvailable(etcdManifestPath(l)), dirAvailable(l.etcdDataDir)];
}

/** The API server's etcd: local etcd on loopback with the apiserver-etcd-client pair, or the file's etcd.external. */
function apiServerEtcd(datastore: Datastore, layout: NodeLayout, local: LocalEtcdConfig | undefined, file: InitFileConfig): ControlPlaneConfig['etcd'] {
  if (datastore === 'sqlite') return undefined;
  if (datastore === 'external-etcd') {
    const e = file.externalEtcd!;
    return { servers: e.endpoints, caFile: e.caFile, certFile: e.certFile, keyFile: e.keyFile };
  }
  return { servers: [etcdClientURL('127.0.0.1', local!.clientPort)], ...etcdClientFiles(layout.certDir) };
}

function clientConfigOf(layout: NodeLayout, file: 'super-admin.conf') {
  return loadKubeconfigSync(layout.kubeconfig(file));
}


/** kubeadm's ClusterRoleBinding giving admin.conf's group cluster-admin. */
async function bindClusterAdmins(clients: Clientset): Promise<void> {
  const crbs = new ResourceClient(clients.rest, { group: 'rbac.authorization.k8s.io', version: 'v1', resource: 'clusterrolebindings', namespaced: false });
  try {
    await crbs.create(undefined, {
      apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRoleBinding', metadata: { name: CLUSTER_ADMINS_GROUP },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'cluster-admin' },
      subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'Group', name: CLUSTER_ADMINS_GROUP }],
    });
  } catch (e) {
    if (!isAlreadyExists(e)) throw e;
  }
}

export const CONTROL_PLANE_LABELS = ['node-role.kubernetes.io/control-plane', 'node.kubernetes.io/exclude-from-external-load-balancers'];
export const CONTROL_PLANE_TAINT: Taint = { key: 'node-role.kubernetes.io/control-plane', effect: 'NoSchedule' };

export async function markControlPlane(clients: Clientset, nodeName: string, timeoutMs: number, log: (line: string) => void): Promise<void> {
  log(`[mark-control-plane] Marking the node ${nodeName} as control-plane by adding the labels: [${CONTROL_PLANE_LABELS.join(' ')}]`);
  log(`[mark-control-plane] Marking the node ${nodeName} as control-plane by adding the taints [${CONTROL_PLANE_TAINT.key}:${CONTROL_PLANE_TAINT.effect}]`);
  // kubeadm's PatchNode retries on conflict: the kubelet and the node IPAM controller write the Node meanwhile.
  for (;;) {
    const node = await poll(() => getNode(clients, nodeName), timeoutMs, () => `timed out waiting for the node "${nodeName}" to register`);
    const taints = node.spec?.taints ?? [];
    const hasTaint = taints.some((t) => t.key === CONTROL_PLANE_TAINT.key && t.effect === CONTROL_PLANE_TAINT.effect);
    try {
      await clients.nodes.patch(undefined, nodeName, {
        metadata: { labels: Object.fromEntries(CONTROL_PLANE_LABELS.map((l) => [l, ''])), resourceVersion: node.metadata?.resourceVersion },
        spec: { taints: hasTaint ? taints : [...taints, CONTROL_PLANE_TAINT] },
      });
      return;
    } catch (e) {
      if (!isConflict(e)) throw e;
    }
  }
}

/** HOST or HOST:PORT (IPv6 in brackets), as kubeadm's controlPlaneEndpoint. */
function splitEndpoint(endpoint: string): { host: string; port?: number } | undefined {
  const m = /^(\[[0-9a-fA-F:.]+\]|[^:[\]]+)(?::(\d{1,5}))?$/.exec(endpoint);
  if (!m || (m[2] !== undefined && (Number(m[2]) < 1 || Number(m[2]) > 65535))) return undefined;
  return { host: m[1]!.replace(/^\[|\]$/g, ''), ...(m[2] ? { port: Number(m[2]) } : {}) };
}

interface ClosingMessage {
  server: string; token: string; hash: string; stopHint: string;
  /** With --control-plane-endpoint: the control-plane join command (with the key when the certificates were uploaded). */
  controlPlaneJoin?: { certificateKey?: string };
}

/** kubeadm's paragraph for more control planes (cmd/kubeadm/app/cmd/init.go's initDoneTempl). */
function controlPlaneJoinText(join: string, cp: { certificateKey?: string }): string {
  if (cp.certificateKey) {
    return `
You can now join any number of control-plane nodes running the following command on each as root:

  ${join} \\
\t--control-plane --certificate-key ${cp.certificateKey}

Please note that the certificate-key gives access to cluster sensitive data, keep it secret!
As a safeguard, uploaded-certs will be deleted in two hours; k8ts has no "init phase upload-certs"
yet to reload them: copy the certificate authorities and service account keys by hand afterwards.
`;
  }
  return `
You can now join any number of control-plane nodes by copying certificate authorities
and service account keys on each node and then running the following as root:

  ${join} \\
\t--control-plane
`;
}

function closingMessage(layout: NodeLayout, m: ClosingMessage): string {
  const { server, token, hash, stopHint } = m;
  const admin = layout.kubeconfig('admin.conf');
  const joinCommand = `k8ts join ${server.replace(/^https:\/\//, '')} --token ${token} \\\n\t--discovery-token-ca-cert-hash ${hash}`;
  return `
Your Kubernetes control-plane has initialized successfully!

To start using your cluster, you need to run the following as a regular user:

  mkdir -p $HOME/.kube
  sudo cp -i ${admin} $HOME/.kube/config
  sudo chown $(id -u):$(id -g) $HOME/.kube/config

Alternatively, if you are the root user, you can run:

  export KUBECONFIG=${admin}

You should now deploy a pod network to the cluster.
Run "kubectl apply -f [podnetwork].yaml" with one of the options listed at:
  https://kubernetes.io/docs/concepts/cluster-administration/addons/
${stopHint ? `\nThe kubelet runs in the background without systemd; to stop it: ${stopHint} (or k8ts reset)\n` : ''}${m.controlPlaneJoin ? controlPlaneJoinText(joinCommand, m.controlPlaneJoin) : ''}
Then you can join any number of worker nodes by running the following on each as root:

${joinCommand} `;
}

/** The host's first non-internal IPv4 address, else 127.0.0.1 (kubeadm picks the default route's address). */
function hostIPv4(): string {
  for (const addrs of Object.values(networkInterfaces())) {
    for (const a of addrs ?? []) if (a.family === 'IPv4' && !a.internal) return a.address;
  }
  return '127.0.0.1';
}
