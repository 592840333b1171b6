/**
 * Subresources with a kind of their own: scale (autoscaling/v1 Scale),
 * binding (pods/binding), eviction (policy/v1 Eviction), CSR approval and
 * namespace finalize. status reuses the main handlers with subresource=status,
 * and so does pods/ephemeralcontainers (a Pod each way).
 */
import { badRequest, conflict, methodNotAllowed, unsupportedMediaType } from '../../api/status.js';
import type { Binding } from 'kubernetes-types/core/v1.js';
import { validateBindingCreate } from '../../api/validation/controllerrevision.js';
import { fieldErrorMessage } from '../../api/field-errors.js';
import { assignPod, checkBindingName } from '../../registry/pod-binding.js';
import { applyPatch, patchMediaTypes, patchStrictDecodingError, patchTypeFromContentType } from '../../api/patch/index.js';
import { selectorFromLabelSelector, selectorFromSet, selectorToString } from '../../api/labels.js';
import { pruneUnknownFields } from '../../api/schema/index.js';
import { kindKey } from '../../api/resources.js';
import { printerFor } from '../../registry/printers/index.js';
import { prepareFinalize } from '../../registry/strategies/namespaces.js';
import { decodeBody, mediaType, readBody } from '../body.js';
import { writeCreatedStatus } from '../respond.js';
import { checkFields } from '../field-validation.js';
import { HandlerContext, query } from './context.js';
import { handleGet, handlePatch, handleUpdate, writeAnswer, writeObject } from './crud.js';
import { CustomResourceStore } from '../../registry/custom/store.js';
import { readWriteOptions, isDryRun } from './write-options.js';
import { checkEvictionName, evictPod } from './eviction.js';

const scaleKind = { group: 'autoscaling', version: 'v1', kind: 'Scale' };

/** Where a kind keeps what Scale shows: built-in workloads' fields, or a CRD's scale subresource paths. */
interface ScalePaths { specReplicasPath: string; statusReplicasPath: string; labelSelectorPath?: string }

const workloadScale: ScalePaths = { specReplicasPath: '.spec.replicas', statusReplicasPath: '.status.replicas' };

const scalePathsOf = (ctx: HandlerContext): ScalePaths =>
  (ctx.store instanceof CustomResourceStore && ctx.store.custom.scale) || workloadScale;

const segments = (path: string) => path.replace(/^\./, '').split('.');

function readPath(obj: any, path: string): unknown {
  let cur = obj;
  for (const p of segments(path)) cur = cur?.[p];
  return cur;
}

function writePath(obj: any, path: string, value: unknown): void {
  const parts = segments(path);
  let cur = obj;
  for (const p of parts.slice(0, -1)) cur = (cur[p] ??= {});
  cur[parts[parts.length - 1]] = value;
}

export function toScale(obj: any, paths: ScalePaths = workloadScale): any {
  let selector = '';
  try {
    if (paths.labelSelectorPath) selector = String(readPath(obj, paths.labelSelectorPath) ?? '');
    // A ReplicationController's selector is a plain label map, the apps kinds' a LabelSelector.
    else if (paths === workloadScale && obj.spec?.selector) {
      selector = selectorToString(obj.kind === 'ReplicationController' ? selectorFromSet(obj.spec.selector) : selectorFromLabelSelector(obj.spec.selector));
    }
  } catch { /* an invalid selector cannot be stored; keep empty */ }
  return {
    kind: 'Scale', apiVersion: 'autoscaling/v1',
    metadata: {
      name: obj.metadata.name, namespace: obj.metadata.namespace, uid: obj.metadata.uid,
      resourceVersion: obj.metadata.resourceVersion, creationTimestamp: obj.metadata.creationTimestamp,
    },
    spec: { replicas: readPath(obj, paths.specReplicasPath) ?? 0 },
    status: { replicas: readPath(obj, paths.statusReplicasPath) ?? 0, selector },
  };
}

