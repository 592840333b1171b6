import type { ObjectMeta } from 'kubernetes-types/meta/v1.js';

/**
 * An object of any kind as it travels through the generic machinery (custom
 * resources, conversion, the watch cache): its type and metadata are known,
 * the rest is the kind's own (apimachinery's unstructured.Unstructured).
 */
export interface Unstructured {
  apiVersion?: string;
  kind?: string;
  metadata?: ObjectMeta;
  [field: string]: unknown;
}
