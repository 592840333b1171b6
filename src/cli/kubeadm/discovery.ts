/**
 * Token discovery for join: the bootstrap-token work's discovery
 * (src/kubeadm/discovery) reads cluster-info anonymously, verifies its JWS
 * with the token and pins its CA to --discovery-token-ca-cert-hash; join
 * wraps its errors with kubeadm's "couldn't validate the identity of the API
 * Server".
 */
import { fieldErrorMessage } from '../../api/field-errors.js';
import { retrieveValidatedConfigInfo, validateDiscoveryBootstrapToken } from '../../kubeadm/discovery/index.js';

export interface DiscoveryOptions {
  endpoint: string;
  token: string;
  caCertHashes: string[];
  unsafeSkipCAVerification: boolean;
  timeoutMs: number;
  log?: (line: string) => void;
}

export interface ClusterInfo { server: string; caCertPem: string }

export async function discoverClusterInfo(o: DiscoveryOptions): Promise<ClusterInfo> {
  const invalid = validateDiscoveryBootstrapToken({ apiServerEndpoint: o.endpoint, token: o.token, caCertHashes: o.caCertHashes, unsafeSkipCAVerification: o.unsafeSkipCAVerification });
  if (invalid.length > 0) throw new Error(invalid.map(fieldErrorMessage).join(', '));
  try {
    // A token the cluster does not know never gets a signature: a short wait, not kubeadm's 5 minutes.
    const info = await retrieveValidatedConfigInfo({
      apiServerEndpoint: o.endpoint, token: o.token, caCertHashes: o.caCertHashes, unsafeSkipCAVerification: o.unsafeSkipCAVerification,
      timeoutMs: Math.min(o.timeoutMs, 20_000), intervalMs: 2_000, log: o.log,
    });
    return { server: info.server, caCertPem: info.caPem };
  } catch (e) {
    throw new Error(`couldn't validate the identity of the API Server: ${(e as Error).message}`);
  }
}
