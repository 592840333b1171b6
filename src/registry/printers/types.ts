/**
 * The shapes of a meta.k8s.io/v1 Table as kube-apiserver's server-side printers
 * produce them (pkg/printers/internalversion/printers.go).
 */
/** meta/v1 TableColumnDefinition. `priority: 1` marks a column kubectl shows only with `-o wide`. */
export interface ColumnDefinition {
  name: string;
  /** OpenAPI type of the cells: string, integer, number, boolean, date. */
  type: string;
  /** 'name' for the column that holds the object's name, else ''. */
  format: string;
  description: string;
  priority: number;
}

/** meta/v1 TableRowCondition: upstream marks finished pods `Completed`. */
export interface TableRowCondition {
  type: string;
  status: string;
  reason?: string;
  message?: string;
}

export interface TableRow {
  cells: unknown[];
  conditions?: TableRowCondition[];
}

/** What a printer may read besides the object: the clock, so tests control AGE. */
export interface PrintContext {
  now: Date;
}

/**
 * One kind's printer: its columns, in upstream's order, and one row per object.
 * `row` always returns every column's cell (the server prints with Wide: true).
 */
export interface KindPrinter {
  columns: ColumnDefinition[];
  /** A method, so each kind's printer may take its own type (Pod, Service ...). */
  row(obj: object, ctx: PrintContext): TableRow;
}
