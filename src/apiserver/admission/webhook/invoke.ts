/**
 * One webhook call with upstream's policies around it (mutating/dispatcher.go
 * callAttrMutatingHook, validating/dispatcher.go callHook):
 *  - a dry run reaches only webhooks whose sideEffects are None or NoneOnDryRun;
 *  - a failed call fails the request (500) under failurePolicy Fail, and is
 *    logged and skipped under Ignore;
 *  - a refusal (allowed: false) fails it with the webhook's Status;
 *  - warnings go to the response; metrics record every call.
 */
import type { MutatingWebhook, ValidatingWebhook } from 'kubernetes-types/admissionregistration/v1.js';
import type { ServiceResolver } from '../../service-resolver.js';
import type { Logger } from '../../../util/log.js';
import type { AdmissionAttributes } from './attributes.js';
import { CallError, callWebhook } from './client.js';
import { callingWebhookFailed, denied, dryRunUnsupported } from './errors.js';
import type { WebhookMetrics, WebhookType } from './metrics.js';
import { admissionReviewBody, verifyAdmissionResponse, type AdmissionResponse } from './review.js';
import { addWarnings } from './request-scope.js';

export interface InvokeDeps { resolver: ServiceResolver; metrics?: WebhookMetrics; logger?: Logger }

const noSideEffects = new Set(['None', 'NoneOnDryRun']);

/** The webhook's response, or undefined when a failed call is ignored; throws the request's error. */
export async function invokeWebhook(
  hook: MutatingWebhook | ValidatingWebhook, type: WebhookType, a: AdmissionAttributes, request: Record<string, unknown>, deps: InvokeDeps,
): Promise<AdmissionResponse | undefined> {
  if (a.dryRun && !noSideEffects.has(hook.sideEffects)) throw dryRunUnsupported(hook.name);
  const started = performance.now();
  const observe = (rejected: boolean, code: number) => deps.metrics?.observe({ name: hook.name, type, operation: a.operation, seconds: (performance.now() - started) / 1000, rejected, code });
  let response: AdmissionResponse;
  try {
    const review = await callWebhook({ clientConfig: hook.clientConfig, timeoutSeconds: hook.timeoutSeconds ?? 10, body: admissionReviewBody(request), resolver: deps.resolver });
    response = verifyAdmissionResponse(String(request.uid), type === 'admit', review);
  } catch (e) {
    if (!(e instanceof CallError)) throw e;
    const ignore = hook.failurePolicy === 'Ignore';
    observe(!ignore, 0);
    deps.metrics?.rejection({ name: hook.name, type, operation: a.operation, errorType: 'calling_webhook_error', code: 0 });
    if (ignore) {
      deps.logger?.warn('failed calling webhook, failing open', { webhook: hook.name, err: e.message });
      return undefined;
    }
    deps.logger?.warn('failed calling webhook, failing closed', { webhook: hook.name, err: e.message });
    throw callingWebhookFailed(hook.name, e.message);
  }
  if (response.warnings?.length) addWarnings(a.warnTo, response.warnings.filter((w) => typeof w === 'string' && w.trim()));
  if (!response.allowed) {
    const err = denied(hook.name, response.status);
    observe(true, err.code);
    deps.metrics?.rejection({ name: hook.name, type, operation: a.operation, errorType: 'no_error', code: err.code });
    throw err;
  }
  observe(false, 200);
  return response;
}
