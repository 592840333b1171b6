/**
 * A query over a key range, prepared twice: with an upper bound on the key and without one,
 * because the empty prefix has no successor. A single statement with "(@to IS NULL OR name < @to)"
 * would hide the bound from the planner and lose the index range scan.
 */
import type Database from 'better-sqlite3';
import type { KeyRange } from './key-range.js';

type Params = Record<string, string | number>;

export class RangedStatement<Row> {
  private readonly bounded: Database.Statement<[Params], Row>;
  private readonly unbounded: Database.Statement<[Params], Row>;

  /** `sql` receives the upper-bound condition ("AND <column> < @to" or "") to splice in. */
  constructor(db: Database.Database, column: string, sql: (upperBound: string) => string) {
    this.bounded = db.prepare<[Params], Row>(sql(`AND ${column} < @to`));
    this.unbounded = db.prepare<[Params], Row>(sql(''));
  }

  all(range: KeyRange, params: Params = {}): Row[] {
    return this.pick(range).all({ ...params, ...range });
  }

  /** For single-column results (count). */
  pluck(range: KeyRange, params: Params = {}): unknown {
    return this.pick(range).pluck().get({ ...params, ...range });
  }

  private pick(range: KeyRange): Database.Statement<[Params], Row> {
    return range.to === undefined ? this.unbounded : this.bounded;
  }
}
