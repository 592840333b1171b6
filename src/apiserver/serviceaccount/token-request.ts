/**
 * POST serviceaccounts/<name>/token (authentication.k8s.io/v1 TokenRequest),
 * as upstream's TokenREST.Create (pkg/registry/core/serviceaccount/storage/token.go):
 *  1. metadata.name/namespace, when given, must match the URL;
 *  2. the service account must exist; audiences default to the API
 *     server's (--api-audiences, by default the issuer); expirationSeconds
 *     defaults to 3600 and must lie in [10 minutes, 2^32 s];
 *  3. boundObjectRef: a Pod (run by this service account; its node is
 *     embedded too, by name only when the Node is gone), a Secret or a Node,
 *     which must exist and, when the reference has a uid, have that uid;
 *  4. a pod-bound token asking for exactly 3607 s with the API server's
 *     audiences (the kubelet's default) lives a year but carries warnafter;
 *  5. status.expirationTimestamp is now + the requested seconds.
 */
import type { TokenRequest } from 'kubernetes-types/authentication/v1.js';
import { badRequest, conflict, invalidObject } from '../../api/status.js';
import { invalid, type FieldError } from '../../api/field-errors.js';
import { expirationExtensionSeconds, tokenClaims, warnOnlyBoundTokenExpirationSeconds } from './claims.js';
import { signJWT, type SigningKey } from '../../api/serviceaccount-jwt.js';

export type BoundResource = 'serviceaccounts' | 'pods' | 'secrets' | 'nodes';
/** Reads an object as the registry does: a missing one throws upstream's 404 Status. */
export type ObjectGetter = (resource: BoundResource, namespace: string | undefined, name: string) => Promise<any>;

export interface TokenIssuer {
  /** --service-account-issuer. */
  issuer: string;
  /** --api-audiences (default: the issuer). */
  audiences: string[];
  key: SigningKey;
  /** --service-account-extend-token-expiration (default true). */
  extendExpiration: boolean;
}

export const defaultTokenExpirationSeconds = 3600;
const minTokenAgeSeconds = 10 * 60;
const maxTokenAgeSeconds = 2 ** 32;

export function validateTokenRequest(tr: TokenRequest): FieldError[] {
  const seconds = tr.spec.expirationSeconds ?? defaultTokenExpirationSeconds;
  const errs: FieldError[] = [];
  if (seconds < minTokenAgeSeconds) errs.push(invalid('spec.expirationSeconds', seconds, 'may not specify a duration less than 10 minutes'));
  if (seconds > maxTokenAgeSeconds) errs.push(invalid('spec.expirationSeconds', seconds, 'may not specify a duration larger than 2^32 seconds'));
  return errs;
}

interface Bound { pod?: any; secret?: any; node?: any }

async function boundObjects(get: ObjectGetter, namespace: string, saName: string, tr: TokenRequest): Promise<Bound> {
  const ref = tr.spec.boundObjectRef;
  if (!ref) return {};
  const group = (ref.apiVersion ?? '').includes('/') ? ref.apiVersion!.split('/')[0] : '';
  const version = (ref.apiVersion ?? '').split('/').pop() ?? '';
  let bound: Bound;
  let uid: string;
  if (group === '' && ref.kind === 'Pod') {
    const pod = await get('pods', namespace, ref.name ?? '');
    if (saName !== pod.spec?.serviceAccountName) {
      throw badRequest(`cannot bind token for serviceaccount "${saName}" to pod running with different serviceaccount name.`);
    }
    bound = { pod, node: pod.spec?.nodeName ? await podNode(get, pod.spec.nodeName) : undefined };
    uid = pod.metadata.uid;
  } else if (group === '' && ref.kind === 'Node') {
    bound = { node: await get('nodes', undefined, ref.name ?? '') };
    uid = bound.node.metadata.uid;
  } else if (group === '' && ref.kind === 'Secret') {
    bound = { secret: await get('secrets', namespace, ref.name ?? '') };
    uid = bound.secret.metadata.uid;
  } else {
    throw badRequest(`cannot bind token to object of type ${group}/${version}, Kind=${ref.kind ?? ''}`);
  }
  if (ref.uid && ref.uid !== uid) {
    throw conflict({ group, resource: ref.kind! }, ref.name ?? '',
      `the UID in the bound object reference (${ref.uid}) does not match the UID in record. The object might have been deleted and then recreated`);
  }
  return bound;
}

/** A pod's node; one that is gone is embedded by name alone. */
async function podNode(get: ObjectGetter, name: string): Promise<any> {
  try {
    return await get('nodes', undefined, name);
  } catch (e) {
    if ((e as { code?: number }).code === 404) return { metadata: { name } };
    throw e;
  }
}

export interface TokenRequestCall { namespace: string; name: string; body: TokenRequest; now: Date }

export async function createToken(issuer: TokenIssuer, get: ObjectGetter, call: TokenRequestCall): Promise<TokenRequest> {
  const { namespace, name, now } = call;
  const req: TokenRequest = { ...call.body, apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', spec: { ...(call.body.spec ?? {}) } };
  const meta = req.metadata ?? {};
  if (meta.name && meta.name !== name) throw invalidObject('TokenRequest', 'authentication.k8s.io', name, [invalid('metadata.name', meta.name, 'must match the service account name if specified')]);
  if (meta.namespace && meta.namespace !== namespace) throw invalidObject('TokenRequest', 'authentication.k8s.io', name, [invalid('metadata.namespace', meta.namespace, 'must match the service account namespace if specified')]);
  const sa = await get('serviceaccounts', namespace, name);
  if (!req.spec.audiences?.length) req.spec.audiences = issuer.audiences;
  req.spec.expirationSeconds ??= defaultTokenExpirationSeconds;
  req.metadata = { ...meta, name: meta.name || name, namespace: meta.namespace || namespace, creationTimestamp: now.toISOString().replace(/\.\d{3}Z$/, 'Z') };
  const errs = validateTokenRequest(req);
  if (errs.length) throw invalidObject('TokenRequest', 'authentication.k8s.io', '', errs);
  const bound = await boundObjects(get, namespace, name, req);
  const requested = req.spec.expirationSeconds;
  const extend = issuer.extendExpiration && !!bound.pod && requested === warnOnlyBoundTokenExpirationSeconds
    && req.spec.audiences.every((a) => issuer.audiences.includes(a));
  const claims = tokenClaims({
    issuer: issuer.issuer, serviceAccount: sa, ...bound, audiences: req.spec.audiences, now,
    expirationSeconds: extend ? expirationExtensionSeconds : requested, warnAfterSeconds: extend ? requested : 0,
  });
  const expires = new Date(Math.floor(now.getTime() / 1000) * 1000 + requested * 1000);
  return { ...req, status: { token: signJWT(claims, issuer.key), expirationTimestamp: expires.toISOString().replace(/\.\d{3}Z$/, 'Z') } };
}
