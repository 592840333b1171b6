/**
 * The Secret a bootstrap token is stored as (kubeadm's BootstrapTokenToSecret
 * and BootstrapTokenFromSecret, cluster-bootstrap's util/secrets): type
 * bootstrap.kubernetes.io/token in kube-system, named bootstrap-token-<id>,
 * with token-id, token-secret, expiration (RFC 3339), usage-bootstrap-<usage>
 * = "true", auth-extra-groups (comma-separated) and description as data.
 */
import type { Secret } from 'kubernetes-types/core/v1.js';
import {
  bootstrapDefaultGroup, bootstrapTokenSecretPrefix, descriptionKey, expirationKey, extraGroupsKey,
  secretTypeBootstrapToken, tokenIDKey, tokenSecretKey, tokenSecretNamespace, usagePrefix, usageSigningKey,
} from './constants.js';
import { bootstrapTokenSecretName, goQuote, newBootstrapTokenString, parseSecretName, type BootstrapTokenString } from './token.js';
import { validateBootstrapGroupName } from './validation.js';

export interface BootstrapToken {
  token: BootstrapTokenString;
  description?: string;
  /** Absolute expiry; wins over ttlMs. */
  expires?: Date;
  /** Time to live from creation; 0 or absent: never expires. */
  ttlMs?: number;
  usages: string[];
  groups: string[];
}

const encode = (s: string) => Buffer.from(s, 'utf8').toString('base64');

/** Go's time.RFC3339 of a UTC instant, to the second. */
export const formatRFC3339 = (d: Date): string => d.toISOString().replace(/\.\d{3}Z$/, 'Z');

/** BootstrapTokenToSecret: the Secret to store; the expiration is `now + ttl` unless `expires` is set. */
export function bootstrapTokenToSecret(bt: BootstrapToken, now: Date): Secret {
  const data: Record<string, string> = { [tokenIDKey]: bt.token.id, [tokenSecretKey]: bt.token.secret };
  if (bt.description) data[descriptionKey] = bt.description;
  if (bt.expires) data[expirationKey] = formatRFC3339(bt.expires);
  else if (bt.ttlMs && bt.ttlMs > 0) data[expirationKey] = formatRFC3339(new Date(now.getTime() + bt.ttlMs));
  for (const usage of bt.usages) data[usagePrefix + usage] = 'true';
  if (bt.groups.length) data[extraGroupsKey] = bt.groups.join(',');
  return {
    apiVersion: 'v1', kind: 'Secret',
    metadata: { name: bootstrapTokenSecretName(bt.token.id), namespace: tokenSecretNamespace },
    type: secretTypeBootstrapToken,
    data: Object.fromEntries(Object.entries(data).map(([k, v]) => [k, encode(v)])),
  };
}

/** GetData: the decoded value of a data key, "" when absent. */
export function secretData(secret: Secret, key: string): string {
  const v = secret.data?.[key];
  return v === undefined ? '' : Buffer.from(v, 'base64').toString('utf8');
}

/** Go's time.Parse(time.RFC3339): a full date-time with a zone; undefined when it does not parse. */
export function parseRFC3339(s: string): Date | undefined {
  if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/.test(s)) return undefined;
  const ms = Date.parse(s);
  return Number.isNaN(ms) ? undefined : new Date(ms);
}

/**
 * GetExpiration: how long until the token expires. No expiration: never
 * (remainingMs undefined, not expired); one that does not parse counts as
 * expired, so a malformed Secret authenticates nobody and is cleaned up.
 */
export function tokenExpiration(secret: Secret, now: Date): { expired: boolean; remainingMs?: number } {
  const text = secretData(secret, expirationKey);
  if (!text) return { expired: false };
  const at = parseRFC3339(text);
  if (!at) return { expired: true };
  const remainingMs = at.getTime() - now.getTime();
  return remainingMs <= 0 ? { expired: true } : { expired: false, remainingMs };
}

/** GetGroups: system:bootstrappers plus the extra groups, deduplicated and sorted; an invalid group name is an error. */
export function tokenGroups(secret: Secret): { groups: string[] } | { error: string } {
  const groups = new Set([bootstrapDefaultGroup]);
  const extra = secretData(secret, extraGroupsKey);
  if (extra) {
    for (const g of extra.split(',')) {
      const err = validateBootstrapGroupName(g);
      if (err) return { error: err };
      groups.add(g);
    }
  }
  return { groups: [...groups].sort() };
}

/** BootstrapTokenFromSecret: the token a Secret describes, or kubeadm's error for a malformed one. */
export function bootstrapTokenFromSecret(secret: Secret): BootstrapToken {
  const name = secret.metadata?.name ?? '';
  const id = secretData(secret, tokenIDKey);
  if (!id) throw new Error(`bootstrap Token Secret has no token-id data: ${name}`);
  if (name !== bootstrapTokenSecretName(id)) {
    throw new Error(`bootstrap token name is not of the form '${bootstrapTokenSecretPrefix}(token-id)'. Actual: ${goQuote(name)}. Expected: ${goQuote(bootstrapTokenSecretName(id))}`);
  }
  const tokenSecret = secretData(secret, tokenSecretKey);
  if (!tokenSecret) throw new Error(`bootstrap Token Secret has no token-secret data: ${name}`);
  let token: BootstrapTokenString;
  try {
    token = newBootstrapTokenString(`${id}.${tokenSecret}`);
  } catch (e) {
    throw new Error(`bootstrap Token Secret is invalid and couldn't be parsed: ${(e as Error).message}`);
  }
  const bt: BootstrapToken = { token, usages: [], groups: [] };
  const description = secretData(secret, descriptionKey);
  if (description) bt.description = description;
  const expiration = secretData(secret, expirationKey);
  if (expiration) {
    const at = parseRFC3339(expiration);
    // Go adds time.Parse's own detail after this, which names the layout element that failed.
    if (!at) throw new Error(`can't parse expiration time of bootstrap token ${goQuote(name)}: parsing time ${goQuote(expiration)} as "2006-01-02T15:04:05Z07:00"`);
    bt.expires = at;
  }
  for (const key of Object.keys(secret.data ?? {})) {
    if (key.startsWith(usagePrefix) && secretData(secret, key) === 'true') bt.usages.push(key.slice(usagePrefix.length));
  }
  bt.usages.sort();
  const groups = secretData(secret, extraGroupsKey);
  if (groups) bt.groups = groups.split(',');
  return bt;
}

/**
 * validateSecretForSigning (the bootstrap signer's filter): a well-named,
 * unexpired token Secret with usage-bootstrap-signing=true gives its id and
 * secret; anything else signs nothing.
 */
export function signingToken(secret: Secret, now: Date): BootstrapTokenString | undefined {
  if (secret.type !== secretTypeBootstrapToken) return undefined;
  const nameID = parseSecretName(secret.metadata?.name ?? '');
  const id = secretData(secret, tokenIDKey);
  if (!nameID || !id || nameID !== id) return undefined;
  const tokenSecret = secretData(secret, tokenSecretKey);
  if (!tokenSecret || tokenExpiration(secret, now).expired) return undefined;
  if (secretData(secret, usageSigningKey) !== 'true') return undefined;
  return { id, secret: tokenSecret };
}
