/**
 * The store of one served version of a custom resource. Every version of a
 * CRD shares one key prefix (keys carry no version); with conversion
 * strategy None an object read through another version only changes its
 * apiVersion, and writes store the storage version's apiVersion.
 */
import { Store, type StoreDeps } from '../store.js';
import type { KeyValue } from '../../storage/backend.js';
import { apiVersionOf } from '../../api/resources.js';
import { applySchemaDefaults } from '../../api/apiextensions/defaulting.js';
import { compileSelection, type Selection } from '../selection.js';
import type { CustomVersion } from './catalogue.js';
import { customResourceStrategy } from './strategy.js';
import { customResourcePrinter } from './printer.js';
import type { KindPrinter } from '../printers/index.js';
import type { Unstructured } from '../../api/unstructured.js';

export class CustomResourceStore extends Store {
  private readonly printer: KindPrinter;

  constructor(readonly custom: CustomVersion, deps: StoreDeps) {
    super(custom.info, customResourceStrategy(custom), deps);
    this.printer = customResourcePrinter(custom.columns);
  }

  override tablePrinter(): KindPrinter { return this.printer; }

  override decode(kv: KeyValue): any {
    const obj = this.decodeStored(kv);
    obj.apiVersion = this.apiVersion;
    return obj;
  }

  /** The object in the version it is stored in, with that version's defaults. */
  protected decodeStored(kv: KeyValue): Unstructured {
    const obj = super.decode(kv);
    const storedVersion = typeof obj.apiVersion === 'string' ? obj.apiVersion.slice(obj.apiVersion.indexOf('/') + 1) : this.custom.storageVersion;
    const schema = this.custom.defaultingSchemas[storedVersion];
    if (schema) applySchemaDefaults(schema, obj);
    return obj;
  }

  override decodedJSON(kv: KeyValue): string {
    return JSON.stringify(this.decode(kv));
  }

  protected override encodeAs(): string {
    return apiVersionOf({ group: this.info.group, version: this.custom.storageVersion });
  }

  protected override selection(opts: { labelSelector?: string; fieldSelector?: string }): Selection {
    return compileSelection(this.info, opts, { fields: this.custom.selectableFields, get: (obj, f) => valueAt(obj, f) });
  }
}

/** The value at a dotted path (`spec.color`), as a field selector compares it: a string, "" when absent. */
function valueAt(obj: Unstructured, path: string): string {
  let cur: unknown = obj;
  for (const p of path.split('.')) cur = (cur as Record<string, unknown> | null | undefined)?.[p];
  return cur === undefined || cur === null ? '' : String(cur);
}
