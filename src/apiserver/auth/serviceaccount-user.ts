/**
 * Service-account user names and groups (apiserver authentication/serviceaccount/util.go):
 * `system:serviceaccount:<namespace>:<name>`, groups system:serviceaccounts and
 * system:serviceaccounts:<namespace>.
 */
import { isDNS1123Label, isDNS1123Subdomain } from '../../api/names.js';

const USERNAME_PREFIX = 'system:serviceaccount:';

export const serviceAccountUsername = (namespace: string, name: string) => `${USERNAME_PREFIX}${namespace}:${name}`;

export const serviceAccountGroups = (namespace: string) => ['system:serviceaccounts', `system:serviceaccounts:${namespace}`];

/** SplitUsername: the namespace and name of a service account's user name, undefined for any other name. */
export function splitServiceAccountUsername(username: string): { namespace: string; name: string } | undefined {
  if (!username.startsWith(USERNAME_PREFIX)) return undefined;
  const parts = username.slice(USERNAME_PREFIX.length).split(':');
  if (parts.length !== 2) return undefined;
  const [namespace, name] = parts as [string, string];
  // ValidateNamespaceName is a DNS-1123 label, ValidateServiceAccountName a subdomain.
  if (isDNS1123Label(namespace).length || isDNS1123Subdomain(name).length) return undefined;
  return { namespace, name };
}
