/**
 * rbac.authorization.k8s.io/v1 RoleBinding and ClusterRoleBinding, as
 * upstream's printRoleBinding and printClusterRoleBinding (Roles and
 * ClusterRoles have no printer upstream: NAME and CREATED AT).
 */
import type { RoleBinding, Subject } from 'kubernetes-types/rbac/v1.js';
import { ageColumn, column, docColumn, nameColumn } from './columns.js';
import { timestampSince } from './duration.js';
import type { SwaggerDocKey } from './descriptions.js';
import type { KindPrinter, TableRow } from './types.js';

/** rbac.SubjectsStrings: users, groups and service accounts (`namespace:name`), each joined by ", ". */
function subjectsStrings(subjects: Subject[] | undefined): [string, string, string] {
  const users: string[] = [];
  const groups: string[] = [];
  const sas: string[] = [];
  for (const s of subjects ?? []) {
    if (s.kind === 'ServiceAccount') sas.push(`${s.namespace ?? ''}:${s.name}`);
    else if (s.kind === 'User') users.push(s.name);
    else if (s.kind === 'Group') groups.push(s.name);
  }
  return [users.join(', '), groups.join(', '), sas.join(', ')];
}

function bindingPrinter(roleRefDoc: SwaggerDocKey, noun: string): KindPrinter {
  return {
    columns: [
      nameColumn(),
      docColumn('Role', roleRefDoc),
      ageColumn(),
      column('Users', `Users in the ${noun}`, { priority: 1 }),
      column('Groups', `Groups in the ${noun}`, { priority: 1 }),
      column('ServiceAccounts', `ServiceAccounts in the ${noun}`, { priority: 1 }),
    ],
    row(b: RoleBinding, ctx): TableRow {
      const roleRef = `${b.roleRef?.kind ?? ''}/${b.roleRef?.name ?? ''}`;
      return { cells: [b.metadata?.name ?? '', roleRef, timestampSince(b.metadata?.creationTimestamp, ctx.now), ...subjectsStrings(b.subjects)] };
    },
  };
}

export const roleBindingPrinter = bindingPrinter('rbacv1beta1.RoleBinding.roleRef', 'roleBinding');
export const clusterRoleBindingPrinter = bindingPrinter('rbacv1beta1.ClusterRoleBinding.roleRef', 'clusterRoleBinding');
