/**
 * Storage keys: /registry/<group or "core">/<plural>/[<namespace>/]<name>.
 * Prefixes end in "/" so that listing namespace "a" never returns "ab".
 */
import type { ResourceInfo } from '../api/resources.js';

export function resourcePrefix(info: ResourceInfo): string {
  return `/registry/${info.group || 'core'}/${info.plural}/`;
}

/** The prefix to list: one namespace, or every object of the resource. */
export function listPrefix(info: ResourceInfo, namespace?: string): string {
  return info.namespaced && namespace ? `${resourcePrefix(info)}${namespace}/` : resourcePrefix(info);
}

export function objectKey(info: ResourceInfo, namespace: string | undefined, name: string): string {
  return info.namespaced ? `${resourcePrefix(info)}${namespace}/${name}` : `${resourcePrefix(info)}${name}`;
}
