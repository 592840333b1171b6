/**
 * authentication.k8s.io reviews (pkg/registry/authentication):
 * - SelfSubjectReview: who the server takes the requester for (after
 *   impersonation), what `kubectl auth whoami` prints.
 * - TokenReview: whether a bearer token authenticates, and as whom. The audiences
 *   asked for (spec.audiences, else the server's API audiences) are echoed
 *   for an authenticated token, as upstream does for authenticators that do
 *   not bind tokens to audiences. The spec is echoed back, token included.
 */
import type { SelfSubjectReview, TokenReview, UserInfo as UserInfoV1 } from 'kubernetes-types/authentication/v1.js';
import { badRequest } from '../../api/status.js';
import type { UserInfo } from '../auth/types.js';

/** user.Info as authentication/v1 UserInfo; empty fields left out (omitempty). */
export function userInfoV1(user: UserInfo): UserInfoV1 {
  const out: UserInfoV1 = {};
  if (user.name) out.username = user.name;
  if (user.uid) out.uid = user.uid;
  if (user.groups.length) out.groups = [...user.groups];
  if (user.extra && Object.keys(user.extra).length) out.extra = { ...user.extra };
  return out;
}

export function reviewSelf(review: SelfSubjectReview, requestor: UserInfo, now: Date): SelfSubjectReview {
  return {
    apiVersion: review.apiVersion, kind: review.kind,
    metadata: { creationTimestamp: now.toISOString().replace(/\.\d{3}Z$/, 'Z') },
    status: { userInfo: userInfoV1(requestor) },
  };
}

export type TokenAuthenticator = (token: string) => Promise<UserInfo | undefined>;

export async function reviewToken(review: TokenReview, ctx: { authenticateToken?: TokenAuthenticator; apiAudiences?: string[] }): Promise<TokenReview> {
  const token = review.spec?.token ?? '';
  if (!token) throw badRequest('token is required for TokenReview in authentication');
  const out: TokenReview = { ...review, metadata: { creationTimestamp: null as any, ...review.metadata }, status: { user: {} } };
  if (!ctx.authenticateToken) return out;
  const audiences = review.spec.audiences?.length ? review.spec.audiences : (ctx.apiAudiences ?? []);
  const user = await ctx.authenticateToken(token);
  if (!user) return out;
  out.status = { authenticated: true, user: userInfoV1(user) };
  if (audiences.length) out.status.audiences = [...audiences];
  return out;
}
