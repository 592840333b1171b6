/**
 * PATCH with application/apply-patch+yaml: server-side apply. The body is
 * the manager's whole intent for the object (YAML or JSON); the store's
 * guaranteed update merges it into the live object under the schema
 * (api/managedfields) and records ownership. When the object does not exist
 * the apply creates it (201), as upstream's patcher does.
 */
import { StatusError, badRequest } from '../../api/status.js';
import { kindKey } from '../../api/resources.js';
import { applyConfiguration, resetFields } from '../../api/managedfields/index.js';
import { decodeBody, readBody } from '../body.js';
import { checkFields } from '../field-validation.js';
import { HandlerContext, query } from './context.js';
import { writeObject } from './crud.js';
import { readWriteOptions, isDryRun } from './write-options.js';

export const applyPatchMediaTypes = ['application/apply-patch+yaml', 'application/apply-patch+json'];

export function isApplyPatch(contentType: string): boolean {
  return applyPatchMediaTypes.includes(contentType.split(';')[0].trim());
}

export async function handleApply(ctx: HandlerContext): Promise<void> {
  const { store, info } = ctx;
  const { manager, force } = readWriteOptions(ctx, 'PatchOptions', true);
  const config = decodeApplyBody(await readBody(ctx.req));
  if (config === null || typeof config !== 'object' || Array.isArray(config)) throw badRequest('error decoding YAML: the apply configuration must be an object');
  checkApplyConfiguration(ctx, config);
  checkFields(store.info, config, query(ctx, 'fieldValidation'), ctx.res);
  const subresource = info.subresource === 'status' ? 'status' : undefined;
  const applyCtx = {
    kindKey: kindKey(store.info), apiVersion: store.apiVersion, manager, force, subresource, now: ctx.now,
    ignoredFields: resetFields(store.strategy.hasStatus, subresource, config),
  };
  const dryRun = isDryRun(ctx);
  const apply = (live: any) => {
    try {
      // The store moves resourceVersion after the managedFields this appends (withResourceVersionLast).
      return applyConfiguration(live, config, applyCtx);
    } catch (e) {
      if (e instanceof StatusError || !(e instanceof Error)) throw e;
      // A configuration the schema cannot type (a list item without its key). Upstream
      // answers this with a 500; it is the request's fault, so k8ts says 400.
      const where = `${info.namespace ? `${info.namespace}/` : ''}${info.name}; ${store.apiVersion}, Kind=${store.info.kind}`;
      throw badRequest(`failed to create typed patch object (${where}): ${e.message}`);
    }
  };
  // applyConfiguration builds a new object from the live one and never changes it (mutateCopies: no
  // private copy parsed for it), and the answer is only rendered (resultShared: the written object
  // becomes the watch cache's, not parsed back): two parses of the whole object fewer per apply.
  for (let attempt = 0; ; attempt++) {
    try {
      const updated = await store.guaranteedUpdate(info.namespace, info.name!, apply, { subresource, dryRun, signal: ctx.signalWhenNeeded, context: ctx.request, mutateCopies: true, resultShared: true });
      return writeObject(ctx, 200, updated);
    } catch (e: any) {
      if (e?.code !== 404 || subresource) throw e;
    }
    try {
      const created = await store.create(info.namespace, apply(undefined), { dryRun, context: ctx.request, resultShared: true, inputOwned: true });
      return writeObject(ctx, 201, created);
    } catch (e: any) {
      // Lost a race with another create: apply to what is there now.
      if (e?.code !== 409 || attempt > 0) throw e;
    }
  }
}

/** YAML, or JSON (a subset of YAML) read by the much faster JSON parser when it is JSON. */
function decodeApplyBody(buf: Buffer): unknown {
  const first = buf.find((b) => b !== 0x20 && b !== 0x0a && b !== 0x0d && b !== 0x09);
  if (first === 0x7b) {
    try { return decodeBody(buf, 'application/json', true); } catch { /* not JSON after all: YAML decides */ }
  }
  return decodeBody(buf, 'application/yaml', true);
}

/** Upstream's checks on the applied object before any merge. */
function checkApplyConfiguration(ctx: HandlerContext, config: any): void {
  const want = ctx.store.apiVersion;
  if (config.apiVersion !== want) {
    throw badRequest(`Incorrect version specified in apply patch. Specified patch version: ${config.apiVersion ?? ''}, expected: ${want}`);
  }
  if (config.kind !== ctx.store.info.kind) {
    throw badRequest(`the kind in the data (${config.kind ?? ''}) does not match the expected kind (${ctx.store.info.kind})`);
  }
  if (config.metadata?.managedFields != null) throw badRequest('metadata.managedFields must be nil');
  const name = config.metadata?.name;
  if (name !== undefined && name !== ctx.info.name) {
    throw badRequest(`the name of the object (${name}) does not match the name on the URL (${ctx.info.name})`);
  }
}
