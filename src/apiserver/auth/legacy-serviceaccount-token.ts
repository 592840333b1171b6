/**
 * The authenticator of Secret-based service-account tokens (upstream
 * pkg/serviceaccount/legacy.go Validate, v1.32), beside the bound tokens'
 * (serviceaccount-token.ts):
 *  1. a token whose `iss` is not `kubernetes/serviceaccount` is left to the
 *     other authenticators; its signature must verify with a service-account
 *     key;
 *  2. it must name its namespace, Secret and ServiceAccount (name and uid);
 *  3. the Secret must exist, not be deleting, and hold this very token: a
 *     token is revoked by deleting or changing its Secret;
 *  4. the ServiceAccount must exist, not be deleting, with the uid named;
 *  5. the user is the ServiceAccount's, as for a bound token.
 * These tokens do not expire and carry no audience. Upstream's
 * `kubernetes.io/legacy-token-last-used` label is not written (docs/known-gaps.md).
 * The Secret is read from the registry (a cache miss): only requests carrying such a token pay it.
 */
import { parseJWT, verifyJWT, type VerifyingKey } from '../../api/serviceaccount-jwt.js';
import { legacyClaimNames, legacyTokenIssuer } from '../../api/legacy-serviceaccount-token.js';
import type { ObjectGetter } from '../serviceaccount/token-request.js';
import type { TokenLookup } from './authenticator.js';
import { serviceAccountUser } from './serviceaccount-token.js';

export function legacyServiceAccountTokenAuthenticator(opts: { keys: VerifyingKey[]; get: ObjectGetter }): TokenLookup {
  return async (token) => {
    const jwt = parseJWT(token);
    if (!jwt || jwt.payload.iss !== legacyTokenIssuer || !verifyJWT(jwt, opts.keys)) return undefined; // 1
    const claim = (k: keyof typeof legacyClaimNames) => { const v = jwt.payload[legacyClaimNames[k]]; return typeof v === 'string' ? v : ''; };
    const namespace = claim('namespace');
    const secretName = claim('secretName');
    const sa = { name: claim('serviceAccountName'), uid: claim('serviceAccountUID') };
    if (!namespace || !secretName || !sa.name || !sa.uid) return undefined; // 2
    const secret = await current(opts.get, 'secrets', namespace, secretName);
    if (!secret || Buffer.from(secret.data?.token ?? '', 'base64').toString('utf8') !== token) return undefined; // 3
    const account = await current(opts.get, 'serviceaccounts', namespace, sa.name);
    if (!account || account.metadata?.uid !== sa.uid) return undefined; // 4
    return serviceAccountUser({ namespace, serviceaccount: sa }, ''); // 5
  };
}

interface Stored { metadata?: { uid?: string; deletionTimestamp?: string }; data?: Record<string, string> }

async function current(get: ObjectGetter, resource: 'secrets' | 'serviceaccounts', namespace: string, name: string): Promise<Stored | undefined> {
  try {
    const obj = await get(resource, namespace, name) as Stored;
    return obj.metadata?.deletionTimestamp ? undefined : obj;
  } catch {
    return undefined;
  }
}
