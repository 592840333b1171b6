/**
 * Strategy: what differs between kinds in the generic create/update/delete flow
 * (upstream's RESTCreateStrategy/RESTUpdateStrategy/RESTDeleteStrategy).
 * `prepare*` may mutate; `validate*` returns field errors and never throws.
 */
import type { FieldError } from '../api/field-errors.js';
import type { DeleteOptions } from './types.js';
import type { Unstructured } from '../api/unstructured.js';

export interface Strategy {
  /** The kind has a /status subresource: the main resource ignores status, /status ignores the rest. */
  hasStatus: boolean;
  /** Defaulting, as the decoder does on every request body. */
  applyDefaults(obj: any): void;
  /** Clear what a client may not set at creation (status when hasStatus), set generation. */
  prepareForCreate(obj: any): void;
  /** Keep old status on main-resource updates; bump generation when the spec changed. */
  prepareForUpdate(obj: any, old: any): void;
  /**
   * prepareForUpdate only reads the old object (no status to keep, nothing else copied from it):
   * an update whose new object shares nothing with the old one (server-side apply builds it
   * afresh) may then be prepared against the watch cache's shared copy, without a private one.
   */
  updateCopiesNothingOfOld?: boolean;
  /**
   * Subresource updates keep what the subresource does not own as stored: /status keeps the old spec (everything but status
   * and metadata); `subresource` is 'status', 'approval' (CSRs) or 'ephemeralcontainers' (pods: only spec.ephemeralContainers changes).
   */
  prepareForStatusUpdate(obj: any, old: any, subresource?: string): void;
  validate(obj: any): FieldError[];
  /** `subresource` is 'status', 'approval' ... for subresource writes. */
  validateUpdate(obj: any, old: any, subresource?: string): FieldError[];
  /** Upstream's WarningsOnCreate: what a valid object is warned about (pod specs and templates). */
  warningsOnCreate?(obj: Unstructured): string[] | undefined;
  /** Upstream's WarningsOnUpdate, for writes of the main resource (subresources have none). */
  warningsOnUpdate?(obj: Unstructured, old: Unstructured): string[] | undefined;
  /**
   * The grace period a delete waits for (pods: until the kubelet confirms); 0 deletes at once.
   * Returns undefined for kinds without graceful deletion.
   */
  gracePeriod?(obj: any, options: DeleteOptions): number | undefined;
  /**
   * Kind-specific reasons to keep a deleted object (namespaces wait for their
   * spec.finalizers). Called on delete; may mark the object (status.phase).
   */
  holdDeletion?(obj: any): boolean;
  /**
   * For a version served beside the kind's storage version (autoscaling/v1
   * HorizontalPodAutoscalers over stored v2): objects are converted on every
   * write and read, so both versions share one key space.
   */
  conversion?: StorageConversion;
}

export interface StorageConversion {
  /** The served object in the storage version (apiVersion and kind set). */
  toStorage(obj: any): any;
  /** A stored object in the served version. */
  fromStorage(obj: any): any;
}
