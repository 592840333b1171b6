/**
 * The API's schemas, derived at build time from kubernetes-types
 * (scripts/gen-openapi.mjs -> generated/openapi-defs.json): the one source
 * for /openapi/v3, kubectl explain and strict field validation.
 */
export {
  definitionFor, definitionNameFor, gvkKey, openapiDefinitions, reachableDefinitions, refName, REF_PREFIX,
  type GroupVersionKind, type OpenAPISchema,
} from './definitions.js';
export { checkTypes, findTypeErrors, findUnknownFields, strictDecodingError } from './check.js';
export { pruneUnknownFields } from './prune.js';
export { findDuplicateFields, strictFieldErrors } from './duplicates.js';
export { fillNullItems } from './zero-values.js';
