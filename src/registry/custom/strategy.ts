/**
 * The strategy of a custom resource version (upstream's customresource
 * strategy): defaults from the schema, ObjectMeta rules, the structural
 * schema's value checks and the CEL rules, status and spec split when the
 * status subresource is on (the generic strategy's handling).
 */
import { genericStrategy } from '../strategies/generic.js';
import type { Strategy } from '../strategy.js';
import { nameIsDNSSubdomain } from '../../api/names.js';
import { validateObjectMeta, validateObjectMetaUpdate } from '../../api/validation/objectmeta.js';
import { applySchemaDefaults } from '../../api/apiextensions/defaulting.js';
import { validateValue } from '../../api/apiextensions/value-validation.js';
import { schemaHasRules, validateRules } from '../../api/apiextensions/cel.js';
import type { FieldError } from '../../api/field-errors.js';
import type { CustomVersion } from './catalogue.js';

const blockingErrors = new Set(['FieldValueNotSupported', 'FieldValueRequired', 'FieldValueTooLong', 'FieldValueTooMany', 'FieldValueTypeInvalid']);
const rulesNotChecked = 'some validation rules were not checked because the object was invalid; correct the existing errors to complete validation';

export function customResourceStrategy(v: CustomVersion): Strategy {
  const { info, schema } = v;
  const hasRules = schemaHasRules(schema);
  const checkSchema = (obj: any, old?: any): FieldError[] => {
    const errs = validateValue(schema, obj, '');
    if (!hasRules) return errs;
    // Upstream (customresource strategy, hasBlockingErr): CEL's cost estimates assume the schema's
    // types and bounds hold, so rules do not run on an object that breaks them. Go prints the nil value as "null".
    if (errs.some((e) => blockingErrors.has(e.type))) return [...errs, { type: 'FieldValueInvalid', field: '<nil>', value: 'null', detail: rulesNotChecked }];
    return [...errs, ...validateRules(schema, obj, old, '')];
  };
  return genericStrategy(info, {
    applyDefaults: (obj) => applySchemaDefaults(schema, obj),
    validate: (obj) => [...validateObjectMeta(obj.metadata, info.namespaced, nameIsDNSSubdomain), ...checkSchema(obj)],
    validateUpdate: (obj, old) => [
      ...validateObjectMetaUpdate(obj.metadata, old.metadata),
      ...validateObjectMeta(obj.metadata, info.namespaced, nameIsDNSSubdomain).filter((e) => e.field !== 'metadata.name' || !obj.metadata?.name),
      ...checkSchema(obj, old),
    ],
  });
}
