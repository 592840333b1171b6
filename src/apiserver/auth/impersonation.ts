/**
 * Impersonation (k8s.io/apiserver filters/impersonation.go): an authenticated
 * user acts as another by sending Impersonate-User, Impersonate-Group
 * (repeatable), Impersonate-Uid and Impersonate-Extra-<key> headers. Runs
 * after authentication and before authorization, in this order:
 * 1. The headers become a list of requests: the user (a service account when
 *    the name is `system:serviceaccount:<ns>:<name>`), each group, each extra
 *    value, the uid. Groups, extras or a uid without a user are refused with
 *    upstream's 500 "requested [...] without impersonating a user".
 * 2. Each request is authorized for the requestor with verb `impersonate` on
 *    users, groups, serviceaccounts (in the account's namespace), uids or
 *    userextras/<key>; the first refusal is upstream's 403.
 * 3. The new user: the given groups when any were sent, else a service
 *    account's groups; plus system:authenticated unless the user is
 *    system:anonymous (which gets system:unauthenticated) or either group was
 *    sent. The impersonation headers are then removed from the request.
 */
import type { IncomingMessage } from 'node:http';
import { forbidden } from '../authz/forbidden.js';
import type { AuthorizationAttributes, Authorizer } from '../authz/types.js';
import type { StatusError } from '../../api/status.js';
import { AUTHENTICATED_GROUP, type UserInfo } from './types.js';
import { ANONYMOUS_USER, UNAUTHENTICATED_GROUP } from './authenticator.js';
import { serviceAccountGroups, serviceAccountUsername, splitServiceAccountUsername } from './serviceaccount-user.js';

export const IMPERSONATE_USER = 'impersonate-user';
export const IMPERSONATE_GROUP = 'impersonate-group';
export const IMPERSONATE_UID = 'impersonate-uid';
export const IMPERSONATE_EXTRA_PREFIX = 'impersonate-extra-';


/** One thing to impersonate, as upstream's ObjectReference (kind, namespace, name, apiVersion, fieldPath = the extra key). */
export interface ImpersonationRequest {
  kind: 'User' | 'ServiceAccount' | 'Group' | 'UserExtra' | 'UID';
  namespace: string;
  name: string;
  apiVersion: string;
  extraKey: string;
}

export type Impersonation =
  /** Not impersonating: the request goes on as `user`. */
  | { kind: 'none' }
  | { kind: 'user'; user: UserInfo }
  | { kind: 'forbidden'; error: StatusError }
  /** Upstream's responsewriters.InternalError: a text/plain 500 with this body. */
  | { kind: 'internalError'; message: string };

const ref = (kind: ImpersonationRequest['kind'], name: string, more: Partial<ImpersonationRequest> = {}): ImpersonationRequest =>
  ({ kind, namespace: '', name, apiVersion: '', extraKey: '', ...more });

/** url.PathUnescape; a malformed key is kept as sent. */
function unescapeExtraKey(key: string): string {
  try {
    return decodeURIComponent(key);
  } catch {
    return key;
  }
}

/** Go's %v of a v1.ObjectReference: its seven fields, space separated. */
const showRef = (r: ImpersonationRequest) => `{${[r.kind, r.namespace, r.name, '', r.apiVersion, '', r.extraKey].join(' ')}}`;

/** Step 1: the impersonation requests of the headers (empty when none), or the error for groups/extra/uid without a user. */
export function impersonationRequests(req: Pick<IncomingMessage, 'headersDistinct'>): ImpersonationRequest[] | { error: string } {
  const headers = req.headersDistinct;
  const out: ImpersonationRequest[] = [];
  const user = headers[IMPERSONATE_USER]?.[0] ?? '';
  if (user) {
    const sa = splitServiceAccountUsername(user);
    out.push(sa ? ref('ServiceAccount', sa.name, { namespace: sa.namespace }) : ref('User', user));
  }
  const groups = headers[IMPERSONATE_GROUP] ?? [];
  for (const g of groups) out.push(ref('Group', g));
  let hasExtra = false;
  for (const [header, values] of Object.entries(headers)) {
    if (!header.startsWith(IMPERSONATE_EXTRA_PREFIX) || !values) continue;
    hasExtra = true;
    const extraKey = unescapeExtraKey(header.slice(IMPERSONATE_EXTRA_PREFIX.length));
    for (const v of values) out.push(ref('UserExtra', v, { apiVersion: 'authentication.k8s.io/v1', extraKey }));
  }
  const uid = headers[IMPERSONATE_UID]?.[0] ?? '';
  if (uid) out.push(ref('UID', uid, { apiVersion: 'authentication.k8s.io/v1' }));
  if ((groups.length || hasExtra || uid) && !user) return { error: `requested [${out.map(showRef).join(' ')}] without impersonating a user` };
  return out;
}

