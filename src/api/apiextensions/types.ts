/**
 * apiextensions.k8s.io/v1 types. The CRD kinds come from kubernetes-types;
 * its JSONSchemaProps lacks the x-kubernetes-* extensions (their names are
 * not identifiers), so `Schema` adds them, as upstream's types.go declares.
 */
import type { JSONSchemaProps, ValidationRule } from 'kubernetes-types/apiextensions/v1.js';

export type {
  CustomResourceDefinition, CustomResourceDefinitionCondition, CustomResourceDefinitionNames,
  CustomResourceDefinitionVersion, CustomResourceColumnDefinition, ValidationRule,
} from 'kubernetes-types/apiextensions/v1.js';

export interface Schema extends Omit<JSONSchemaProps, 'items' | 'properties' | 'additionalProperties' | 'allOf' | 'anyOf' | 'oneOf' | 'not'> {
  items?: Schema;
  properties?: Record<string, Schema>;
  additionalProperties?: Schema | boolean;
  allOf?: Schema[];
  anyOf?: Schema[];
  oneOf?: Schema[];
  not?: Schema;
  'x-kubernetes-preserve-unknown-fields'?: boolean;
  'x-kubernetes-int-or-string'?: boolean;
  'x-kubernetes-embedded-resource'?: boolean;
  'x-kubernetes-list-type'?: string;
  'x-kubernetes-list-map-keys'?: string[];
  'x-kubernetes-map-type'?: string;
  'x-kubernetes-validations'?: ValidationRule[];
}

export const crdGroup = 'apiextensions.k8s.io';
/** Upstream's CRD finalizer: the CRD stays until every custom resource of it is gone. */
export const customResourceCleanupFinalizer = 'customresourcecleanup.apiextensions.k8s.io';

export const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** A map value's schema: additionalProperties when it is a schema. */
export const additionalSchema = (s: Schema): Schema | undefined =>
  (s.additionalProperties && typeof s.additionalProperties === 'object' ? s.additionalProperties : undefined);
