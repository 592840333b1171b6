/**
 * The bootstrap token authenticator (upstream's
 * plugin/pkg/auth/authenticator/token/bootstrap): a bearer token
 * `<id>.<secret>` is looked up as Secret kube-system/bootstrap-token-<id>
 * and authenticates as system:bootstrap:<id> in system:bootstrappers plus the
 * token's auth-extra-groups when the Secret
 *   1. exists and is not being deleted,
 *   2. has type bootstrap.kubernetes.io/token,
 *   3. holds the same token-secret (compared in constant time) and token-id,
 *   4. has not expired (an unparseable expiration counts as expired),
 *   5. says usage-bootstrap-authentication=true,
 *   6. names only valid extra groups.
 * Anything else is "not mine" (undefined), so the next authenticator may
 * try and the request ends 401 if none knows it. Secrets are read from a
 * cache kept by a watch on kube-system's token Secrets, as upstream reads a
 * lister: no storage read per request.
 */
import { timingSafeEqual } from 'node:crypto';
import type { Secret } from 'kubernetes-types/core/v1.js';
import {
  bootstrapTokenSecretName, bootstrapUserPrefix, parseBootstrapToken, secretData, secretTypeBootstrapToken, tokenExpiration,
  tokenGroups, tokenIDKey, tokenSecretKey, tokenSecretNamespace, usageAuthenticationKey,
} from '../../api/bootstraptoken/index.js';
import type { Clock } from '../../util/clock.js';
import type { Logger } from '../../util/log.js';
import type { TokenLookup } from './authenticator.js';
import type { UserInfo } from './types.js';

/** What the cache needs of the Secret store (the registry's Store has it). */
export interface SecretWatchSource {
  watch(namespace: string | undefined, opts: { resourceVersion?: string; fieldSelector?: string },
    send: (ev: { type: string; object: any }) => void, onEnd: (err?: Error) => void): Promise<{ close(): void }>;
}

export interface BootstrapTokenAuthenticator {
  authenticate: TokenLookup;
  /** Resolves once the cache holds the current Secrets. */
  start(): Promise<void>;
  close(): void;
}

/** AuthenticateToken over one Secret; undefined when the token is not this Secret's (or not usable). */
export function authenticateBootstrapToken(token: string, secret: Secret | undefined, now: Date): UserInfo | undefined {
  const parsed = parseBootstrapToken(token);
  if (!parsed || !secret || secret.metadata?.deletionTimestamp) return undefined;
  if (secret.type !== secretTypeBootstrapToken || !secret.data) return undefined;
  const stored = Buffer.from(secretData(secret, tokenSecretKey));
  const given = Buffer.from(parsed.secret);
  if (stored.length !== given.length || !timingSafeEqual(stored, given)) return undefined;
  const id = secretData(secret, tokenIDKey);
  if (id !== parsed.id) return undefined;
  if (tokenExpiration(secret, now).expired) return undefined;
  if (secretData(secret, usageAuthenticationKey) !== 'true') return undefined;
  const groups = tokenGroups(secret);
  if ('error' in groups) return undefined;
  return { name: bootstrapUserPrefix + id, groups: groups.groups };
}

export function createBootstrapTokenAuthenticator(source: SecretWatchSource, opts: { clock: Clock; logger?: Logger }): BootstrapTokenAuthenticator {
  let cache = new Map<string, Secret>();
  let watch: { close(): void } | undefined;
  let closed = false;
  let retry: NodeJS.Timeout | undefined;
  let backoffMs = 100;

  // A (re)started watch from "0" first replays every token Secret; the fresh map replaces the old one
  // only once that replay is complete, so lookups never see a half-filled cache.
  const open = async (): Promise<void> => {
    const fresh = new Map<string, Secret>();
    const w = await source.watch(tokenSecretNamespace, { resourceVersion: '0', fieldSelector: `type=${secretTypeBootstrapToken}` }, (ev) => {
      const name = ev.object?.metadata?.name;
      if (typeof name !== 'string') return;
      if (ev.type === 'DELETED') fresh.delete(name);
      else if (ev.type === 'ADDED' || ev.type === 'MODIFIED') fresh.set(name, ev.object);
    }, (err) => {
      if (closed) return;
      opts.logger?.warn('bootstrap token watch ended; restarting', { err: err?.message });
      reopenLater();
    });
    if (closed) { w.close(); return; }
    watch = w;
    cache = fresh;
    backoffMs = 100;
  };
  const reopenLater = () => {
    retry = setTimeout(() => { open().catch(reopenLater); }, backoffMs);
    retry.unref();
    backoffMs = Math.min(backoffMs * 2, 5_000);
  };

  return {
    start: open,
    authenticate: (token) => {
      const parsed = parseBootstrapToken(token);
      if (!parsed) return undefined;
      return authenticateBootstrapToken(token, cache.get(bootstrapTokenSecretName(parsed.id)), opts.clock.now());
    },
    close: () => {
      closed = true;
      if (retry) clearTimeout(retry);
      watch?.close();
    },
  };
}