/** Step 2's attributes: what the requestor must be allowed to `impersonate`. */
export function impersonateAttributes(requestor: UserInfo, r: ImpersonationRequest): AuthorizationAttributes {
  const [apiGroup, apiVersion] = r.apiVersion ? r.apiVersion.split('/') as [string, string] : ['', ''];
  const resource = { User: 'users', ServiceAccount: 'serviceaccounts', Group: 'groups', UserExtra: 'userextras', UID: 'uids' }[r.kind];
  return {
    user: requestor, verb: 'impersonate', isResourceRequest: true, path: '', apiGroup, apiVersion,
    namespace: r.namespace, resource, subresource: r.extraKey, name: r.name,
  };
}

/** Step 3: the user the requests describe. */
export function impersonatedUser(requests: ImpersonationRequest[]): UserInfo {
  const groupsSpecified = requests.some((r) => r.kind === 'Group');
  let name = '';
  let uid = '';
  let groups: string[] = [];
  const extra: Record<string, string[]> = {};
  for (const r of requests) {
    if (r.kind === 'ServiceAccount') {
      name = serviceAccountUsername(r.namespace, r.name);
      if (!groupsSpecified) groups = serviceAccountGroups(r.namespace);
    } else if (r.kind === 'User') name = r.name;
    else if (r.kind === 'Group') groups.push(r.name);
    else if (r.kind === 'UserExtra') (extra[r.extraKey] ??= []).push(r.name);
    else uid = r.name;
  }
  if (name !== ANONYMOUS_USER) {
    if (!groups.includes(AUTHENTICATED_GROUP) && !groups.includes(UNAUTHENTICATED_GROUP)) groups.push(AUTHENTICATED_GROUP);
  } else if (!groups.includes(UNAUTHENTICATED_GROUP)) {
    groups.push(UNAUTHENTICATED_GROUP);
  }
  return { name, uid, groups, extra };
}

/** Steps 1–3 for one request; `authorize` absent is AlwaysAllow. Removes the headers once the user changed. */
export function impersonate(req: IncomingMessage, requestor: UserInfo, authorize?: Authorizer): Impersonation | Promise<Impersonation> {
  // Nearly no request impersonates: its raw header names say so without building headersDistinct,
  // and it is answered at once (no promise).
  if (Array.isArray(req.rawHeaders) && !req.rawHeaders.some((h, i) => i % 2 === 0 && h.length > 12 && h.slice(0, 12).toLowerCase() === 'impersonate-')) {
    return { kind: 'none' };
  }
  return impersonateAsRequested(req, requestor, authorize);
}

async function impersonateAsRequested(req: IncomingMessage, requestor: UserInfo, authorize?: Authorizer): Promise<Impersonation> {
  const requests = impersonationRequests(req);
  if (!Array.isArray(requests)) return { kind: 'internalError', message: requests.error };
  if (requests.length === 0) return { kind: 'none' };
  for (const r of requests) {
    const attrs = impersonateAttributes(requestor, r);
    const d = authorize ? await authorize(attrs) : { decision: 'allow', reason: '' };
    if (d.decision !== 'allow') return { kind: 'forbidden', error: forbidden(attrs, d.reason) };
  }
  for (const header of Object.keys(req.headers)) {
    if (header === IMPERSONATE_USER || header === IMPERSONATE_GROUP || header === IMPERSONATE_UID || header.startsWith(IMPERSONATE_EXTRA_PREFIX)) delete req.headers[header];
  }
  return { kind: 'user', user: impersonatedUser(requests) };
}

/** responsewriters.InternalError's text: `Internal Server Error: "<uri>": <err>`, with &, < and > escaped. */
export function internalErrorText(requestURI: string, message: string): string {
  return `Internal Server Error: ${JSON.stringify(requestURI)}: ${message}`.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}
