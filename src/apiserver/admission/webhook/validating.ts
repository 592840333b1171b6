/**
 * Validating webhooks, all matching ones at once, as upstream's
 * validating/dispatcher.go: the request fails with the first error in the
 * webhooks' order (a refusal or, under failurePolicy Fail, a failed call) once
 * every call has ended; the object is the same for all (they may not change it).
 */
import type { ValidatingWebhook } from 'kubernetes-types/admissionregistration/v1.js';
import type { AdmissionAttributes } from './attributes.js';
import type { Accessor } from './configurations.js';
import { invokeWebhook } from './invoke.js';
import { shouldCallHook } from './matching.js';
import type { MutatingDeps as Deps } from './mutating.js';
import { admissionRequest } from './review.js';

export async function dispatchValidating(hooks: readonly Accessor<ValidatingWebhook>[], a: AdmissionAttributes, deps: Deps): Promise<void> {
  const calls: Promise<unknown>[] = [];
  for (const h of hooks) {
    const request = admissionRequestFor(a);
    if (!shouldCallHook(h.webhook, a, request, deps.getNamespace)) continue;
    calls.push(invokeWebhook(h.webhook, 'validating', a, request(), deps));
  }
  if (!calls.length) return;
  const results = await Promise.allSettled(calls);
  for (const r of results) if (r.status === 'rejected') throw r.reason;
}

function admissionRequestFor(a: AdmissionAttributes): () => Record<string, unknown> {
  let request: Record<string, unknown> | undefined;
  return () => (request ??= admissionRequest(a));
}
