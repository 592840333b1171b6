/**
 * Admission attributes of one request as webhooks see them (upstream's
 * admission.Attributes): the operation, the resource and subresource, the
 * object before and after, the user, dryRun and the operation's options.
 */
import type { ResourceInfo } from '../../../api/resources.js';
import type { UserInfo } from '../../auth/types.js';
import type { WarningScope } from '../../request-context.js';

export type AdmissionOperation = 'CREATE' | 'UPDATE' | 'DELETE' | 'CONNECT';

export interface AdmissionAttributes {
  operation: AdmissionOperation;
  info: ResourceInfo;
  subresource: string;
  /** '' for cluster-scoped resources. */
  namespace: string;
  name: string;
  /** The object being written (absent for DELETE). Mutating webhooks patch it in place. */
  object?: any;
  oldObject?: any;
  dryRun: boolean;
  /** CreateOptions, UpdateOptions or DeleteOptions, as the request carried them. */
  options?: Record<string, unknown>;
  user?: UserInfo;
  /** Where the webhooks' warnings go: the request's response (its context's webhook scope). */
  warnTo?: WarningScope['res'];
}

/**
 * Upstream's IsExemptAdmissionConfigurationResource: webhooks and admission
 * policies are never called for their own configuration objects, so a broken
 * webhook can always be removed.
 */
const exempt = new Set([
  'validatingwebhookconfigurations', 'mutatingwebhookconfigurations',
  'validatingadmissionpolicies', 'validatingadmissionpolicybindings',
  'mutatingadmissionpolicies', 'mutatingadmissionpolicybindings',
]);

export const isExemptResource = (info: Pick<ResourceInfo, 'group' | 'plural'>) =>
  info.group === 'admissionregistration.k8s.io' && exempt.has(info.plural);
