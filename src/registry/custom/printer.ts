/**
 * The table of a custom resource (upstream's tableconvertor for CRDs): NAME,
 * then the version's additionalPrinterColumns in order, or, when it has none,
 * upstream's default column `Age` (.metadata.creationTimestamp, a date);
 * cells are read with the column's JSONPath, dates shown as ages.
 */
import type { Unstructured } from '../../api/unstructured.js';
import type { CustomResourceColumnDefinition } from '../../api/apiextensions/types.js';
import { column, nameColumn } from '../printers/columns.js';
import { humanDuration } from '../printers/duration.js';
import type { KindPrinter } from '../printers/index.js';

const defaultColumns: CustomResourceColumnDefinition[] = [{
  name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp',
  description: 'CreationTimestamp is a timestamp representing the server time when this object was created.',
}];

export function customResourcePrinter(given: CustomResourceColumnDefinition[]): KindPrinter {
  const columns = given.length ? given : defaultColumns;
  return {
    columns: [nameColumn(), ...columns.map((c) => column(c.name, c.description ?? '', { type: c.type, format: c.format ?? '', priority: c.priority ?? 0 }))],
    row(obj: Unstructured, ctx) {
      return { cells: [obj.metadata?.name ?? '', ...columns.map((c) => cell(c, jsonPathValue(obj, c.jsonPath), ctx.now))] };
    },
  };
}

/** A cell as upstream prints it: dates as age, other values as they are, absent as null. */
function cell(c: CustomResourceColumnDefinition, v: unknown, now: Date): unknown {
  if (v === undefined) return null;
  if (c.type === 'date' && typeof v === 'string') {
    const t = Date.parse(v);
    return Number.isNaN(t) ? v : humanDuration(Math.max(0, now.getTime() - t));
  }
  if (typeof v === 'object' && v !== null) return JSON.stringify(v);
  return v;
}

/** The simple JSONPaths printer columns use: `.spec.replicas`, `.status.conditions[0].type`, `{.spec.x}`. */
export function jsonPathValue(obj: unknown, path: string): unknown {
  const p = path.replace(/^\{|\}$/g, '').replace(/^\./, '');
  let cur: unknown = obj;
  for (const part of p.split(/\.|(?=\[)/).filter(Boolean)) {
    const index = /^\[(\d+)\]$/.exec(part);
    const at = cur as Record<string, unknown> | null | undefined;
    cur = index ? at?.[Number(index[1])] : at?.[part.replace(/^\[['"]?|['"]?\]$/g, '')];
    if (cur === undefined) return undefined;
  }
  return cur;
}
