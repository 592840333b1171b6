/**
 * The errors webhooks give users, in upstream's words (admission/plugin/webhook/errors):
 *  - a refusal: ToStatusErr, `admission webhook "NAME" denied the request: MSG` with the
 *    webhook's code (400 when it gave none below 400), reason and details;
 *  - a failed call under failurePolicy Fail: NewInternalError of ErrCallingWebhook,
 *    `Internal error occurred: failed calling webhook "NAME": REASON`;
 *  - a webhook with side effects on a dry run: `admission webhook "NAME" does not support dry run`.
 */
import { StatusError, badRequest, internalError, type Status } from '../../../api/status.js';
import type { AdmissionResponse } from './review.js';

export function denied(webhookName: string, result: AdmissionResponse['status']): StatusError {
  const by = `admission webhook "${webhookName}" denied the request`;
  const r = result ?? {};
  const message = r.message ? `${by}: ${r.message}` : r.reason ? `${by}: ${r.reason}` : `${by} without explanation`;
  const status: Status = {
    kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message,
    code: typeof r.code === 'number' && r.code >= 400 ? r.code : 400,
  };
  if (r.reason) status.reason = r.reason;
  if (r.details && typeof r.details === 'object') status.details = r.details as Status['details'];
  return new StatusError(status);
}

export const callingWebhookFailed = (webhookName: string, reason: string) =>
  internalError(`failed calling webhook "${webhookName}": ${reason}`);

export const dryRunUnsupported = (webhookName: string) =>
  badRequest(`admission webhook "${webhookName}" does not support dry run`);
