/** kubeadm's ValidateDiscoveryBootstrapToken: what join checks before any discovery. */
import { invalid, required, type FieldError } from '../../api/field-errors.js';
import { isValidBootstrapToken } from '../../api/bootstraptoken/index.js';

export function validateDiscoveryBootstrapToken(d: { apiServerEndpoint: string; token: string; caCertHashes: string[]; unsafeSkipCAVerification?: boolean },
  path = 'discovery.bootstrapToken'): FieldError[] {
  const errs: FieldError[] = [];
  if (!d.apiServerEndpoint) errs.push(required(path, 'APIServerEndpoint is not set'));
  if (d.caCertHashes.length === 0 && !d.unsafeSkipCAVerification) {
    errs.push(invalid(path, '', 'using token-based discovery without caCertHashes can be unsafe. Set unsafeSkipCAVerification as true in your kubeadm config file or pass --discovery-token-unsafe-skip-ca-verification flag to continue'));
  }
  if (!isValidBootstrapToken(d.token)) errs.push(invalid(`${path}.token`, d.token, 'the bootstrap token is invalid'));
  return errs;
}
