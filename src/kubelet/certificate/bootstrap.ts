/**
 * The kubelet's TLS bootstrap (upstream pkg/kubelet/certificate/bootstrap):
 * when --kubeconfig is missing, unreadable, or its client certificate has
 * expired, the kubelet authenticates with --bootstrap-kubeconfig (a bootstrap
 * token), asks for a client certificate through a CSR, stores the issued
 * pair under --cert-dir and writes --kubeconfig pointing at it; from then on
 * it runs as system:node:<name>.
 */
import { existsSync } from 'node:fs';
import { Clientset, loadKubeconfig, type ClientConfig } from '../../client/index.js';
import { certificateInfo, generateKeyPair, pemBlocks } from '../../pki/index.js';
import type { Logger } from '../../util/log.js';
import { ClientCertificateStore, writeNodeKubeconfig } from './store.js';
import { requestNodeCertificate } from './request.js';
import { componentUserAgent } from '../../util/user-agent.js';

export interface BootstrapOptions {
  kubeconfigPath: string;
  bootstrapKubeconfigPath: string;
  certDir: string;
  nodeName: string;
  logger: Logger;
  /** How long to wait for the request to be approved and signed (upstream 1 h). */
  timeoutMs?: number;
}

/** isClientConfigStillValid: readable, and no client certificate in it has expired. */
export function kubeconfigStillValid(path: string, now = Date.now()): { ok: true; config: ClientConfig } | { ok: false; reason: string } {
  if (!existsSync(path)) return { ok: false, reason: `${path} does not exist` };
  let config: ClientConfig;
  try { config = loadKubeconfig(path); } catch (e) { return { ok: false, reason: `unable to read existing bootstrap client config from ${path}: ${(e as Error).message}` }; }
  if (config.certPem === undefined) return { ok: true, config };
  try {
    const certs = pemBlocks(config.certPem);
    if (!certs.length) return { ok: false, reason: `unable to load TLS certificates from existing bootstrap client config read from ${path}` };
    if (certs.some((c) => certificateInfo(c).notAfter.getTime() < now)) return { ok: false, reason: `part of the existing bootstrap client certificate in ${path} is expired` };
  } catch (e) {
    return { ok: false, reason: `unable to load TLS certificates from existing bootstrap client config read from ${path}: ${(e as Error).message}` };
  }
  return { ok: true, config };
}

/** The node's client configuration: --kubeconfig when still good, else a new certificate through the bootstrap kubeconfig. */
export async function loadOrBootstrapClientConfig(opts: BootstrapOptions): Promise<ClientConfig> {
  const valid = kubeconfigStillValid(opts.kubeconfigPath);
  if (valid.ok) return valid.config;
  opts.logger.info('Using bootstrap kubeconfig to generate TLS client cert, key and kubeconfig file', { reason: valid.reason, bootstrapKubeconfig: opts.bootstrapKubeconfigPath });
  const bootstrap = loadKubeconfig(opts.bootstrapKubeconfigPath);
  const store = new ClientCertificateStore(opts.certDir);
  const keyPem = store.pendingKey(() => generateKeyPair().keyPem);
  const clients = new Clientset(bootstrap, { userAgent: componentUserAgent('kubelet', `${opts.nodeName}/bootstrap`) });
  let certPem: string;
  try {
    certPem = await requestNodeCertificate({
      csrs: clients.resource('certificatesigningrequests'), nodeName: opts.nodeName, keyPem, digestName: true, timeoutMs: opts.timeoutMs ?? 3600_000, logger: opts.logger,
    });
  } finally {
    clients.close();
  }
  const currentPath = store.update(certPem, keyPem);
  store.clearPendingKey();
  writeNodeKubeconfig(opts.kubeconfigPath, bootstrap, currentPath);
  opts.logger.info('bootstrap certificate issued', { node: opts.nodeName, kubeconfig: opts.kubeconfigPath, cert: currentPath });
  return loadKubeconfig(opts.kubeconfigPath);
}
