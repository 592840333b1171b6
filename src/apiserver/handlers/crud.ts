/** get, list, create, update, patch, delete and deletecollection on a resource. */
import type { ManagedFieldsEntry } from 'kubernetes-types/meta/v1.js';
import { kindKey, apiVersionOf } from '../../api/resources.js';
import { badRequest, invalidObject, storageRequestTooLarge, successStatus, unsupportedMediaType } from '../../api/status.js';
import { applyPatch, patchMediaTypes, patchStrictDecodingError, patchTypeError, patchTypeFromContentType, supportsStrategicMerge } from '../../api/patch/index.js';
import type { DeleteOptions } from '../../registry/types.js';
import type { ListResult } from '../../registry/store.js';
import { decodeBody, mediaType, readBody } from '../body.js';
import { renderedJSON } from '../../registry/watch-cache/rendered-json.js';
import { EncodedStatusError, writeJSON, writeJSONItems, writeObjectAs } from '../respond.js';
import { checkBodyFields, type RawBody } from '../field-validation.js';
import { CustomResourceStore } from '../../registry/custom/store.js';
import { heavyBodyBytes, readObjectBodyOffLoop, type ObjectBodyResult } from '../heavy/index.js';
import { findDuplicateFields, findTypeErrors } from '../../api/schema/index.js';
import { includeObjectParam, partialObjectMetadata, toTable } from '../table.js';
import type { KindPrinter } from '../../registry/printers/index.js';
import { HandlerContext, query } from './context.js';
import { clampToNumber, int64Param } from './params.js';
import { queryBool, validateListOptions } from '../../api/list-options.js';
import { hasProtobuf, protobufMediaType } from '../../api/protobuf/envelope.js';
import { dryRunErrors, isDryRun, readWriteOptions } from './write-options.js';
import { handleApply, isApplyPatch } from './apply.js';

export async function handleGet(ctx: HandlerContext): Promise<void> {
  const obj = await ctx.store.get(ctx.info.namespace, ctx.info.name!);
  writeObject(ctx, 200, obj);
}

/**
 * Renders one object as JSON or protobuf, a one-row Table, or PartialObjectMetadata, as negotiated;
 * `printer` prints a subresource's own kind (Scale) instead of the store's.
 */
export function writeObject(ctx: HandlerContext, code: number, obj: any, printer?: KindPrinter): void {
  if (ctx.rendering === 'table') {
    writeJSON(ctx.res, code, toTable(ctx.store, [obj], { resourceVersion: obj.metadata.resourceVersion }, includeObjectParam(ctx.url.searchParams.get('includeObject')), ctx.now, printer));
  } else if (ctx.rendering === 'partial') {
    writeObjectAs(ctx.res, code, partialObjectMetadata(obj), ctx.protobuf);
  } else if (!ctx.protobuf && obj?.kind !== 'Status') {
    // A written object may be the watch cache's copy (resultShared): its text is then its watchers' too.
    writeJSON(ctx.res, code, renderedJSON(obj));
  } else {
    writeObjectAs(ctx.res, code, obj, ctx.protobuf);
  }
}

/** An answer that is not the endpoint's object (a Status, a Scale, a deleted list), in the negotiated encoding. */
export const writeAnswer = (ctx: HandlerContext, code: number, obj: unknown) => writeObjectAs(ctx.res, code, obj, ctx.protobuf);

/** The kind of this endpoint's bodies (upstream's defaultGVK), for bodies without typeMeta. */
const bodyKind = (ctx: HandlerContext) => ({ apiVersion: ctx.store.apiVersion, kind: ctx.store.info.kind });

