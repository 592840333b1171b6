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
import { validateRules } from '../../api/apiextensions/cel.js';
import type { FieldError } from '../../api/field-errors.js';
import type { CustomVersion } from './catalogue.js';

export function customResourceStrategy(v: CustomVersion): Strategy {
  const { info, schema } = v;
  const checkSchema = (obj: any, old?: any): FieldError[] => [
    ...validateValue(schema, obj, ''),
    ...validateRules(schema, obj, old, ''),
  ];
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
