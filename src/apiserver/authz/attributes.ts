/**
 * Authorization attributes of an HTTP request (endpoints/request's
 * RequestInfo as WithAuthorization reads it). A namespace object's own path
 * (/api/v1/namespaces/foo) is in namespace foo, as upstream's RequestInfo puts it.
 */
import type { UserInfo } from '../auth/types.js';
import type { RequestInfo } from '../request-info.js';
import type { AuthorizationAttributes } from './types.js';

export function attributesOf(user: UserInfo, info: RequestInfo): AuthorizationAttributes {
  const resource = info.resource ?? '';
  const namespace = info.namespace ?? (resource === 'namespaces' && info.name ? info.name : '');
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
    name: info.name ?? '',
  };
}
