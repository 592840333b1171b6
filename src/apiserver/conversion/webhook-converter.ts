/**
 * CRD conversion through the CRD's webhook, as apiextensions-apiserver's
 * webhookConverter (pkg/apiserver/conversion/webhook_converter.go):
 *  1. objects already in the desired version are not sent; none left: no call;
 *  2. one ConversionReview for the lot, in the first of the CRD's
 *     conversionReviewVersions the server speaks (v1, v1beta1), with a new uid;
 *  3. the call goes to clientConfig (url, or service through the Service
 *     resolver) with its caBundle, `?timeout=30s`, cut after 30 s;
 *  4. the response must be the same review kind (v1), carry our uid (v1),
 *     have result.status Success (else its message is the error), and as
 *     many convertedObjects as were sent, each in the desired group/version
 *     and the same kind, name, namespace and uid;
 *  5. metadata is the original's, but for labels and annotations, which the
 *     webhook may change.
 * Failures are 500s worded `conversion webhook for GROUP/VERSION, Kind=KIND failed: ...`,
 * naming the version converted from.
 */
import { randomUUID } from 'node:crypto';
import type { CustomResourceDefinition } from '../../api/apiextensions/types.js';
import { StatusError } from '../../api/status.js';
import { callWebhook } from '../admission/webhook/client.js';
import type { ServiceResolver } from '../service-resolver.js';
import type { ConversionWebhook } from '../../registry/registry.js';

/** Upstream's conversion webhooks have no timeoutSeconds: the client's fixed 30 s. */
export const conversionTimeoutSeconds = 30;

const reviewVersions = ['v1', 'v1beta1'];

export interface ConversionWebhookDeps { resolver: ServiceResolver; timeoutSeconds?: number }

export function conversionWebhook(deps: ConversionWebhookDeps): ConversionWebhook {
  return (crd, objects, desired) => convertObjects(crd, objects, desired, deps);
}

async function convertObjects(crd: CustomResourceDefinition, objects: any[], desired: string, deps: ConversionWebhookDeps): Promise<any[]> {
  const toConvert = objects.filter((o) => o.apiVersion !== desired);
  if (!toConvert.length) return objects;
  const from = `${toConvert[0].apiVersion}, Kind=${toConvert[0].kind}`;
  const fail = (why: string) => failure(`conversion webhook for ${from} failed: ${why}`);
  const webhook = crd.spec.conversion?.webhook;
  const reviewVersion = (webhook?.conversionReviewVersions ?? []).find((v) => reviewVersions.includes(v));
  if (!webhook?.clientConfig || !reviewVersion) throw failure('no supported conversion review versions');
  const uid = randomUUID();
  const reviewAPIVersion = `apiextensions.k8s.io/${reviewVersion}`;
  const body = JSON.stringify({ apiVersion: reviewAPIVersion, kind: 'ConversionReview', request: { uid, desiredAPIVersion: desired, objects: toConvert } });
  let answer: any;
  try {
    answer = await callWebhook({ clientConfig: webhook.clientConfig, timeoutSeconds: deps.timeoutSeconds ?? conversionTimeoutSeconds, body, resolver: deps.resolver });
  } catch (e) {
    throw fail((e as Error).message.replace(/^failed to call webhook: /, ''));
  }
  const problem = responseProblem(answer, reviewVersion, uid);
  if (problem) throw fail(problem);
  const converted: unknown[] = answer.response.convertedObjects ?? [];
  if (converted.length !== toConvert.length) throw failure(`conversion webhook for ${from} returned ${converted.length} objects, expected ${toConvert.length}`);
  let next = 0;
  return objects.map((original) => {
    if (original.apiVersion === desired) return original;
    const index = next++;
    const out = converted[index] as any;
    const invalid = convertedProblem(original, out, desired);
    if (invalid) throw failure(`conversion webhook for ${from} returned invalid converted object at index ${index}: ${invalid}`);
    return withOriginalMetadata(original, out);
  });
}

/** What is wrong with the review the webhook answered (getConvertedObjectsFromResponse), or undefined. */
function responseProblem(answer: any, reviewVersion: string, uid: string): string | undefined {
  if (reviewVersion === 'v1') {
    const gvk = `apiextensions.k8s.io/v1, Kind=ConversionReview`;
    const got = `${answer?.apiVersion ?? ''}, Kind=${answer?.kind ?? ''}`;
    if (got !== gvk) return `expected webhook response of ${gvk}, got ${got.startsWith(', ') ? `/${got}` : got}`;
  }
  const response = answer?.response;
  if (!response || typeof response !== 'object') return 'no response provided';
  if (reviewVersion === 'v1' && response.uid !== uid) return `expected response.uid=${JSON.stringify(uid)}, got ${JSON.stringify(response.uid ?? '')}`;
  const status = response.result?.status ?? '';
  if (status !== 'Success') return response.result?.message || `response.result.status was '${status}', not 'Success'`;
  return undefined;
}

/** validateConvertedObject plus the group/version and kind checks, or undefined when the object is acceptable. */
function convertedProblem(original: any, out: any, desired: string): string | undefined {
  if (!out || typeof out !== 'object' || Array.isArray(out)) return 'invalid type, expected=Unstructured';
  if (out.apiVersion !== desired) return `invalid groupVersion (expected ${desired}, received ${out.apiVersion ?? ''})`;
  if (out.kind !== original.kind) return `invalid kind (expected ${original.kind}, received ${out.kind ?? ''})`;
  const m = original.metadata ?? {};
  const c = out.metadata ?? {};
  for (const [field, word] of [['name', 'name'], ['namespace', 'namespace'], ['uid', 'UID']] as const) {
    if ((m[field] ?? '') !== (c[field] ?? '')) return `must have the same ${word}: ${m[field] ?? ''} != ${c[field] ?? ''}`;
  }
  if (!out.metadata || typeof out.metadata !== 'object') return 'missing metadata in converted object';
  for (const f of ['labels', 'annotations']) {
    const v = c[f];
    if (v === undefined || v === null) continue;
    if (typeof v !== 'object' || Array.isArray(v)) return `invalid metadata.${f} in converted object`;
    for (const [k, x] of Object.entries(v)) if (typeof x !== 'string') return `metadata.${f}[${k}] must be a string in converted object`;
  }
  return undefined;
}

/** restoreObjectMeta: the original's metadata, with the converted object's labels and annotations. */
function withOriginalMetadata(original: any, out: any): any {
  const metadata = structuredClone(original.metadata ?? {});
  for (const f of ['labels', 'annotations']) {
    if (out.metadata[f] === undefined || out.metadata[f] === null) delete metadata[f];
    else metadata[f] = out.metadata[f];
  }
  return { ...out, metadata };
}

/** A plain error in upstream's response (ErrorToAPIStatus of a non-API error: 500, no reason). */
function failure(message: string): StatusError {
  return new StatusError({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, reason: '', code: 500 });
}
