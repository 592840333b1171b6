/**
 * What the tokens controller writes for one Secret of type
 * kubernetes.io/service-account-token (upstream
 * pkg/controller/serviceaccount/tokens_controller.go syncSecret, v1.32):
 *  1. its ServiceAccount (the `kubernetes.io/service-account.name`
 *     annotation; when the Secret also names a uid, that uid) is gone: the
 *     Secret is deleted;
 *  2. it lacks its token, `namespace` or the cluster CA (`ca.crt`, when one
 *     is configured), or the uid annotation: all are filled in at once, the
 *     token signed for this Secret and ServiceAccount;
 *  3. otherwise nothing is written (a Secret with a token keeps it).
 */
import type { Secret, ServiceAccount } from 'kubernetes-types/core/v1.js';
import { serviceAccountNameAnnotation, serviceAccountUIDAnnotation } from '../../api/legacy-serviceaccount-token.js';

export type TokenSecretAction = { delete: true } | { update: Secret } | undefined;

const b64 = (s: string) => Buffer.from(s, 'utf8').toString('base64');

/** The ServiceAccount `secret` belongs to among `sa` (undefined when it is not that one). */
export function ownerMatches(secret: Secret, sa: ServiceAccount | undefined): sa is ServiceAccount {
  const uid = secret.metadata?.annotations?.[serviceAccountUIDAnnotation];
  return !!sa && sa.metadata?.name === secret.metadata?.annotations?.[serviceAccountNameAnnotation] && (!uid || uid === sa.metadata?.uid);
}

export function planTokenSecret(secret: Secret, sa: ServiceAccount | undefined, rootCA: string, sign: (sa: ServiceAccount, secret: Secret) => string): TokenSecretAction {
  if (!ownerMatches(secret, sa)) return { delete: true }; // 1
  const data = secret.data ?? {};
  const needsCA = !!rootCA && data['ca.crt'] !== b64(rootCA);
  const needsNamespace = !data.namespace;
  const needsToken = !data.token;
  const needsUID = secret.metadata?.annotations?.[serviceAccountUIDAnnotation] !== sa.metadata?.uid;
  if (!needsCA && !needsNamespace && !needsToken && !needsUID) return undefined; // 3
  const next: Secret = structuredClone(secret); // 2
  next.data = { ...data };
  if (needsCA) next.data['ca.crt'] = b64(rootCA);
  if (needsNamespace) next.data.namespace = b64(sa.metadata?.namespace ?? '');
  if (needsToken) next.data.token = b64(sign(sa, secret));
  next.metadata = { ...next.metadata, annotations: { ...next.metadata?.annotations, [serviceAccountNameAnnotation]: sa.metadata!.name!, [serviceAccountUIDAnnotation]: sa.metadata!.uid! } };
  return { update: next };
}
