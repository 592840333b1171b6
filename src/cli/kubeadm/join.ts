/**
 * `k8ts join HOST:PORT --token T --discovery-token-ca-cert-hash sha256:H`:
 * kubeadm join for a worker — preflight, discovery of the cluster's CA through
 * cluster-info pinned by its hash, the node-name check, the bootstrap
 * kubeconfig, and the agent started with --bootstrap-kubeconfig, which
 * obtains the node's client certificate through a CertificateSigningRequest
 * (TLS bootstrap). A join that fails undoes what it did: nothing is left.
 */
import { downloadPodNetworkBackend } from './upload-config.js';
import { downloadKubeletConfig } from './upload-kubelet-config.js';
import type { KubeletConfiguration } from '../kubelet-config-file.js';
import { hostname } from 'node:os';
import { existsSync, mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { buildKubeconfig, writeFileAtomic, writeKubeconfig } from '../../pki/index.js';
import { ApiError, Clientset, loadKubeconfig } from '../../client/index.js';
import { parseDuration } from '../duration.js';
import { nodeLayout, type NodeLayout } from './layout.js';
import { PreflightError, runChecks, parseIgnored, isPrivilegedUser, portOpen, fileAvailable, dirAvailable } from './preflight.js';
import { kubeletConfigPath, kubeletStartPhase } from './kubelet-start.js';
import { KUBELET_SERVICE, stopService } from './service.js';
import { discoverClusterInfo, type ClusterInfo } from './discovery.js';
import { TOKEN_PATTERN } from './bootstrap-token.js';
import { nodeRuntimeOf, sourceAddressTo } from './common.js';
import { criCheck } from './cri-socket.js';
import { getNode, isReady, poll } from './wait.js';
import {
  checkEtcdPhase, checkReadyForAdditionalControlPlane, controlPlaneJoinedMessage, joinControlPlane, prepareControlPlane, readClusterConfiguration,
  type ControlPlaneJoinOptions, type JoinClusterConfig,
} from './join-control-plane.js';
import { validateCertificateKey } from './download-certs.js';
import { etcdManifestPath } from './etcd-manifest.js';
import { CONTROL_PLANE_COMPONENTS, manifestPath } from './manifests.js';
import { parseJoinFlags } from './join-flags.js';
import { componentUserAgent } from '../../util/user-agent.js';



export async function runJoin(args: string[]): Promise<number> {
  const { values, positionals } = parseJoinFlags(args);
  const controlPlane = !!values['control-plane'];
  if (values['certificate-key'] !== undefined && !controlPlane) {
    console.error('can not use --certificate-key without --control-plane');
    return 1;
  }
  const keyError = values['certificate-key'] !== undefined ? validateCertificateKey(values['certificate-key']) : undefined;
  if (keyError) { console.error(`error execution phase control-plane-prepare/download-certs: ${keyError}\nTo see the stack trace of this error execute with --v=5 or higher`); return 1; }
  const endpoint = positionals[0];
  const discoveryToken = values['discovery-token'] ?? values.token;
  const bootstrapToken = values['tls-bootstrap-token'] ?? values.token;
  if (!endpoint || !discoveryToken || !bootstrapToken) {
    console.error('discovery: Invalid value: "": bootstrapToken or file must be set');
    return 1;
  }
  for (const t of [discoveryToken, bootstrapToken]) {
    if (!TOKEN_PATTERN.test(t)) { console.error(`the bootstrap token "${t}" was not of the form "${TOKEN_PATTERN.source}"`); return 1; }
  }
  // Real by default, as kubeadm: containerd at --cri-socket or the detected socket; --runtime picks another.
  let node: ReturnType<typeof nodeRuntimeOf>;
  try {
    node = nodeRuntimeOf(values, values.prefix!);
  } catch (e) {
    console.error(`${(e as Error).message}\nTo see the stack trace of this error execute with --v=5 or higher`);
    return 1;
  }
  const { runtime, criSocket } = node;
  const layout = nodeLayout(values.prefix);
  const nodeName = (values['node-name'] ?? hostname()).toLowerCase();
  const kubeletPort = Number(values['kubelet-port']);
  const timeoutMs = parseDuration(values.timeout!);
  const log = (line: string) => console.log(line);
  const written: string[] = [];
  const undo: Array<() => Promise<void>> = [];
  const certDirExisted = existsSync(layout.certDir);
  let cpOptions: ControlPlaneJoinOptions | undefined;
  const kubeletDirExisted = existsSync(layout.kubeletDir);
  const manifestsDirExisted = existsSync(layout.manifestsDir);
  let started = false;
  let phase = 'preflight';
  try {
    // A control plane's node IP is its API server's advertise address, as kubeadm's.
    const nodeIP = values['node-ip'] ?? (controlPlane ? values['apiserver-advertise-address'] : undefined) ?? await sourceAddressTo(endpoint);
    cpOptions = controlPlane ? {
      layout, nodeName, advertiseAddress: values['apiserver-advertise-address'] ?? nodeIP, bindPort: Number(values['apiserver-bind-port']),
      ...(values['certificate-key'] ? { certificateKey: values['certificate-key'] } : {}),
      controllerManagerPort: Number(values['controller-manager-port']), schedulerPort: Number(values['scheduler-port']),
      etcdClientPort: Number(values['etcd-client-port']), etcdPeerPort: Number(values['etcd-peer-port']),
      etcdMetricsPort: Number(values['etcd-metrics-port']), timeoutMs, log,
    } : undefined;
    log('[preflight] Running pre-flight checks');
    await runChecks([
      ...(cpOptions ? controlPlaneChecks(cpOptions) : []),
      isPrivilegedUser(), ...(runtime === 'cri' ? [criCheck(criSocket!)] : []), dirAvailable(layout.manifestsDir),
      fileAvailable(layout.kubeconfig('kubelet.conf')), fileAvailable(layout.kubeconfig('bootstrap-kubelet.conf')), portOpen(kubeletPort, nodeIP),
      // A control plane without --certificate-key brings the shared certificates itself (copied by hand).
      ...(controlPlane && !values['certificate-key'] ? [] : [fileAvailable(join(layout.certDir, 'ca.crt'))]),
    ], parseIgnored(values['ignore-preflight-errors']));
    const info = await discoverClusterInfo({
      endpoint, token: discoveryToken, caCertHashes: values['discovery-token-ca-cert-hash'] ?? [],
      unsafeSkipCAVerification: !!values['discovery-token-unsafe-skip-ca-verification'], timeoutMs, log,
    });
    log('[preflight] Reading configuration from the cluster...');
    phase = 'kubelet-start';
    const { podNetworkBackend, kubeletConfiguration, clusterConfig } = await checkNodeName(info, bootstrapToken, nodeName);
    if (cpOptions) {
      log('[preflight] Running pre-flight checks before initializing the new control plane instance');
      checkReadyForAdditionalControlPlane(clusterConfig, cpOptions);
      phase = 'control-plane-prepare';
      const bootstrap = new Clientset({ server: info.server, caPem: info.caCertPem, token: bootstrapToken }, { userAgent: componentUserAgent('kubeadm') });
      try {
        written.push(...await prepareControlPlane(bootstrap, clusterConfig, cpOptions));
      } finally {
        bootstrap.close();
      }
      phase = 'check-etcd';
      await checkEtcdPhase(cpOptions);
      phase = 'kubelet-start';
    }
    mkdirSync(layout.certDir, { recursive: true, mode: 0o755 });
    const caPath = join(layout.certDir, 'ca.crt');
    await writeFileAtomic(caPath, info.caCertPem, 0o644);
    written.push(caPath);
    const bootstrapConf = layout.kubeconfig('bootstrap-kubelet.conf');
    await writeKubeconfig(bootstrapConf, buildKubeconfig({ server: info.server, caCertPem: info.caCertPem, userName: 'tls-bootstrap-token-user', token: bootstrapToken }));
    written.push(bootstrapConf);
    // Every kubeadm node's kubelet has staticPodPath /etc/kubernetes/manifests (kubeadm's KubeletConfiguration
    // default), workers included: a manifest dropped there becomes a pod with a mirror pod.
    mkdirSync(layout.manifestsDir, { recursive: true, mode: 0o700 });
    started = true;
    kubeletStartPhase({
      layout, nodeName, nodeIP, kubeletPort, runtime, criSocket, bootstrap: true, staticPods: true, ...(runtime === 'cri' ? { podNetworkBackend } : {}),
      ...(kubeletConfiguration ? { kubeletConfiguration } : {}),
      // The control plane's static pods are host processes, as on init's node.
      ...(cpOptions && runtime !== 'process' ? { staticPodRuntime: 'process' as const } : {}),
    }, log);
    log(`[kubelet-start] Waiting for the kubelet to perform the TLS Bootstrap`);
    const kubeletConf = layout.kubeconfig('kubelet.conf');
    await poll(async () => (existsSync(kubeletConf) ? true : undefined), timeoutMs,
      () => `timed out waiting for the kubelet to perform the TLS Bootstrap (no ${kubeletConf} after ${values.timeout}); see ${layout.logFile(KUBELET_SERVICE)}`);
    if (cpOptions) {
      phase = 'control-plane-join';
      await joinControlPlane(clusterConfig, cpOptions, undo);
    }
    const clients = new Clientset(loadKubeconfig(kubeletConf), { userAgent: componentUserAgent('kubeadm') });
    try {
      await poll(async () => (isReady(await getNode(clients, nodeName)) ? true : undefined), timeoutMs, () => `the node "${nodeName}" did not become Ready within ${values.timeout}`);
    } finally {
      clients.close();
    }
  } catch (e) {
    for (const u of undo.reverse()) await u();
    if (started) await stopService(layout, KUBELET_SERVICE).catch(() => undefined);
    if (started) cleanAgentState(layout, kubeletDirExisted, manifestsDirExisted);
    for (const f of written) rmSync(f, { force: true });
    if (cpOptions) cleanControlPlaneState(layout, certDirExisted);
    const msg = e instanceof PreflightError ? e.message : e instanceof Error ? e.message : String(e);
    console.error(`error execution phase ${phase}: ${msg}\nTo see the stack trace of this error execute with --v=5 or higher`);
    return 1;
  }
  if (cpOptions) {
    log(controlPlaneJoinedMessage(layout));
    return 0;
  }
  log(`
This node has joined the cluster:
* Certificate signing request was sent to apiserver and a response was received.
* The Kubelet was informed of the new secure connection details.

Run 'kubectl get nodes' on the control-plane to see this node join the cluster.
`);
  return 0;
}

/**
 * kubeadm refuses to join under the name of a Node that is Ready (a stale,
 * NotReady one may be replaced). The bootstrap token may get nodes. Returns
 * the pod network backend that init recorded in kubeadm-config and the
 * cluster's KubeletConfiguration (kubelet-config), both readable with the token.
 */
async function checkNodeName(info: ClusterInfo, token: string, nodeName: string): Promise<{ podNetworkBackend: string; kubeletConfiguration?: KubeletConfiguration; clusterConfig: JoinClusterConfig }> {
  const clients = new Clientset({ server: info.server, caPem: info.caCertPem, token }, { userAgent: componentUserAgent('kubeadm') });
  try {
    const node = await getNode(clients, nodeName);
    if (node && isReady(node)) {
      throw new Error(`a Node with name "${nodeName}" and status "Ready" already exists in the cluster. You must delete the existing Node or change the name of this new joining Node`);
    }
    // kubeadm reads the cluster's configuration here ("Reading configuration from the cluster..."): the pod network's
    // backend, the control plane's ClusterConfiguration and the kubelets' configuration (clusterDNS, clusterDomain).
    const kubeletConfiguration = await downloadKubeletConfig(clients);
    return {
      podNetworkBackend: await downloadPodNetworkBackend(clients), clusterConfig: await readClusterConfiguration(clients),
      ...(kubeletConfiguration ? { kubeletConfiguration } : {}),
    };
  } catch (e) {
    if (e instanceof ApiError && e.code === 401) throw new Error(`the bootstrap token was refused by the API server (Unauthorized): it is wrong, expired or deleted; create a new one with 'k8ts token create --print-join-command' on the control plane`);
    throw e;
  } finally {
    clients.close();
  }
}

/** What the agent may have written before a failed join was undone. */
function cleanAgentState(layout: NodeLayout, kubeletDirExisted: boolean, manifestsDirExisted: boolean): void {
  rmSync(layout.kubeconfig('kubelet.conf'), { force: true });
  rmSync(kubeletConfigPath(layout), { force: true });
  if (!manifestsDirExisted) rmSync(layout.manifestsDir, { recursive: true, force: true });
  if (!kubeletDirExisted) rmSync(layout.kubeletDir, { recursive: true, force: true });
  rmSync(layout.logFile(KUBELET_SERVICE), { force: true });
}

/** kubeadm's control-plane join checks: the component ports free, no manifests, an empty etcd data directory. */
function controlPlaneChecks(o: ControlPlaneJoinOptions) {
  return [
    portOpen(o.bindPort), portOpen(o.controllerManagerPort), portOpen(o.schedulerPort), portOpen(o.etcdClientPort), portOpen(o.etcdPeerPort),
    ...CONTROL_PLANE_COMPONENTS.map((c) => fileAvailable(manifestPath(o.layout, c))), fileAvailable(etcdManifestPath(o.layout)),
    dirAvailable(o.layout.etcdDataDir),
  ];
}

/** A failed control-plane join: the certificates it made, its manifests and its etcd data. */
function cleanControlPlaneState(layout: NodeLayout, certDirExisted: boolean): void {
  if (!certDirExisted) rmSync(layout.certDir, { recursive: true, force: true });
  for (const c of CONTROL_PLANE_COMPONENTS) rmSync(manifestPath(layout, c), { force: true });
  rmSync(etcdManifestPath(layout), { force: true });
  rmSync(layout.etcdDataDir, { recursive: true, force: true });
}