export async function handleScale(ctx: HandlerContext): Promise<void> {
  const { store, info } = ctx;
  const paths = scalePathsOf(ctx);
  // kubectl get deployment NAME --subresource=scale asks for a Table: Scale's own columns, as upstream's printScale.
  if (ctx.info.verb === 'get') return writeObject(ctx, 200, toScale(await store.get(info.namespace, info.name!), paths), printerFor('autoscaling/v1/Scale'));
  let patchOrScale: any;
  let patchType: ReturnType<typeof patchTypeFromContentType>;
  if (ctx.info.verb === 'patch') {
    patchType = patchTypeFromContentType(mediaType(ctx.req));
    if (!patchType) throw unsupportedMediaType(patchMediaTypes(true));
    patchOrScale = decodeBody(await readBody(ctx.req), 'application/json', true);
  } else if (ctx.info.verb === 'update') {
    patchOrScale = decodeBody(await readBody(ctx.req), mediaType(ctx.req), false, { apiVersion: 'autoscaling/v1', kind: 'Scale' });
  } else {
    throw methodNotAllowed();
  }
  const { manager } = readWriteOptions(ctx, patchType ? 'PatchOptions' : 'UpdateOptions');
  const updated = await store.guaranteedUpdate(info.namespace, info.name!, (cur) => {
    const scale = toScale(cur, paths);
    const next = patchType ? applyPatch(patchType, scale, patchOrScale, 'autoscaling/v1/Scale') : patchOrScale;
    // Decoded as an autoscaling/v1 Scale: spec.replicas must fit its int32.
    checkFields(scaleKind, next, query(ctx, 'fieldValidation'), ctx.res, undefined, [],
      patchType ? (errors) => patchStrictDecodingError(patchType!, patchOrScale, next, errors) : undefined);
    // An absent spec.replicas is 0, as it decodes into ScaleSpec's int32 (Go clients omit a zero: omitempty).
    const replicas = next?.spec?.replicas ?? 0;
    if (!Number.isInteger(replicas) || replicas < 0) {
      throw badRequest(`Scale.autoscaling "${info.name}" is invalid: spec.replicas: Invalid value: ${replicas}: must be greater than or equal to 0`);
    }
    const rv = next?.metadata?.resourceVersion;
    if (rv && rv !== cur.metadata.resourceVersion) throw conflict(store.gr, info.name!);
    writePath(cur, paths.specReplicasPath, replicas);
    return cur;
  }, { dryRun: isDryRun(ctx), fieldManager: { manager, subresource: 'scale' }, signal: ctx.signalWhenNeeded, context: ctx.request });
  writeAnswer(ctx, 200, toScale(updated, paths));
}

/**
 * POST pods/x/binding (and the legacy POST bindings, with the pod named in the body): upstream's
 * BindingREST.Create. The Binding is checked (its name, ValidatePodBinding) and admitted as a
 * CREATE of pods/binding, then assignPod writes the pod once (registry/pod-binding.ts).
 */
export async function handleBinding(ctx: HandlerContext, podName: string): Promise<void> {
  if (ctx.info.verb !== 'create') throw methodNotAllowed();
  const binding = decodeBody(await readBody(ctx.req), mediaType(ctx.req), false, { apiVersion: 'v1', kind: 'Binding' }) as Binding;
  const namespace = ctx.info.namespace!;
  const meta = (binding.metadata ??= {});
  // rest.EnsureObjectNamespaceMatchesRequestNamespace: an absent namespace is the request's.
  if (meta.namespace && meta.namespace !== namespace) throw badRequest('the namespace of the provided object does not match the namespace sent on the request');
  meta.namespace = namespace;
  checkBindingName(binding, podName);
  // ValidatePodBinding's errors, aggregated as upstream's ToAggregate words them.
  const errs = validateBindingCreate(binding).map(fieldErrorMessage);
  if (errs.length) throw badRequest(errs.length === 1 ? errs[0] : `[${errs.join(', ')}]`);
  const dryRun = isDryRun(ctx);
  await ctx.registry.admitSubresourceCreate({ ...ctx.store.info, kind: 'Binding' }, namespace, podName, binding, dryRun, ctx.request);
  await assignPod(ctx.store, namespace, podName, binding, { dryRun, signal: ctx.signalWhenNeeded, now: ctx.now });
  writeCreatedStatus(ctx.res, ctx.protobuf);
}

