/**
 * Mutating webhooks, one after another in their order, as upstream's
 * mutating/dispatcher.go: each sees the object as the previous left it; a JSONPatch
 * answer is applied (an undecodable or failing patch is a 500 whatever the
 * failurePolicy) and the result defaulted again, as upstream decodes it.
 *
 * reinvocationPolicy IfNeeded (upstream's webhookReinvokeContext): when a webhook
 * changes the object, the IfNeeded webhooks called before it are called once more,
 * in order, after the first pass; a webhook never reinvokes itself.
 */
import type { MutatingWebhook } from 'kubernetes-types/admissionregistration/v1.js';
import { applyDefaults } from '../../../api/defaults/index.js';
import { applyJsonPatch } from '../../../api/patch/index.js';
import { kindKey } from '../../../api/resources.js';
import { internalError } from '../../../api/status.js';
import type { AdmissionAttributes } from './attributes.js';
import type { Accessor } from './configurations.js';
import { invokeWebhook, type InvokeDeps } from './invoke.js';
import { shouldCallHook } from './matching.js';
import { admissionRequest, type AdmissionResponse } from './review.js';
import type { NamespaceGetter } from './selectors.js';

export interface MutatingDeps extends InvokeDeps { getNamespace: NamespaceGetter }

export async function dispatchMutating(hooks: readonly Accessor<MutatingWebhook>[], a: AdmissionAttributes, deps: MutatingDeps): Promise<void> {
  const calledIfNeeded: string[] = [];
  const reinvoke = new Set<string>();
  for (const h of hooks) {
    const changed = await callOne(h.webhook, a, deps);
    if (changed === undefined) continue;
    if (changed) for (const uid of calledIfNeeded) reinvoke.add(uid);
    if (h.webhook.reinvocationPolicy === 'IfNeeded') calledIfNeeded.push(h.uid);
  }
  if (!reinvoke.size) return;
  for (const h of hooks) if (reinvoke.has(h.uid)) await callOne(h.webhook, a, deps);
}

/** Whether the webhook changed the object; undefined when it was not called (or its failure ignored). */
async function callOne(hook: MutatingWebhook, a: AdmissionAttributes, deps: MutatingDeps): Promise<boolean | undefined> {
  let request: Record<string, unknown> | undefined;
  const requestOf = () => (request ??= admissionRequest(a));
  if (!shouldCallHook(hook, a, requestOf, deps.getNamespace)) return undefined;
  const response = await invokeWebhook(hook, 'admit', a, requestOf(), deps);
  if (!response) return undefined;
  if (!response.patch || a.object === undefined) return false;
  return applyPatchResponse(a, response);
}

function applyPatchResponse(a: AdmissionAttributes, response: AdmissionResponse): boolean {
  let patched: any;
  try {
    const patch = JSON.parse(Buffer.from(response.patch!, 'base64').toString('utf8'));
    patched = applyJsonPatch(structuredClone(a.object), patch);
  } catch (e) {
    throw internalError((e as Error).message);
  }
  if (!patched || typeof patched !== 'object' || Array.isArray(patched)) throw internalError('the patched object is not an object');
  applyDefaults(kindKey(a.info), patched);
  const before = JSON.stringify(a.object);
  if (JSON.stringify(patched) === before) return false;
  // The store holds this very object: replace its contents in place.
  for (const k of Object.keys(a.object)) delete a.object[k];
  Object.assign(a.object, patched);
  return true;
}
