/** Who made a request: user.Info of k8s.io/apiserver. */
export interface UserInfo {
  name: string;
  uid?: string;
  groups: string[];
  /** Extra attributes (service-account tokens carry authentication.kubernetes.io/pod-name ...; impersonation sets them). */
  extra?: Record<string, string[]>;
}

/** Every authenticated user is in this group (upstream's AuthenticatedGroupAdder). */
export const AUTHENTICATED_GROUP = 'system:authenticated';

/** A copy of `user` that is in system:authenticated. */
export function withAuthenticatedGroup(user: UserInfo): UserInfo {
  const groups = user.groups.includes(AUTHENTICATED_GROUP) ? [...user.groups] : [...user.groups, AUTHENTICATED_GROUP];
  return { ...user, groups };
}
