/**
 * Upstream's 409 for apply conflicts (apimachinery managedfields/internal/conflict.go):
 * one conflict is named inline, several are grouped by manager, each manager
 * printed as `"name"`, with ` with subresource "s"`, and for updaters ` using <apiVersion>`.
 */
import { StatusError } from '../status.js';
import { pathToString, type Path } from './path.js';

export interface Conflict { managerId: string; path: Path }

function printManager(managerId: string): string {
  const e = JSON.parse(managerId) as { manager: string; operation: string; apiVersion?: string; subresource?: string };
  let s = JSON.stringify(e.manager);
  if (e.subresource) s += ` with subresource ${JSON.stringify(e.subresource)}`;
  if (e.operation === 'Update') s += ` using ${e.apiVersion ?? ''}`;
  return s;
}

export function conflictMessage(conflicts: readonly Conflict[]): string {
  if (conflicts.length === 1) {
    return `Apply failed with 1 conflict: conflict with ${printManager(conflicts[0].managerId)}: ${pathToString(conflicts[0].path)}`;
  }
  const byManager = new Map<string, Path[]>();
  for (const c of conflicts) byManager.set(c.managerId, [...(byManager.get(c.managerId) ?? []), c.path]);
  const lines: string[] = [];
  for (const id of [...byManager.keys()].sort()) {
    lines.push(`conflicts with ${printManager(id)}:`);
    for (const p of byManager.get(id)!) lines.push(`- ${pathToString(p)}`);
  }
  return `Apply failed with ${conflicts.length} conflicts: ${lines.join('\n')}`;
}

export function applyConflictError(conflicts: readonly Conflict[]): StatusError {
  return new StatusError({
    kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', code: 409, reason: 'Conflict',
    message: conflictMessage(conflicts),
    details: {
      causes: conflicts.map((c) => ({ reason: 'FieldManagerConflict', message: `conflict with ${printManager(c.managerId)}`, field: pathToString(c.path) })),
    },
  });
}