export async function handleList(ctx: HandlerContext): Promise<void> {
  // As upstream's ListResource: integer parameters are parsed first (400), then ListOptions validated (422).
  const limit = int64Param(ctx, 'limit');
  int64Param(ctx, 'timeoutSeconds');
  const opts = {
    labelSelector: query(ctx, 'labelSelector'), fieldSelector: query(ctx, 'fieldSelector'),
    limit: limit === undefined ? undefined : clampToNumber(limit), continue: query(ctx, 'continue'),
    resourceVersion: query(ctx, 'resourceVersion'), resourceVersionMatch: query(ctx, 'resourceVersionMatch'),
  };
  validateListOptions(opts);
  const protobufList = ctx.protobuf && hasProtobuf({ apiVersion: ctx.store.apiVersion, kind: ctx.store.info.listKind });
  if (ctx.rendering === 'json' && !protobufList) return writeJSONList(ctx, await ctx.store.listJSON(ctx.info.namespace, opts));
  const result = await ctx.store.list(ctx.info.namespace, opts);
  const listMeta = listMetaOf(result);
  if (ctx.rendering === 'table') {
    writeJSON(ctx.res, 200, toTable(ctx.store, result.items, listMeta, includeObjectParam(ctx.url.searchParams.get('includeObject')), ctx.now));
  } else if (ctx.rendering === 'partial') {
    writeAnswer(ctx, 200, { kind: 'PartialObjectMetadataList', apiVersion: 'meta.k8s.io/v1', metadata: listMeta, items: result.items.map(partialObjectMetadata) });
  } else {
    writeAnswer(ctx, 200, { kind: ctx.store.info.listKind, apiVersion: ctx.store.apiVersion, metadata: listMeta, items: result.items });
  }
}

/** ListMeta in upstream's field order: resourceVersion, continue, remainingItemCount. */
function listMetaOf(result: ListResult<unknown>): Record<string, unknown> {
  const listMeta: Record<string, unknown> = { resourceVersion: result.resourceVersion };
  if (result.continue) listMeta.continue = result.continue;
  if (result.remainingItemCount !== undefined) listMeta.remainingItemCount = result.remainingItemCount;
  return listMeta;
}

/** The JSON.stringify of the list object, put together from the items' JSON texts. */
function writeJSONList(ctx: HandlerContext, result: ListResult<string>): Promise<void> {
  const listMeta = listMetaOf(result);
  const { listKind } = ctx.store.info;
  const head = `{"kind":${JSON.stringify(listKind)},"apiVersion":${JSON.stringify(ctx.store.apiVersion)},"metadata":${JSON.stringify(listMeta)}`;
  return writeJSONItems(ctx.res, 200, `${head},"items":[`, result.items, ']}');
}

/** A create's read: its field manager in, and the managedFields a worker computed for it out (create-preflight.ts). */
interface CreateRead { manager: string; managedFields?: ManagedFieldsEntry[] }

/** The body of a create or update. Custom resources have no protobuf form: their bodies are JSON or YAML only. */
function readObjectBytes(ctx: HandlerContext): Promise<Buffer> {
  if (ctx.store instanceof CustomResourceStore && mediaType(ctx.req) === protobufMediaType) {
    ctx.req.resume();
    throw unsupportedMediaType(customResourceMediaTypes);
  }
  return readBody(ctx.req);
}

/**
 * The decoding of a body already read: the same body gives an equal object each time.
 * A small body is decoded at once and its object returned as is (no promise made for it).
 */
function objectFromBody(ctx: HandlerContext, buf: Buffer, create?: CreateRead): any {
  const type = mediaType(ctx.req);
  const builtIn = !(ctx.store instanceof CustomResourceStore);
  // A large body is decoded and checked in the heavy lane; the loop serves others meanwhile.
  const read = readObjectBodyOffLoop({
    body: buf, type, into: bodyKind(ctx), endpoint: ctx.store.info, endpointApiVersion: ctx.store.apiVersion,
    fieldValidation: query(ctx, 'fieldValidation'), builtIn, create: create !== undefined, dryRun: isDryRun(ctx), protobufAnswer: ctx.protobuf,
    // Only a worker's preflight reads it (a small create is tracked by the store, as before).
    manager: create && buf.byteLength >= heavyBodyBytes ? { name: create.manager, hasStatus: ctx.store.strategy.hasStatus } : undefined,
  });
  return read instanceof Promise ? read.then((r) => objectFromRead(ctx, buf, type, builtIn, r, create)) : objectFromRead(ctx, buf, type, builtIn, read, create);
}

function objectFromRead(ctx: HandlerContext, buf: Buffer, type: string, builtIn: boolean, { obj, warnings, refusal, raw, managedFields }: ObjectBodyResult, create?: CreateRead): any {
  if (warnings !== undefined) ctx.res.setHeader('Warning', warnings);
  if (refusal) throw 'invalid' in refusal ? new EncodedStatusError(refusal.invalid, `${ctx.store.info.kind} "${refusal.name}" is invalid`) : storageRequestTooLarge();
  if (create && managedFields) create.managedFields = managedFields;
  if (builtIn) return obj;
  const source: RawBody | undefined = raw ?? (type === protobufMediaType ? undefined : { text: buf.toString('utf8'), yaml: type === 'application/yaml' });
  checkBodyFields(ctx.store, obj, query(ctx, 'fieldValidation'), ctx.res, source);
  return obj;
}