/** POST pods/x/eviction: a delete that PodDisruptionBudgets may refuse (eviction.ts). */
export async function handleEviction(ctx: HandlerContext): Promise<void> {
  if (ctx.info.verb !== 'create') throw methodNotAllowed();
  const eviction = decodeBody(await readBody(ctx.req), mediaType(ctx.req), false, { apiVersion: 'policy/v1', kind: 'Eviction' });
  checkEvictionName(eviction, ctx.info.name!);
  const pdbs = ctx.registry.store('policy', 'v1', 'poddisruptionbudgets')!;
  const dryRun = isDryRun(ctx) || (eviction.deleteOptions?.dryRun ?? []).includes('All');
  await evictPod({ pods: ctx.store, pdbs }, {
    namespace: ctx.info.namespace!, name: ctx.info.name!, deleteOptions: eviction.deleteOptions ?? {}, dryRun, now: ctx.now, context: ctx.request,
  });
  writeCreatedStatus(ctx.res, ctx.protobuf);
}

/**
 * GET, PUT or PATCH pods/x/ephemeralcontainers (upstream's EphemeralContainersREST): the
 * whole Pod goes both ways; the pod strategy keeps everything but spec.ephemeralContainers
 * as stored and ValidatePodEphemeralContainersUpdate lets them only be added.
 */
export async function handleEphemeralContainers(ctx: HandlerContext): Promise<void> {
  switch (ctx.info.verb) {
    case 'get': return handleGet(ctx);
    case 'update': return handleUpdate(ctx);
    case 'patch': return handlePatch(ctx);
    default: ctx.req.resume(); throw methodNotAllowed();
  }
}

/**
 * PUT or PATCH certificatesigningrequests/x/approval: only the Approved/Denied
 * conditions change (the CSR strategy keeps everything else as stored).
 */
export async function handleApproval(ctx: HandlerContext): Promise<void> {
  if (ctx.info.verb === 'get') return writeObject(ctx, 200, await ctx.store.get(undefined, ctx.info.name!));
  if (ctx.info.verb === 'patch') return handlePatch(ctx);
  if (ctx.info.verb !== 'update') throw methodNotAllowed();
  const body = decodeBody(await readBody(ctx.req), mediaType(ctx.req), false, { apiVersion: 'certificates.k8s.io/v1', kind: 'CertificateSigningRequest' });
  pruneUnknownFields(kindKey(ctx.store.info), body); // the conditions are kept as decoded into the Go type
  const updated = await ctx.store.guaranteedUpdate(undefined, ctx.info.name!, (cur) => {
    if (body?.metadata?.resourceVersion) cur.metadata.resourceVersion = body.metadata.resourceVersion;
    cur.status = { ...(cur.status ?? {}), conditions: body?.status?.conditions ?? [] };
    return cur;
  }, { subresource: 'approval', dryRun: isDryRun(ctx), signal: ctx.signalWhenNeeded, context: ctx.request });
  writeObject(ctx, 200, updated);
}

/** PUT namespaces/x/finalize: only spec.finalizers changes; an empty list lets deletion finish. */
export async function handleFinalize(ctx: HandlerContext): Promise<void> {
  if (ctx.info.verb !== 'update') throw methodNotAllowed();
  const body = decodeBody(await readBody(ctx.req), mediaType(ctx.req), false, { apiVersion: 'v1', kind: 'Namespace' });
  const updated = await ctx.store.guaranteedUpdate(undefined, ctx.info.name!, (cur) => prepareFinalize(body, cur), { dryRun: isDryRun(ctx), signal: ctx.signalWhenNeeded, context: ctx.request });
  writeObject(ctx, 200, updated);
}

