/**
 * kube-apiserver puts authorizerfactory.NewPrivilegedGroups(system:masters)
 * first in its chain: a member of system:masters is allowed everything before
 * any other authorizer is asked (the API server's own loopback client is one),
 * so RBAC cannot lock the administrators out.
 */
import { allow, noOpinion, type Authorizer } from '../types.js';

export const SYSTEM_PRIVILEGED_GROUP = 'system:masters';

export function privilegedGroupsAuthorizer(groups: string[] = [SYSTEM_PRIVILEGED_GROUP]): Authorizer {
  return (attrs) => attrs.user.groups.some((g) => groups.includes(g)) ? allow() : noOpinion();
}