export async function handleCreate(ctx: HandlerContext): Promise<void> {
  const { manager } = readWriteOptions(ctx, 'CreateOptions');
  const read: CreateRead = { manager };
  // The body as an object of this endpoint's kind (missing apiVersion/kind default to it), checked as
  // upstream's decoder checks it. Not through an async helper (a promise and two microtask turns a
  // create): a small body's object comes back as is, a large one's from the heavy lane as a promise.
  const decoded = objectFromBody(ctx, await readObjectBytes(ctx), read);
  const obj = decoded instanceof Promise ? await decoded : decoded;
  // The answer is only rendered: the created object may be the watch cache's copy (resultShared).
  // A JSON body was parsed for this request alone: the create mutates it rather than a copy.
  const inputOwned = mediaType(ctx.req) === 'application/json';
  const created = await ctx.store.create(ctx.info.namespace, obj, { dryRun: isDryRun(ctx), fieldManager: { manager }, resultShared: true, inputOwned, context: ctx.request,
    managedFields: read.managedFields });
  writeObject(ctx, 201, created);
}

/** Subresources that write the object itself, recorded in managedFields under their name (as upstream's per-endpoint field managers). */
const managedSubresources: ReadonlySet<string | undefined> = new Set([undefined, 'status', 'ephemeralcontainers']);

/** Main resource, status and ephemeralcontainers writes are recorded in managedFields; other subresources are not. */
function fieldManagerFor(ctx: HandlerContext, manager: string) {
  const sub = ctx.info.subresource;
  return managedSubresources.has(sub) ? { manager, subresource: sub } : undefined;
}

export async function handleUpdate(ctx: HandlerContext): Promise<void> {
  const { manager } = readWriteOptions(ctx, 'UpdateOptions');
  const buf = await readObjectBytes(ctx);
  // Read before decoding: a body the heavy lane reads is moved to its worker (empty here after).
  const decodedOnLoop = buf.byteLength < heavyBodyBytes;
  const obj = await objectFromBody(ctx, buf);
  // The body was decoded for this request alone: the update mutates it rather than a copy, and a
  // retry after a lost race decodes the body again (a Lease renewal, a kubelet's status write).
  // Not a body the heavy lane read: its bytes were moved to the worker, so a retry copies the
  // decoded object instead.
  const updated = await ctx.store.update(ctx.info.namespace, ctx.info.name!, obj, {
    subresource: ctx.info.subresource, dryRun: isDryRun(ctx), fieldManager: fieldManagerFor(ctx, manager), signal: ctx.signalWhenNeeded, resultShared: true, context: ctx.request,
    inputAgain: decodedOnLoop ? () => objectFromBody(ctx, buf) : undefined,
  });
  writeObject(ctx, 200, updated);
}

export async function handlePatch(ctx: HandlerContext): Promise<void> {
  const ct = mediaType(ctx.req);
  if (isApplyPatch(ct)) return handleApply(ctx);
  const type = patchTypeFromContentType(ct);
  const key = kindKey(ctx.store.info);
  const strategic = supportsStrategicMerge(key);
  if (!type || (type === 'strategic' && !strategic)) throw unsupportedMediaType(patchMediaTypes(strategic));
  const { manager } = readWriteOptions(ctx, 'PatchOptions');
  const buf = await readBody(ctx.req);
  const patch = decodeBody(buf, 'application/json', true);
  const mode = query(ctx, 'fieldValidation');
  const duplicates = mode === 'Ignore' ? [] : patchDuplicateFields(type, buf.toString('utf8'), patch);
  const updated = await ctx.store.guaranteedUpdate(ctx.info.namespace, ctx.info.name!, (cur) => {
    const next = applyPatch(type, cur, patch, key);
    // Upstream answers a patch's strict decoding errors with 422 on the field `patch`, not a body's 400.
    checkBodyFields(ctx.store, next, mode, ctx.res, undefined, duplicates, (errors) => patchStrictDecodingError(type, patch, next, errors),
      (error) => patchTypeError(type, patch, next, error));
    return next;
  }, { subresource: ctx.info.subresource, dryRun: isDryRun(ctx), fieldManager: fieldManagerFor(ctx, manager), signal: ctx.signalWhenNeeded, resultShared: true, context: ctx.request });
  writeObject(ctx, 200, updated);
}

