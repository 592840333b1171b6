/**
 * The naming controller's check (apiextensions-apiserver
 * pkg/controller/status/naming_controller.go): a CRD's plural, singular,
 * short names, kind and list kind may not be taken by another CRD of the
 * same group. Returns upstream's condition message, or undefined.
 */
import type { CustomResourceDefinition } from '../../api/apiextensions/types.js';

export function namesConflict(crd: CustomResourceDefinition, others: CustomResourceDefinition[]): string | undefined {
  const names = crd.spec.names;
  const resources = new Set<string>();
  const kinds = new Set<string>();
  for (const o of others) {
    if (o.spec.group !== crd.spec.group) continue;
    const a = o.status?.acceptedNames;
    if (!a) continue;
    for (const n of [a.plural, a.singular, ...(a.shortNames ?? [])]) if (n) resources.add(n);
    for (const k of [a.kind, a.listKind]) if (k) kinds.add(k);
  }
  if (resources.has(names.plural)) return `"${names.plural}" is already in use`;
  if (names.singular && resources.has(names.singular)) return `"${names.singular}" is already in use`;
  for (const s of names.shortNames ?? []) if (resources.has(s)) return `"${s}" is already in use`;
  if (kinds.has(names.kind)) return `"${names.kind}" is already in use`;
  if (names.listKind && kinds.has(names.listKind)) return `"${names.listKind}" is already in use`;
  return undefined;
}
