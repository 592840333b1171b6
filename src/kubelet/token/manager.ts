/**
 * The kubelet's service-account token cache (upstream
 * pkg/kubelet/token/token_manager.go):
 *  1. tokens are cached per service account, audiences, lifetime and bound
 *     object; a cached token is handed out until it needs a refresh:
 *     older than 24 h, or within 20 % of its life of expiring (both minus a
 *     jitter of up to 10 s), i.e. refreshed at about 80 % of its life;
 *  2. a failed request falls back to a cached token that has not expired;
 *  3. tokens of a pod are dropped when the pod goes (forgetPod), expired ones
 *     whenever a token is requested.
 */
import type { TokenRequest } from 'kubernetes-types/authentication/v1.js';

export type RequestToken = (namespace: string, serviceAccount: string, tr: TokenRequest) => Promise<TokenRequest>;

const maxTTLMs = 24 * 60 * 60 * 1000;
const maxJitterMs = 10_000;

export class ServiceAccountTokenManager {
  private readonly cache = new Map<string, TokenRequest>();
  /** Cache key → the uid of the pod the token was requested for. */
  private readonly podOf = new Map<string, string>();

  constructor(private readonly request: RequestToken, private readonly now: () => Date = () => new Date(), private readonly random: () => number = Math.random) {}

  async getServiceAccountToken(namespace: string, name: string, tr: TokenRequest): Promise<TokenRequest> {
    const key = cacheKey(namespace, name, tr);
    const cached = this.cache.get(key);
    if (cached && !this.requiresRefresh(cached)) return cached; // 1
    this.dropExpired(); // 3
    try {
      const fresh = await this.request(namespace, name, tr);
      this.cache.set(key, fresh);
      if (tr.spec.boundObjectRef?.uid) this.podOf.set(key, tr.spec.boundObjectRef.uid);
      return fresh;
    } catch (e) {
      if (cached && !this.expired(cached)) return cached; // 2
      throw e;
    }
  }

  /** Drops the tokens bound to a pod that is gone. */
  forgetPod(uid: string): void {
    for (const [k, pod] of this.podOf) if (pod === uid) this.forget(k);
  }

  requiresRefresh(tr: TokenRequest): boolean {
    const seconds = tr.spec.expirationSeconds;
    if (!seconds || !tr.status?.expirationTimestamp) return false;
    const now = this.now().getTime();
    const exp = Date.parse(tr.status.expirationTimestamp);
    const issued = exp - seconds * 1000;
    const jitter = Math.floor(this.random() * maxJitterMs / 1000) * 1000;
    if (now > issued + maxTTLMs - jitter) return true;
    return now > exp - Math.floor(seconds * 20 / 100) * 1000 - jitter;
  }

  private expired(tr: TokenRequest): boolean {
    return !!tr.status?.expirationTimestamp && this.now().getTime() > Date.parse(tr.status.expirationTimestamp);
  }

  private dropExpired(): void {
    for (const [k, tr] of this.cache) if (this.expired(tr)) this.forget(k);
  }

  private forget(key: string): void {
    this.cache.delete(key);
    this.podOf.delete(key);
  }
}

function cacheKey(namespace: string, name: string, tr: TokenRequest): string {
  const ref = tr.spec.boundObjectRef;
  return JSON.stringify([name, namespace, tr.spec.audiences ?? [], tr.spec.expirationSeconds ?? 0, ref?.kind ?? '', ref?.name ?? '', ref?.uid ?? '']);
}
