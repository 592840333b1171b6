/**
 * Does a binding's subject name a user (upstream rbac/validation appliesTo):
 * User by name, Group by membership, ServiceAccount by its username
 * `system:serviceaccount:<ns>:<name>`, the namespace defaulting to the
 * RoleBinding's (a ClusterRoleBinding's ServiceAccount must name one).
 */
import type { Subject } from 'kubernetes-types/rbac/v1.js';
import type { UserInfo } from '../../auth/types.js';

export function appliesToUser(user: UserInfo, subject: Subject, bindingNamespace: string): boolean {
  switch (subject.kind) {
    case 'User': return user.name === subject.name;
    case 'Group': return user.groups.includes(subject.name);
    case 'ServiceAccount': {
      const ns = subject.namespace || bindingNamespace;
      return ns !== '' && user.name === `system:serviceaccount:${ns}:${subject.name}`;
    }
    default: return false;
  }
}

/** The index of the first subject that applies, -1 when none does. */
export function subjectIndexFor(user: UserInfo, subjects: Subject[] | undefined, bindingNamespace: string): number {
  return (subjects ?? []).findIndex((s) => appliesToUser(user, s, bindingNamespace));
}

/** describeSubject: `User "alice"`, `ServiceAccount "default/ns"` (name/namespace, as upstream prints it). */
export function describeSubject(s: Subject, bindingNamespace: string): string {
  if (s.kind === 'ServiceAccount') return `${s.kind} ${JSON.stringify(`${s.name}/${s.namespace || bindingNamespace}`)}`;
  return `${s.kind} ${JSON.stringify(s.name)}`;
}
