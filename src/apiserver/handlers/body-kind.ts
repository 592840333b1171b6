/**
 * What upstream's decoder says when a create or update body names another
 * kind than the endpoint's. It decodes the body as the kind it names, then
 * converts that into the endpoint's internal type:
 * - a kind no group version registers: `Foo in version "v1" cannot be handled as a Namespace: no kind "Foo" is registered ...`;
 * - a registered kind without a conversion: `ConfigMap in version "v1" cannot be handled as a Namespace: converting (v1.ConfigMap) to (core.Namespace): unknown conversion`;
 * - the same kind in another version of the group (or an events.k8s.io Event
 *   on core events): it converts, and only then is refused with
 *   `the API version in the data (...) does not match the expected API version (...)`.
 */
import { badRequest } from '../../api/status.js';
import { findByKind, type ResourceInfo } from '../../api/resources.js';
import { messageTypeFor } from '../../api/protobuf/envelope.js';

const scheme = 'k8s.io/kubernetes/pkg/api/legacyscheme/scheme.go:30';

export function checkBodyKind(endpoint: Pick<ResourceInfo, 'group' | 'version' | 'kind'>, endpointApiVersion: string, obj: { apiVersion?: unknown; kind?: unknown }): void {
  const apiVersion = typeof obj.apiVersion === 'string' && obj.apiVersion ? obj.apiVersion : endpointApiVersion;
  const kind = typeof obj.kind === 'string' && obj.kind ? obj.kind : endpoint.kind;
  if (apiVersion === endpointApiVersion && kind === endpoint.kind) return;
  const slash = apiVersion.lastIndexOf('/');
  const group = slash < 0 ? '' : apiVersion.slice(0, slash);
  const version = apiVersion.slice(slash + 1);
  const cannotHandle = `${kind} in version ${JSON.stringify(version)} cannot be handled as a ${endpoint.kind}`;
  if (!findByKind(apiVersion, kind) && !messageTypeFor(apiVersion, kind)) {
    throw badRequest(`${cannotHandle}: no kind ${JSON.stringify(kind)} is registered for version ${JSON.stringify(apiVersion)} in scheme ${JSON.stringify(scheme)}`);
  }
  if (kind !== endpoint.kind || internalPackage(group) !== internalPackage(endpoint.group)) {
    throw badRequest(`${cannotHandle}: converting (${version}.${kind}) to (${internalPackage(endpoint.group)}.${endpoint.kind}): unknown conversion`);
  }
  throw badRequest(`the API version in the data (${apiVersion}) does not match the expected API version (${endpointApiVersion})`);
}

/** The Go package of a group's internal types: `core` for the core group (and events.k8s.io, stored as core Events), else the group's first label. */
function internalPackage(group: string): string {
  if (group === '' || group === 'events.k8s.io') return 'core';
  return group.split('.')[0];
}
