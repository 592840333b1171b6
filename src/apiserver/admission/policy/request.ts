/**
 * The admission attributes a ValidatingAdmissionPolicy sees, and the CEL
 * `request` variable built from them (upstream's CreateAdmissionRequest:
 * an admission.k8s.io/v1 AdmissionRequest without the objects).
 */
import type { UserInfo } from '../../auth/types.js';

export type Operation = 'CREATE' | 'UPDATE' | 'DELETE';

export interface PolicyRequest {
  operation: Operation;
  group: string;
  version: string;
  kind: string;
  resource: string;
  subresource: string;
  namespaced: boolean;
  name: string;
  namespace: string;
  /** The object after the change; null on DELETE. */
  object: unknown;
  /** The object before the change; null on CREATE. */
  oldObject: unknown;
  user?: UserInfo;
  dryRun: boolean;
}

const optionsKind: Record<Operation, string> = { CREATE: 'CreateOptions', UPDATE: 'UpdateOptions', DELETE: 'DeleteOptions' };

/** The `request` variable, as JSON (converted to CEL values with the objects). */
export function requestVariable(r: PolicyRequest): Record<string, unknown> {
  const kind = { group: r.group, version: r.version, kind: r.kind };
  const resource = { group: r.group, version: r.version, resource: r.resource };
  const out: Record<string, unknown> = {
    uid: '', kind, resource, requestKind: kind, requestResource: resource,
    name: r.name, namespace: r.namespace, operation: r.operation,
    userInfo: { username: r.user?.name ?? '', uid: r.user?.uid ?? '', groups: r.user?.groups ?? [], extra: r.user?.extra ?? {} },
    dryRun: r.dryRun,
    options: { kind: optionsKind[r.operation], apiVersion: 'meta.k8s.io/v1' },
  };
  if (r.subresource) { out.subResource = r.subresource; out.requestSubResource = r.subresource; }
  return out;
}
