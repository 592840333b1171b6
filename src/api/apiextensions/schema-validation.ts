/**
 * Whether a CRD's openAPIV3Schema is structural and uses only what upstream
 * allows (apiextensions-apiserver pkg/apiserver/schema/validation.go and
 * validation.go's specStandardValidatorV3): every specified field has a type,
 * arrays have items, no additionalProperties at the root or beside
 * properties, no $ref/definitions/patternProperties, patterns compile, CEL
 * rules compile.
 */
import type { Schema } from './types.js';
import { FieldError, forbidden, invalid, notSupported, required } from '../field-errors.js';
import { compileRule } from './cel.js';
import { patternError } from './re2.js';

type Level = 'root' | 'item' | 'field';
const openapiTypes = ['array', 'boolean', 'integer', 'number', 'object', 'string'];
const notSupportedKeys: [string, string][] = [
  ['id', 'id is not supported'], ['additionalItems', 'additionalItems is not supported'],
  ['patternProperties', 'patternProperties is not supported'], ['definitions', 'definitions is not supported'],
  ['dependencies', 'dependencies is not supported'], ['$ref', '$ref is not supported'],
];

export function validateStructuralSchema(schema: Schema, path: string): FieldError[] {
  return walk(schema, 'root', path);
}

function walk(s: Schema | undefined, lvl: Level, path: string): FieldError[] {
  if (!s || typeof s !== 'object') return [];
  const x = s as Record<string, any>;
  const errs: FieldError[] = [];
  if (s.type !== undefined && !openapiTypes.includes(s.type)) {
    errs.push(s.type === 'null' ? forbidden(`${path}.type`, 'type cannot be set to null, use nullable as an alternative') : notSupported(`${path}.type`, s.type, openapiTypes));
  }
  for (const [k, why] of notSupportedKeys) if (x[k] !== undefined) errs.push(forbidden(`${path}.${k}`, why));
  if (Array.isArray(x.items)) errs.push(forbidden(`${path}.items`, 'items must be a schema object and not an array'));
  if (s.uniqueItems) errs.push(forbidden(`${path}.uniqueItems`, 'uniqueItems cannot be set to true since the runtime complexity becomes quadratic'));
  if (s.properties && s.additionalProperties !== undefined && s.additionalProperties !== false) {
    errs.push(forbidden(`${path}.additionalProperties`, 'additionalProperties and properties are mutual exclusive'));
  }
  if (s['x-kubernetes-preserve-unknown-fields'] === false) errs.push(invalid(`${path}.x-kubernetes-preserve-unknown-fields`, false, 'must be true or undefined'));
  // Upstream compiles it with Go's regexp (RE2): lookarounds and backreferences are refused.
  const patternErr = s.pattern !== undefined ? patternError(s.pattern) : undefined;
  if (patternErr) errs.push(invalid(`${path}.pattern`, s.pattern, `must be a valid regular expression, but isn't: ${patternErr}`));
  if (s.type === 'array' && !s.items) errs.push(required(`${path}.items`, 'must be specified'));
  if (s.items && !Array.isArray(x.items)) errs.push(...walk(s.items as Schema, 'item', `${path}.items`));
  for (const [k, v] of Object.entries(s.properties ?? {})) errs.push(...walk(v, 'field', `${path}.properties[${k}]`));
  if (s.additionalProperties && typeof s.additionalProperties === 'object') {
    if (lvl === 'root') errs.push(forbidden(`${path}.additionalProperties`, 'must not be used at the root'));
    errs.push(...walk(s.additionalProperties as Schema, 'field', `${path}.additionalProperties`));
  }
  const embedded = s['x-kubernetes-embedded-resource'];
  if (embedded && s.type !== 'object') {
    errs.push(s.type ? invalid(`${path}.type`, s.type, 'must be object if x-kubernetes-embedded-resource is true') : required(`${path}.type`, 'must be object if x-kubernetes-embedded-resource is true'));
  } else if (!s.type && !s['x-kubernetes-int-or-string'] && !s['x-kubernetes-preserve-unknown-fields']) {
    const where = { root: 'must not be empty at the root', item: 'must not be empty for specified array items', field: 'must not be empty for specified object fields' }[lvl];
    errs.push(required(`${path}.type`, where));
  }
  if (lvl === 'root' && s.type && s.type !== 'object') errs.push(invalid(`${path}.type`, s.type, 'must be object at the root'));
  if (s['x-kubernetes-int-or-string'] && s['x-kubernetes-preserve-unknown-fields']) {
    errs.push(invalid(`${path}.x-kubernetes-preserve-unknown-fields`, true, 'must be false if x-kubernetes-int-or-string is true'));
  }
  errs.push(...validateRules(s, path));
  return errs;
}

/** x-kubernetes-validations: each rule present, compiling, and oldSelf only where a value can have an old one. */
function validateRules(s: Schema, path: string): FieldError[] {
  const errs: FieldError[] = [];
  (s['x-kubernetes-validations'] ?? []).forEach((rule, i) => {
    const at = `${path}.x-kubernetes-validations[${i}]`;
    if (!rule.rule) { errs.push(required(`${at}.rule`, 'rule is not specified')); return; }
    if (rule.message !== undefined && rule.message === '') errs.push(invalid(`${at}.message`, rule.message, 'must be non-empty if specified'));
    if (rule.message && /[\n\r]/.test(rule.message)) errs.push(invalid(`${at}.message`, rule.message, 'must not contain line breaks'));
    if (rule.reason !== undefined && !['FieldValueDuplicate', 'FieldValueForbidden', 'FieldValueInvalid', 'FieldValueRequired'].includes(rule.reason)) {
      errs.push(notSupported(`${at}.reason`, rule.reason, ['FieldValueDuplicate', 'FieldValueForbidden', 'FieldValueInvalid', 'FieldValueRequired']));
    }
    const compiled = compileRule(rule.rule);
    if (compiled.error) errs.push(invalid(`${at}.rule`, rule.rule, `compilation failed: ${compiled.error}`));
  });
  return errs;
}