const customResourceMediaTypes = ['application/json', 'application/yaml'];

/**
 * The patch body's own duplicate fields, which upstream's patcher reports
 * ahead of the patched object's unknown fields (a JSON patch's as `json patch duplicate field ...`).
 */
function patchDuplicateFields(type: string, text: string, patch: unknown): string[] {
  const prefix = type === 'json' ? 'json patch ' : '';
  return findDuplicateFields(text, patch).map((p) => `${prefix}duplicate field ${JSON.stringify(p)}`);
}

const deleteOptionsDefinition = 'io.k8s.apimachinery.pkg.apis.meta.v1.DeleteOptions';
const deleteOptionsKind = { apiVersion: 'meta.k8s.io/v1', kind: 'DeleteOptions' };

/** DeleteOptions from the body (kubectl sends one) and the query string. */
export async function readDeleteOptions(ctx: HandlerContext): Promise<DeleteOptions> {
  const buf = await readBody(ctx.req);
  const opts: DeleteOptions = buf.length && buf.toString().trim() ? decodeBody(buf, mediaType(ctx.req), false, deleteOptionsKind) : {};
  // The envelope's typeMeta is not an option (a JSON body may carry the same two fields).
  if (mediaType(ctx.req) === protobufMediaType) { delete (opts as any).kind; delete (opts as any).apiVersion; }
  // Decoding into upstream's typed DeleteOptions refuses wrong JSON types (`"dryRun": 1`) before any use.
  const typeErrors = findTypeErrors(deleteOptionsDefinition, opts);
  if (typeErrors.length) throw badRequest(typeErrors[0]);
  const grace = int64Param(ctx, 'gracePeriodSeconds');
  if (grace !== undefined) opts.gracePeriodSeconds = clampToNumber(grace);
  const policy = query(ctx, 'propagationPolicy');
  if (policy) opts.propagationPolicy = policy as DeleteOptions['propagationPolicy'];
  if (query(ctx, 'orphanDependents') !== undefined) opts.orphanDependents = queryBool(query(ctx, 'orphanDependents'));
  // The query's dryRun unless the body has its own (upstream decodes the query, then the body over it).
  const queryDryRun = ctx.url.searchParams.getAll('dryRun');
  if (opts.dryRun === undefined && queryDryRun.length) opts.dryRun = queryDryRun;
  const dryRunErrs = dryRunErrors(opts.dryRun ?? []);
  if (dryRunErrs.length) throw invalidObject('DeleteOptions', 'meta.k8s.io', '', dryRunErrs);
  if (opts.propagationPolicy && !['Orphan', 'Background', 'Foreground'].includes(opts.propagationPolicy)) {
    throw badRequest(`DeleteOptions.meta.k8s.io "" is invalid: propagationPolicy: Unsupported value: "${opts.propagationPolicy}": supported values: "Foreground", "Background", "Orphan", "nil"`);
  }
  return opts;
}

export async function handleDelete(ctx: HandlerContext): Promise<void> {
  const opts = await readDeleteOptions(ctx);
  const dry = (opts.dryRun ?? []).includes('All');
  const { obj, deleted } = await ctx.store.delete(ctx.info.namespace, ctx.info.name!, opts, dry, ctx.signalWhenNeeded, ctx.request);
  if (!deleted) return writeObject(ctx, 200, obj);
  writeAnswer(ctx, 200, successStatus({ name: obj.metadata.name, group: ctx.store.info.group, kind: ctx.store.info.plural, uid: obj.metadata.uid }));
}

export async function handleDeleteCollection(ctx: HandlerContext): Promise<void> {
  const opts = await readDeleteOptions(ctx);
  // A dry run asked in the body (client-go's DeleteCollection sends its DeleteOptions there) deletes nothing either.
  const dry = (opts.dryRun ?? []).includes('All');
  const { items } = await ctx.store.list(ctx.info.namespace, { labelSelector: query(ctx, 'labelSelector'), fieldSelector: query(ctx, 'fieldSelector') });
  const out: any[] = [];
  for (const item of items) {
    try {
      out.push((await ctx.store.delete(item.metadata.namespace, item.metadata.name, opts, dry, ctx.signalWhenNeeded, ctx.request)).obj);
    } catch (e: any) {
      if (e?.code !== 404) throw e;
    }
  }
  writeAnswer(ctx, 200, { kind: ctx.store.info.listKind, apiVersion: apiVersionOf(ctx.store.info), metadata: {}, items: out });
}
