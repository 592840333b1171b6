/** Who made a request: user.Info of k8s.io/apiserver. */
export interface UserInfo {
  name: string;
  uid?: string;
  groups: string[];
}

/** Every authenticated user is in this group (upstream's AuthenticatedGroupAdder). */
export const AUTHENTICATED_GROUP = 'system:authenticated';

/** A copy of `user` that is in system:authenticated. */
export function withAuthenticatedGroup(user: UserInfo): UserInfo {
  const groups = user.groups.includes(AUTHENTICATED_GROUP) ? [...user.groups] : [...user.groups, AUTHENTICATED_GROUP];
  return user.uid === undefined ? { name: user.name, groups } : { name: user.name, uid: user.uid, groups };
}
