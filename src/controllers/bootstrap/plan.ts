/**
 * What the bootstrap signer writes (upstream's Signer.signConfigMap): the
 * cluster-info ConfigMap with exactly one `jws-kubeconfig-<id>` signature of
 * its `kubeconfig` per valid signing token, stale and foreign signatures
 * removed, everything else kept.
 */
import type { ConfigMap, Secret } from 'kubernetes-types/core/v1.js';
import { computeDetachedSignature, jwsSignatureKeyPrefix, kubeconfigKey, signingToken, tokenExpiration, type BootstrapTokenString } from '../../api/bootstraptoken/index.js';

/** The signing tokens among `secrets` (the first Secret wins a duplicate id, as upstream). */
export function signingTokens(secrets: Secret[], now: Date): BootstrapTokenString[] {
  const byID = new Map<string, BootstrapTokenString>();
  for (const s of secrets) {
    const t = signingToken(s, now);
    if (t && !byID.has(t.id)) byID.set(t.id, t);
  }
  return [...byID.values()];
}

/** The ConfigMap to write so its signatures match `tokens`; undefined when they already do (or there is no kubeconfig to sign). */
export function planSignedClusterInfo(cm: ConfigMap, tokens: BootstrapTokenString[]): ConfigMap | undefined {
  const content = cm.data?.[kubeconfigKey];
  if (content === undefined) return undefined;
  const data: Record<string, string> = {};
  const oldSigs = new Map<string, string>();
  for (const [k, v] of Object.entries(cm.data ?? {})) {
    if (k.startsWith(jwsSignatureKeyPrefix)) oldSigs.set(k, v);
    else data[k] = v;
  }
  let changed = false;
  for (const t of tokens) {
    const key = jwsSignatureKeyPrefix + t.id;
    const sig = computeDetachedSignature(content, t.id, t.secret);
    if (oldSigs.get(key) !== sig) changed = true;
    oldSigs.delete(key);
    data[key] = sig;
  }
  if (!changed && oldSigs.size === 0) return undefined;
  return { ...cm, data };
}

/** When the next signing token expires (ms from now), so its signature goes then even before the cleaner deletes it. */
export function nextExpiryMs(secrets: Secret[], now: Date): number | undefined {
  let next: number | undefined;
  for (const s of secrets) {
    if (!signingToken(s, now)) continue;
    const left = tokenExpiration(s, now).remainingMs;
    if (left !== undefined && (next === undefined || left < next)) next = left;
  }
  return next;
}
