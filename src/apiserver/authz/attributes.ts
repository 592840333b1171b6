/**
 * Authorization attributes of an HTTP request (endpoints/request's
 * RequestInfo as WithAuthorization reads it). A namespace object's own path
 * (/api/v1/namespaces/foo) is in namespace foo, as upstream's RequestInfo puts it.
 * A list or watch with the field selector metadata.name=x is for the name x,
 * as upstream's RequestInfo resolves it for authorization.
 */
import type { UserInfo } from '../auth/types.js';
import type { RequestInfo } from '../request-info.js';
import type { AuthorizationAttributes } from './types.js';
import { parseFieldSelector, requiresExactFieldMatch, type FieldSelector } from '../../api/fields.js';
import { isValidPathSegmentName } from '../../api/names.js';

function parsedSelector(text: string | undefined): FieldSelector | undefined {
  if (!text) return undefined;
  try { return parseFieldSelector(text); } catch { return undefined; }
}

export function attributesOf(user: UserInfo, info: RequestInfo): AuthorizationAttributes {
  const resource = info.resource ?? '';
  const namespace = info.namespace ?? (resource === 'namespaces' && info.name ? info.name : '');
  const fieldSelector = parsedSelector(info.fieldSelector);
  let name = info.name ?? '';
  const selected = fieldSelector && requiresExactFieldMatch(fieldSelector, 'metadata.name');
  if (!name && selected && (info.verb === 'list' || info.verb === 'watch') && isValidPathSegmentName(selected).length === 0) name = selected;
  return {
    user,
    verb: info.verb,
    isResourceRequest: info.isResourceRequest,
    path: info.path,
    apiGroup: info.group,
    apiVersion: info.version,
    namespace,
    resource,
    subresource: info.subresource ?? '',
    name,
    ...(fieldSelector ? { fieldSelector } : {}),
  };
}
