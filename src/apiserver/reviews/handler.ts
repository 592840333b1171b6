/**
 * POST of a review (authorization.k8s.io and authentication.k8s.io): the
 * body decoded and checked as any create body (kind, strict fields,
 * CreateOptions), answered 201 with the review in the negotiated encoding.
 * Nothing is stored, so dryRun answers the same.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { apiVersionOf, type ResourceInfo } from '../../api/resources.js';
import { badRequest, methodNotAllowed, notAcceptable } from '../../api/status.js';
import { decodeObjectBodyWithSource, mediaType, readBody } from '../body.js';
import { checkFields } from '../field-validation.js';
import { checkBodyKind } from '../handlers/body-kind.js';
import { query } from '../handlers/context.js';
import { readWriteOptions } from '../handlers/write-options.js';
import { acceptWithoutTable, builtinMediaTypesNotAcceptable, negotiateMedia } from '../negotiate.js';
import type { RequestInfo } from '../request-info.js';
import { writeObjectAs } from '../respond.js';
import type { Authorizer } from '../authz/types.js';
import type { RulesResolver } from '../authz/rules.js';
import type { UserInfo } from '../auth/types.js';
import { reviewAccess, type AccessReviewKind } from './access-review.js';
import { reviewRules } from './rules-review.js';
import { reviewSelf, reviewToken, type TokenAuthenticator } from './identity-review.js';

export interface ReviewOptions {
  authorize?: Authorizer;
  /** What SelfSubjectRulesReview asks (the RBAC authorizer's rulesFor); absent: AlwaysAllow's rules without `authorize`, none otherwise. */
  rulesResolver?: RulesResolver;
  /** TokenReview's authenticator; absent, every TokenReview answers unauthenticated. */
  authenticateToken?: TokenAuthenticator;
  /** kube-apiserver --api-audiences: what a TokenReview without audiences asks for. */
  apiAudiences?: string[];
}

/** `user`: who asks (the request's authenticated, impersonated user). */
export interface ReviewRequest { req: IncomingMessage; res: ServerResponse; url: URL; info: RequestInfo; resource: ResourceInfo; user?: UserInfo }

/** Whether this resource is a review this package answers. */
export const isReview = (r: Pick<ResourceInfo, 'group' | 'plural'>) =>
  (r.group === 'authorization.k8s.io' || r.group === 'authentication.k8s.io') && r.plural.endsWith('reviews');

async function readReview(r: ReviewRequest): Promise<any> {
  const buf = await readBody(r.req);
  const type = mediaType(r.req);
  const apiVersion = apiVersionOf(r.resource);
  const { obj, raw } = decodeObjectBodyWithSource(buf, type, { apiVersion, kind: r.resource.kind });
  checkBodyKind(r.resource, apiVersion, obj);
  checkFields(r.resource, obj, query(r, 'fieldValidation'), r.res, raw);
  obj.apiVersion = apiVersion;
  obj.kind = r.resource.kind;
  return obj;
}

/** EnsureObjectNamespaceMatchesRequestNamespace: a namespaced body takes the request's namespace. */
function takeNamespace(obj: any, namespace: string | undefined): void {
  if (namespace === undefined) return;
  const given = obj.metadata?.namespace;
  if (given && given !== namespace) throw badRequest('the namespace of the provided object does not match the namespace sent on the request');
  obj.metadata = { ...obj.metadata, namespace };
}

function answer(resource: ResourceInfo, obj: any, requestor: UserInfo, r: ReviewRequest, opts: ReviewOptions): Promise<any> | any {
  switch (resource.kind) {
    case 'SubjectAccessReview': case 'SelfSubjectAccessReview': case 'LocalSubjectAccessReview':
      return reviewAccess(resource.kind as AccessReviewKind, obj, { requestor, namespace: r.info.namespace, authorize: opts.authorize });
    case 'SelfSubjectRulesReview':
      return reviewRules(obj, { requestor, authorizing: opts.authorize !== undefined, rulesResolver: opts.rulesResolver });
    case 'SelfSubjectReview': return reviewSelf(obj, requestor, new Date());
    case 'TokenReview': return reviewToken(obj, opts);
  }
  throw methodNotAllowed();
}

export async function handleReview(r: ReviewRequest, opts: ReviewOptions): Promise<void> {
  if (r.info.verb !== 'create' || r.info.name || r.info.subresource) { r.req.resume(); throw methodNotAllowed(); }
  // Reviews have no table convertor: a Table is not acceptable, and upstream
  // negotiates the output before reading the body (conformance: "should return
  // a 406 for a backend which does not implement metadata").
  const accept = r.req.headers.accept === undefined ? undefined : acceptWithoutTable(r.req.headers.accept);
  if (r.req.headers.accept !== undefined && accept === undefined) { r.req.resume(); throw notAcceptable(builtinMediaTypesNotAcceptable); }
  readWriteOptions(r, 'CreateOptions');
  const obj = await readReview(r);
  takeNamespace(obj, r.resource.namespaced ? r.info.namespace : undefined);
  const requestor = r.user;
  if (!requestor) throw badRequest('no user present on request');
  const reviewed = await answer(r.resource, obj, requestor, r, opts);
  writeObjectAs(r.res, 201, reviewed, negotiateMedia(accept).protobuf);
}
