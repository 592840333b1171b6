/**
 * CustomResourceDefinition validation, in the order and words of upstream's
 * apiextensions-apiserver pkg/apis/apiextensions/validation: the name is
 * plural.group, the group a domain with a dot, the scope one of two, names
 * DNS-1035 labels, exactly one storage version, every version with a
 * structural schema (schema-validation.ts), printer columns and scale paths.
 */
import type {
  CustomResourceColumnDefinition, CustomResourceDefinition, CustomResourceDefinitionNames, CustomResourceDefinitionVersion,
} from 'kubernetes-types/apiextensions/v1.js';
import { FieldError, forbidden, invalid, notSupported, required } from '../field-errors.js';
import { isDNS1035Label, isDNS1123Subdomain, nameIsDNSSubdomain } from '../names.js';
import { validateObjectMeta, validateObjectMetaUpdate } from '../validation/objectmeta.js';
import { GoValue } from '../field-errors.js';
import { validateStructuralSchema } from './schema-validation.js';
import { validateSchemaCost } from './cel-cost-check.js';
import { deepEqual } from '../validation/util.js';
import type { Schema } from './types.js';
import { appendAll } from '../append.js';

const printerColumnTypes = ['boolean', 'date', 'integer', 'number', 'string'];
const printerColumnFormats = ['byte', 'date', 'date-time', 'double', 'float', 'int32', 'int64', 'password'];

/** `old` is the CRD before an update: versions whose schema it shares skip the per-rule CEL cost limits, as upstream. */
export function validateCRDCreate(crd: CustomResourceDefinition, old?: CustomResourceDefinition): FieldError[] {
  const spec = crd.spec ?? ({} as CustomResourceDefinition['spec']);
  const wantName = `${spec.names?.plural ?? ''}.${spec.group ?? ''}`;
  const nameFn = (name: string, prefix: boolean) => {
    const errs = nameIsDNSSubdomain(name, prefix);
    if (name !== wantName) errs.push('must be spec.names.plural+"."+spec.group');
    return errs;
  };
  return [
    ...validateObjectMeta(crd.metadata, false, nameFn),
    ...validateSpec(crd, old),
    ...validateNames(crd.status?.acceptedNames, 'status.acceptedNames'),
    ...validateStoredVersions(crd),
  ];
}

export function validateCRDUpdate(crd: CustomResourceDefinition, old: CustomResourceDefinition): FieldError[] {
  const errs = validateObjectMetaUpdate(crd.metadata, old.metadata).concat(validateCRDCreate(crd, old).filter((e) => !e.field.startsWith('metadata.')));
  if (crd.spec?.scope !== old.spec?.scope && (old.status?.storedVersions?.length ?? 0) > 0) {
    // Upstream: scope may only change while nothing is stored.
    errs.push(invalid('spec.scope', crd.spec?.scope, 'field is immutable'));
  }
  return errs;
}

function validateSpec(crd: CustomResourceDefinition, old?: CustomResourceDefinition): FieldError[] {
  const spec: any = crd.spec ?? {};
  const errs: FieldError[] = [];
  if (!spec.group) errs.push(required('spec.group'));
  else if (isDNS1123Subdomain(spec.group).length) errs.push(invalid('spec.group', spec.group, isDNS1123Subdomain(spec.group).join(',')));
  else if (spec.group.split('.').length < 2) errs.push(invalid('spec.group', spec.group, 'should be a domain with at least one dot'));
  if (!spec.scope) errs.push(required('spec.scope'));
  else if (!['Cluster', 'Namespaced'].includes(spec.scope)) errs.push(notSupported('spec.scope', spec.scope, ['Cluster', 'Namespaced']));
  const versions: CustomResourceDefinitionVersion[] = Array.isArray(spec.versions) ? spec.versions : [];
  versions.forEach((v, i) => {
    if (!v.schema?.openAPIV3Schema) errs.push(required(`spec.versions[${i}].schema.openAPIV3Schema`));
  });
  let storage = 0;
  const seen = new Set<string>();
  let unique = true;
  versions.forEach((v, i) => {
    if (v.storage) storage++;
    if (seen.has(v.name)) unique = false;
    seen.add(v.name);
    const nameErrs = isDNS1035Label(v.name ?? '');
    if (nameErrs.length) errs.push(invalid(`spec.versions[${i}].name`, v.name, nameErrs.join(',')));
    const oldSchema = old?.spec?.versions?.find((o) => o.name === v.name)?.schema?.openAPIV3Schema;
    appendAll(errs, validateVersion(v, `spec.versions[${i}]`, oldSchema !== undefined && deepEqual(oldSchema, v.schema?.openAPIV3Schema)));
  });
  const shown = new GoValue('[]apiextensions.CustomResourceDefinitionVersion{...}');
  if (!unique) errs.push(invalid('spec.versions', shown, 'must contain unique version names'));
  if (storage !== 1) errs.push(invalid('spec.versions', shown, 'must have exactly one version marked as storage version'));
  const names = spec.names ?? {};
  if (!names.plural) errs.push(required('spec.names.plural'));
  if (!names.singular) errs.push(required('spec.names.singular'));
  if (!names.kind) errs.push(required('spec.names.kind'));
  if (!names.listKind) errs.push(required('spec.names.listKind'));
  appendAll(errs, validateNames(names, 'spec.names'));
  const strategy = spec.conversion?.strategy;
  if (strategy !== undefined && !['None', 'Webhook'].includes(strategy)) errs.push(notSupported('spec.conversion.strategy', strategy, ['None', 'Webhook']));
  if (strategy === 'Webhook' && !spec.conversion?.webhook?.clientConfig) errs.push(required('spec.conversion.webhookClientConfig', 'required when strategy is set to Webhook'));
  return errs;
}

