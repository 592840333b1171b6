/**
 * Managed fields and server-side apply (structured-merge-diff semantics):
 * field sets in FieldsV1, the typed schema of each kind, merge, compare,
 * and the Update and Apply operations the API server runs on every write.
 */
export { FieldSet, type FieldsV1 } from './set.js';
export { pathToString, type Path, type PathElement } from './path.js';
export { toFieldSet, compare } from './fieldset.js';
export { merge, removeItems } from './merge.js';
export { typeForKind, setSchemaSource, type SchemaSource } from './schema.js';
export { updateManagedFields, resetFields, type WriteContext } from './update.js';
export { applyConfiguration, lastAppliedAnnotation, type ApplyContext } from './apply.js';
export { decodeManagedFields, encodeManagedFields, managerIdentifier } from './managers.js';
export { conflictMessage } from './conflicts.js';
export type { TypeNode } from './types.js';
