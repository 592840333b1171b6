/**
 * SubjectAccessReview, SelfSubjectAccessReview and LocalSubjectAccessReview
 * (pkg/registry/authorization/*subjectaccessreview): ask the server's
 * authorizer about a user and answer with the review itself, its status set.
 * - SubjectAccessReview: the user of spec (user, groups, uid, extra); one of
 *   user or groups is required; metadata must be empty.
 * - LocalSubjectAccessReview: the same, namespaced: metadata may carry only the
 *   namespace, spec.resourceAttributes.namespace must match it, and
 *   nonResourceAttributes are refused.
 * - SelfSubjectAccessReview: the requesting user.
 * Exactly one of resourceAttributes and nonResourceAttributes; an empty
 * resource version means every version ("*").
 */
import type {
  NonResourceAttributes, SubjectAccessReviewSpec, SubjectAccessReviewStatus,
} from 'kubernetes-types/authorization/v1.js';
import { GoValue, invalid, type FieldError } from '../../api/field-errors.js';
import { badRequest, invalidObject } from '../../api/status.js';
import type { UserInfo } from '../auth/types.js';
import type { AuthorizationAttributes, Authorizer } from '../authz/types.js';
import { metadataErrors } from './review-meta.js';

export type AccessReviewKind = 'SubjectAccessReview' | 'SelfSubjectAccessReview' | 'LocalSubjectAccessReview';

export interface AccessReview {
  metadata?: Record<string, unknown>;
  spec?: SubjectAccessReviewSpec;
  status?: SubjectAccessReviewStatus;
}

function specErrors(spec: SubjectAccessReviewSpec, self: boolean): FieldError[] {
  const errs: FieldError[] = [];
  if (spec.resourceAttributes && spec.nonResourceAttributes) {
    errs.push(invalid('spec.nonResourceAttributes', goNonResource(spec.nonResourceAttributes), 'cannot be specified in combination with resourceAttributes'));
  }
  if (!spec.resourceAttributes && !spec.nonResourceAttributes) {
    errs.push(invalid('spec.resourceAttributes', 'null', 'exactly one of nonResourceAttributes or resourceAttributes must be specified'));
  }
  if (!self && !spec.user && !spec.groups?.length) errs.push(invalid('spec.user', spec.user ?? '', 'at least one of user or group must be specified'));
  return errs;
}

/** Go's %#v of the internal NonResourceAttributes, as field errors show it. */
const goNonResource = (v: NonResourceAttributes) =>
  new GoValue(`authorization.NonResourceAttributes{Path:${JSON.stringify(v.path ?? '')}, Verb:${JSON.stringify(v.verb ?? '')}}`);

/** ValidateSubjectAccessReview / ValidateSelfSubjectAccessReview / ValidateLocalSubjectAccessReview. */
export function validateAccessReview(kind: AccessReviewKind, review: AccessReview): FieldError[] {
  const spec = review.spec ?? {};
  const errs = specErrors(spec, kind === 'SelfSubjectAccessReview');
  if (kind !== 'LocalSubjectAccessReview') return [...errs, ...metadataErrors(review.metadata, 'must be empty')];
  const namespace = String(review.metadata?.namespace ?? '');
  errs.push(...metadataErrors({ ...review.metadata, namespace: undefined }, 'must be empty except for namespace', review.metadata));
  if (spec.resourceAttributes && (spec.resourceAttributes.namespace ?? '') !== namespace) {
    errs.push(invalid('spec.resourceAttributes.namespace', spec.resourceAttributes.namespace ?? '', 'must match metadata.namespace'));
  }
  if (spec.nonResourceAttributes) errs.push(invalid('spec.nonResourceAttributes', goNonResource(spec.nonResourceAttributes), 'disallowed on this kind of request'));
  return errs;
}

/** authorizationutil.ResourceAttributesFrom / NonResourceAttributesFrom. */
export function attributesFromSpec(user: UserInfo, spec: SubjectAccessReviewSpec): AuthorizationAttributes {
  const r = spec.resourceAttributes;
  if (r) {
    return {
      user, verb: r.verb ?? '', isResourceRequest: true, path: '', apiGroup: r.group ?? '', apiVersion: r.version || '*',
      namespace: r.namespace ?? '', resource: r.resource ?? '', subresource: r.subresource ?? '', name: r.name ?? '',
    };
  }
  const n = spec.nonResourceAttributes ?? {};
  return { user, verb: n.verb ?? '', isResourceRequest: false, path: n.path ?? '', apiGroup: '', apiVersion: '', namespace: '', resource: '', subresource: '', name: '' };
}

/** The user a SubjectAccessReview asks about (authorizationutil.AuthorizationAttributesFrom). */
export const userOfSpec = (spec: SubjectAccessReviewSpec): UserInfo =>
  ({ name: spec.user ?? '', uid: spec.uid, groups: spec.groups ?? [], extra: spec.extra });

/**
 * Answers one review: validates it (422 `<Kind>.authorization.k8s.io "" is invalid`),
 * checks a LocalSubjectAccessReview's namespace against the request's, asks
 * the authorizer (absent: AlwaysAllow) and returns the review with its status.
 */
export async function reviewAccess<T extends AccessReview>(kind: AccessReviewKind, review: T, ctx: { requestor: UserInfo; namespace?: string; authorize?: Authorizer }): Promise<T & Required<Pick<AccessReview, 'metadata' | 'status'>>> {
  const errs = validateAccessReview(kind, review);
  if (errs.length) throw invalidObject(kind, 'authorization.k8s.io', '', errs);
  if (kind === 'LocalSubjectAccessReview') {
    if (!ctx.namespace) throw badRequest(`namespace is required on this type: ${ctx.namespace ?? ''}`);
    if (ctx.namespace !== review.metadata?.namespace) throw badRequest(`spec.resourceAttributes.namespace must match namespace: ${ctx.namespace}`);
  }
  const spec = review.spec!;
  const attrs = attributesFromSpec(kind === 'SelfSubjectAccessReview' ? ctx.requestor : userOfSpec(spec), spec);
  const d = ctx.authorize ? await ctx.authorize(attrs) : { decision: 'allow', reason: '' };
  const status: SubjectAccessReviewStatus = { allowed: d.decision === 'allow' };
  if (d.decision === 'deny') status.denied = true;
  if (d.reason) status.reason = d.reason;
  // Go's ObjectMeta always has a creationTimestamp, null when zero.
  return { ...review, metadata: { creationTimestamp: null, ...review.metadata }, status };
}
