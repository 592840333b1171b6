/**
 * The 403 an unauthorized request gets, worded as upstream's
 * responsewriters.ForbiddenStatusError: `pods "x" is forbidden: User "u" cannot
 * get resource "pods" in API group "" in the namespace "default"` (+ `: reason`);
 * for a non-resource path `forbidden: User "u" cannot get path "/x"`.
 */
import { forbiddenStatus } from '../../api/status.js';
import type { StatusError } from '../../api/status.js';
import type { AuthorizationAttributes } from './types.js';

export function forbiddenMessage(a: AuthorizationAttributes, reason: string): string {
  let msg: string;
  if (!a.isResourceRequest) {
    msg = `User "${a.user.name}" cannot ${a.verb} path "${a.path}"`;
  } else {
    const resource = a.subresource ? `${a.resource}/${a.subresource}` : a.resource;
    const scope = a.namespace ? ` in the namespace "${a.namespace}"` : ' at the cluster scope';
    msg = `User "${a.user.name}" cannot ${a.verb} resource "${resource}" in API group "${a.apiGroup}"${scope}`;
  }
  return reason ? `${msg}: ${reason}` : msg;
}

export function forbidden(a: AuthorizationAttributes, reason: string): StatusError {
  const msg = forbiddenMessage(a, reason);
  if (!a.isResourceRequest) {
    // NewForbidden with an empty GroupResource: its details serialize as {}.
    const e = forbiddenStatus(`forbidden: ${msg}`);
    e.status.details = {};
    return e;
  }
  return forbiddenStatus(msg, { group: a.apiGroup, resource: a.resource }, a.name || undefined);
}
