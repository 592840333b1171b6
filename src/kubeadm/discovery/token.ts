/**
 * Token-based discovery for `join` (kubeadm's discovery/token): learn whom to
 * trust from a bootstrap token alone.
 *   1. Read cluster-info without credentials and without verifying TLS,
 *      retrying until it carries a signature for the token's id.
 *   2. Check that signature (JWS over the kubeconfig, keyed by the token's
 *      secret): only someone holding the token could have made it.
 *   3. Unless told to skip it, check that the CA in that kubeconfig is pinned
 *      by one of --discovery-token-ca-cert-hash.
 *   4. Read cluster-info again over TLS verified by that CA, and require the
 *      same kubeconfig.
 * Errors carry kubeadm's words; the caller prefixes "couldn't validate the
 * identity of the API Server: " as join does.
 */
import type { ConfigMap } from 'kubernetes-types/core/v1.js';
import {
  clusterInfoConfigMap, detachedTokenIsValid, jwsSignatureKeyPrefix, kubeconfigKey, newBootstrapTokenString, type BootstrapTokenString,
} from '../../api/bootstraptoken/index.js';
import { fetchClusterInfo } from './fetch.js';
import { clusterFromKubeconfig, type ClusterInfoCluster } from './kubeconfig.js';
import { checkAnyPinned, parsePins } from './pubkeypin.js';

export interface TokenDiscoveryOptions {
  /** HOST:PORT of the API server, as given to join. */
  apiServerEndpoint: string;
  token: string;
  /** --discovery-token-ca-cert-hash values (`sha256:<hex>`). */
  caCertHashes: string[];
  /** --discovery-token-unsafe-skip-ca-verification */
  unsafeSkipCAVerification?: boolean;
  /** How long to keep trying (kubeadm's discovery timeout: 5 minutes). */
  timeoutMs?: number;
  /** Between tries (kubeadm's DiscoveryRetryInterval: 5 s). */
  intervalMs?: number;
  log?: (line: string) => void;
}

export interface DiscoveredClusterInfo extends ClusterInfoCluster {
  /** The kubeconfig text cluster-info carries, as signed. */
  kubeconfig: string;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** getClusterInfo: polls until cluster-info has this token's signature; on time-out, the last error. */
async function getClusterInfo(opts: TokenDiscoveryOptions, token: BootstrapTokenString, caPem?: string): Promise<ConfigMap> {
  const deadline = Date.now() + (opts.timeoutMs ?? 300_000);
  const interval = Math.min(opts.intervalMs ?? 5_000, opts.timeoutMs ?? 300_000);
  let lastError: Error;
  for (;;) {
    opts.log?.(`[discovery] Waiting for the cluster-info ConfigMap to receive a JWS signature for token ID "${token.id}"`);
    try {
      const cm = await fetchClusterInfo(opts.apiServerEndpoint, { caPem });
      if (cm.data?.[jwsSignatureKeyPrefix + token.id] !== undefined) return cm;
      lastError = new Error(`could not find a JWS signature in the cluster-info ConfigMap for token ID "${token.id}"`);
    } catch (e) {
      lastError = new Error(`failed to request the cluster-info ConfigMap: ${(e as Error).message}`);
    }
    opts.log?.(`[discovery] Retrying due to error: ${lastError.message}`);
    if (Date.now() + interval > deadline) throw lastError;
    await sleep(interval);
  }
}

/** validateClusterInfoToken: the signed kubeconfig text, or why it cannot be trusted. */
export function validateClusterInfoToken(cm: ConfigMap, token: BootstrapTokenString): string {
  const kubeconfig = cm.data?.[kubeconfigKey];
  if (!kubeconfig) {
    throw new Error(`there is no ${kubeconfigKey} key in the ${clusterInfoConfigMap} ConfigMap. This API Server isn't set up for token bootstrapping, can't connect`);
  }
  const sig = cm.data?.[jwsSignatureKeyPrefix + token.id];
  if (!sig) {
    throw new Error(`token id "${token.id}" is invalid for this cluster or it has expired. Use "kubeadm token create" on the control-plane node to create a new valid token`);
  }
  if (!detachedTokenIsValid(sig, kubeconfig, token.id, token.secret)) {
    throw new Error('failed to verify JWS signature of received cluster info object, can\'t trust this API Server');
  }
  return kubeconfig;
}

/** RetrieveValidatedConfigInfo: the cluster to join, once it is trusted. */
export async function retrieveValidatedConfigInfo(opts: TokenDiscoveryOptions): Promise<DiscoveredClusterInfo> {
  let token: BootstrapTokenString;
  try { token = newBootstrapTokenString(opts.token); } catch (e) { throw new Error(`could not construct token string for token: ${opts.token}: ${(e as Error).message}`); }
  opts.log?.(`[discovery] Created cluster-info discovery client, requesting info from "${opts.apiServerEndpoint}"`);
  const insecure = await getClusterInfo(opts, token);
  let pins: Set<string>;
  try { pins = parsePins(opts.caCertHashes); } catch (e) { throw new Error(`invalid discovery token CA certificate hash: ${(e as Error).message}`); }
  const insecureKubeconfig = validateClusterInfoToken(insecure, token);
  const cluster = clusterFromKubeconfig(insecureKubeconfig);
  if (pins.size === 0) {
    // Only reachable with --discovery-token-unsafe-skip-ca-verification (join refuses no pins otherwise).
    return { ...cluster, kubeconfig: insecureKubeconfig };
  }
  try { checkAnyPinned(pins, cluster.caPem); } catch (e) { throw new Error(`cluster CA found in ${clusterInfoConfigMap} ConfigMap is invalid: ${(e as Error).message}`); }
  opts.log?.(`[discovery] Requesting info from "${opts.apiServerEndpoint}" again to validate TLS against the pinned public key`);
  const secure = await getClusterInfo(opts, token, cluster.caPem);
  const secureKubeconfig = secure.data?.[kubeconfigKey] ?? '';
  if (secureKubeconfig !== insecureKubeconfig) {
    throw new Error(`the second kubeconfig from the ${clusterInfoConfigMap} ConfigMap (using validated TLS) was different from the first`);
  }
  return { ...clusterFromKubeconfig(secureKubeconfig), kubeconfig: secureKubeconfig };
}
