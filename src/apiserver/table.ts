/** Server-side printing: meta.k8s.io/v1 Table built from the registry's printers. */
import { printTableWith } from '../registry/printers/index.js';
import type { KindPrinter } from '../registry/printers/index.js';
import type { Store } from '../registry/store.js';

export type IncludeObject = 'None' | 'Metadata' | 'Object';

export function partialObjectMetadata(obj: any): any {
  return { kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1', metadata: obj.metadata };
}

/** `printer` for a subresource with a kind of its own (Scale); the store's kind otherwise. */
export function toTable(store: Store, objects: any[], listMeta: { resourceVersion?: string; continue?: string },
  include: IncludeObject, now: Date, printer: KindPrinter = store.tablePrinter()): any {
  const t = printTableWith(printer, objects, { now });
  const rows = t.rows.map((r, i) => {
    const row: any = { cells: r.cells };
    if (r.conditions) row.conditions = r.conditions;
    if (include === 'Metadata') row.object = partialObjectMetadata(objects[i]);
    else if (include === 'Object') row.object = objects[i];
    return row;
  });
  const metadata: any = { resourceVersion: listMeta.resourceVersion ?? '' };
  if (listMeta.continue) metadata.continue = listMeta.continue;
  return { kind: 'Table', apiVersion: 'meta.k8s.io/v1', metadata, columnDefinitions: t.columnDefinitions, rows };
}

export function includeObjectParam(v: string | null): IncludeObject {
  return v === 'None' || v === 'Object' ? v : 'Metadata';
}
