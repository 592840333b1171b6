/**
 * Decoding checks on request bodies, as upstream's decoder makes them:
 * wrong JSON types always fail (400); unknown and duplicate fields fail under
 * fieldValidation=Strict and become Warning headers under Warn (the default).
 * Under Ignore and Warn the unknown fields are then dropped from `obj`, as
 * decoding into the Go types drops them: they are never stored.
 */
import type { ServerResponse } from 'node:http';
import { badRequest } from '../api/status.js';
import { findTypeErrors, findUnknownFields, pruneUnknownFields } from '../api/schema/index.js';
import { warningHeaderValues } from './warnings.js';
import { bodyStrictFailure, cannotHandle, checkFields, strictErrors, type RawBody, type StrictFailure, type TypeFailure } from './field-checks.js';
import type { Store } from '../registry/store.js';
import { CustomResourceStore } from '../registry/custom/store.js';
import { pruneUnknown } from '../api/apiextensions/pruning.js';

export { checkFields, type RawBody, type StrictFailure, type TypeFailure };

const objectMetaDefinition = 'io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta';

/** The decoding checks of an endpoint's body: the Go types' for built-in kinds, the structural schema's for custom resources. */
export function checkBodyFields(store: Store, obj: unknown, mode: string | undefined, res: ServerResponse, raw?: RawBody, leading: string[] = [], strictFailure?: StrictFailure,
  typeFailure?: TypeFailure): void {
  if (store instanceof CustomResourceStore) checkCustomFields(store, obj, mode, res, raw, leading, strictFailure);
  else checkFields(store.info, obj, mode, res, raw, leading, strictFailure, typeFailure);
}

/**
 * A custom resource body: metadata decodes as ObjectMeta (its type errors are
 * 400s), then fields the structural schema does not specify are pruned
 * (upstream's unstructured decoder), reported as unknown fields under Warn and
 * Strict. Wrong value types are left for schema validation (422), as upstream.
 */
export function checkCustomFields(store: CustomResourceStore, obj: any, mode: string | undefined, res: ServerResponse, raw?: RawBody, leading: string[] = [],
  strictFailure = bodyStrictFailure(store.info)): void {
  const { info } = store;
  const meta = obj?.metadata;
  const typeErrors = meta === undefined ? [] : findTypeErrors(objectMetaDefinition, meta);
  if (typeErrors.length) throw badRequest(`${cannotHandle(info)}: ${typeErrors[0]}`);
  const unknown = [
    ...(meta === undefined ? [] : findUnknownFields(objectMetaDefinition, meta).map((f) => `metadata.${f}`)),
    ...pruneUnknown(store.custom.schema, obj),
  ];
  if (meta !== undefined) pruneUnknownFields(objectMetaDefinition, meta);
  if (mode === 'Ignore') return;
  const errors = [...leading, ...strictErrors(unknown, obj, raw)];
  if (errors.length && mode === 'Strict') throw strictFailure(errors);
  if (errors.length) res.setHeader('Warning', warningHeaderValues(errors));
}

