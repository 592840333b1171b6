/**
 * apiregistration.k8s.io/v1 types (kubernetes-types has no kube-aggregator
 * package): APIService and its parts, field names as upstream's.
 */
import type { ObjectMeta } from 'kubernetes-types/meta/v1.js';

export const apiRegistrationGroup = 'apiregistration.k8s.io';

export interface ServiceReference { namespace?: string; name?: string; port?: number }

export interface APIServiceSpec {
  service?: ServiceReference | null;
  group?: string;
  version?: string;
  insecureSkipTLSVerify?: boolean;
  /** PEM bundle, base64 in JSON. */
  caBundle?: string;
  groupPriorityMinimum: number;
  versionPriority: number;
}

export interface APIServiceCondition {
  type: 'Available';
  status: 'True' | 'False' | 'Unknown';
  lastTransitionTime?: string;
  reason?: string;
  message?: string;
}

export interface APIService {
  apiVersion?: string;
  kind?: string;
  metadata?: ObjectMeta;
  spec: APIServiceSpec;
  status?: { conditions?: APIServiceCondition[] };
}

/** The name kube-aggregator requires: `<version>.<group>` (`v1.` for the core group). */
export const apiServiceName = (group: string, version: string) => `${version}.${group}`;
