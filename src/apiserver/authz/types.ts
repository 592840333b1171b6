/**
 * Authorization as k8s.io/apiserver's authorizer package has it: a request's
 * attributes in, a decision out. An authorizer that has no rule for a request
 * says NoOpinion so the next one in the chain (Node, then RBAC) may decide;
 * the chain denies when nobody allowed.
 */
import type { UserInfo } from '../auth/types.js';
import type { FieldSelector } from '../../api/fields.js';

export interface AuthorizationAttributes {
  user: UserInfo;
  /** get, list, watch, create, update, patch, delete, deletecollection, and for non-resource paths the lower-cased HTTP method; also impersonate, bind, escalate, approve, sign, use. */
  verb: string;
  isResourceRequest: boolean;
  /** Non-resource requests: the URL path (/healthz, /api, /openapi/v3 ...). */
  path: string;
  /** Resource requests: '' for the core group. */
  apiGroup: string;
  apiVersion: string;
  namespace: string;
  resource: string;
  subresource: string;
  name: string;
  /** list, watch and deletecollection: the parsed fieldSelector (absent when none or unparsable), as upstream's GetFieldSelector. */
  fieldSelector?: FieldSelector;
}

export type DecisionKind = 'allow' | 'deny' | 'noOpinion';

export interface Decision {
  decision: DecisionKind;
  /** Why; upstream appends it to the 403 message and returns it in SubjectAccessReview status. */
  reason: string;
}

export type Authorizer = (attrs: AuthorizationAttributes) => Decision | Promise<Decision>;

export const allow = (reason = ''): Decision => ({ decision: 'allow', reason });
export const deny = (reason = ''): Decision => ({ decision: 'deny', reason });
export const noOpinion = (reason = ''): Decision => ({ decision: 'noOpinion', reason });