function validateVersion(v: CustomResourceDefinitionVersion, path: string, schemaUnchanged: boolean): FieldError[] {
  const errs: FieldError[] = [];
  const schema = v.schema?.openAPIV3Schema;
  const hasStatus = !!v.subresources?.status;
  if (schema) {
    if (hasStatus && schema.type !== undefined && schema.type !== 'object') {
      errs.push(invalid(`${path}.schema.openAPIV3Schema.type`, schema.type, 'only "object" is allowed as the type at the root of the schema if the status subresource is enabled'));
    }
    if (schema.nullable) errs.push(forbidden(`${path}.schema.openAPIV3Schema.nullable`, 'nullable cannot be true at the root'));
    const structural = validateStructuralSchema(schema as Schema, `${path}.schema.openAPIV3Schema`);
    appendAll(errs, structural);
    // Upstream estimates CEL costs only on a valid structural schema.
    if (!structural.length) appendAll(errs, validateSchemaCost(schema as Schema, `${path}.schema.openAPIV3Schema`, schemaUnchanged));
  }
  (v.additionalPrinterColumns ?? []).forEach((c, i) => appendAll(errs, validateColumn(c, `${path}.additionalPrinterColumns[${i}]`)));
  const scale = v.subresources?.scale;
  if (scale) {
    if (!scale.specReplicasPath) errs.push(required(`${path}.subresources.scale.specReplicasPath`));
    else if (!scale.specReplicasPath.startsWith('.spec.')) errs.push(invalid(`${path}.subresources.scale.specReplicasPath`, scale.specReplicasPath, 'should be a json path under .spec'));
    if (!scale.statusReplicasPath) errs.push(required(`${path}.subresources.scale.statusReplicasPath`));
    else if (!scale.statusReplicasPath.startsWith('.status.')) errs.push(invalid(`${path}.subresources.scale.statusReplicasPath`, scale.statusReplicasPath, 'should be a json path under .status'));
    const sel = scale.labelSelectorPath;
    if (sel && !sel.startsWith('.spec.') && !sel.startsWith('.status.')) errs.push(invalid(`${path}.subresources.scale.labelSelectorPath`, sel, 'should be a json path under either .spec or .status'));
  }
  (v.selectableFields ?? []).forEach((f, i) => {
    if (!f.jsonPath) errs.push(required(`${path}.selectableFields[${i}].jsonPath`));
    else if (f.jsonPath.startsWith('.metadata')) errs.push(invalid(`${path}.selectableFields[${i}].jsonPath`, f.jsonPath, 'must not point to fields in metadata'));
  });
  return errs;
}

function validateColumn(c: CustomResourceColumnDefinition, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const types = `must be one of ${printerColumnTypes.join(',')}`;
  if (!c.name) errs.push(required(`${path}.name`));
  if (!c.type) errs.push(required(`${path}.type`, types));
  else if (!printerColumnTypes.includes(c.type)) errs.push(invalid(`${path}.type`, c.type, types));
  if (c.format && !printerColumnFormats.includes(c.format)) errs.push(invalid(`${path}.format`, c.format, `must be one of ${printerColumnFormats.join(',')}`));
  if (!c.jsonPath) errs.push(required(`${path}.JSONPath`));
  return errs;
}

/** ValidateCustomResourceDefinitionNames (spec.names and status.acceptedNames). */
export function validateNames(names: CustomResourceDefinitionNames | undefined, path: string): FieldError[] {
  const errs: FieldError[] = [];
  if (!names) return errs;
  const label = (v: string | undefined, field: string, prefix = '') => {
    if (!v) return;
    const e = isDNS1035Label(prefix ? v.toLowerCase() : v);
    if (e.length) errs.push(invalid(`${path}.${field}`, v, prefix + e.join(',')));
  };
  label(names.plural, 'plural');
  label(names.singular, 'singular');
  label(names.kind, 'kind', 'may have mixed case, but should otherwise match: ');
  label(names.listKind, 'listKind', 'may have mixed case, but should otherwise match: ');
  (names.shortNames ?? []).forEach((s, i) => label(s, `shortNames[${i}]`));
  if (names.kind && names.kind === names.listKind) errs.push(invalid(`${path}.listKind`, names.listKind, 'kind and listKind may not be the same'));
  (names.categories ?? []).forEach((s, i) => label(s, `categories[${i}]`));
  return errs;
}

function validateStoredVersions(crd: CustomResourceDefinition): FieldError[] {
  const stored = crd.status?.storedVersions;
  if (!stored?.length) return [];
  const versions = crd.spec?.versions ?? [];
  const errs: FieldError[] = [];
  stored.forEach((v, i) => {
    if (!versions.some((x) => x.name === v)) {
      errs.push(invalid(`status.storedVersions[${i}]`, v, `missing from spec.versions; ${v} was previously a storage version, and must remain in spec.versions until a storage migration ensures no data remains persisted in ${v} and removes ${v} from status.storedVersions`));
    }
  });
  const storage = versions.find((v) => v.storage)?.name;
  if (storage && !stored.includes(storage)) errs.push(invalid('status.storedVersions', stored, `must have the storage version ${storage}`));
  return errs;
}
