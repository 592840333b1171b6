/**
 * Integer query parameters (limit, gracePeriodSeconds) as upstream's
 * parameter codec converts them: strconv.ParseInt(s, 10, 64), whose error
 * comes back verbatim as a 400 BadRequest (`strconv.ParseInt: parsing
 * "abc": invalid syntax`). An empty value is a value and fails the same way.
 */
import { badRequest } from '../../api/status.js';
import { query, type HandlerContext } from './context.js';

const int64Min = -(2n ** 63n);
const int64Max = 2n ** 63n - 1n;

/** strconv.ParseInt(s, 10, 64): the value, or upstream's error text. */
export function parseGoInt64(s: string): { value?: bigint; error?: string } {
  if (!/^[+-]?[0-9]+$/.test(s)) return { error: `strconv.ParseInt: parsing ${JSON.stringify(s)}: invalid syntax` };
  const value = BigInt(s);
  if (value < int64Min || value > int64Max) return { error: `strconv.ParseInt: parsing ${JSON.stringify(s)}: value out of range` };
  return { value };
}

/** The named query parameter as an int64 (a JS number; values past 2^53 round), undefined when absent. */
export function queryInt64(ctx: HandlerContext, name: string): number | undefined {
  const raw = query(ctx, name);
  if (raw === undefined) return undefined;
  const { value, error } = parseGoInt64(raw);
  if (error !== undefined) throw badRequest(error);
  return Number(value);
}
