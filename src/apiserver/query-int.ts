/**
 * Integer query parameters as upstream decodes them into ListOptions
 * (apimachinery's Convert_Slice_string_To_int64: strconv.ParseInt(s, 10, 64)),
 * refusing with its words what Go refuses: 400 BadRequest
 * `strconv.ParseInt: parsing "x": invalid syntax` or `... value out of range`.
 * Values past 2^53 are held at Number.MAX_SAFE_INTEGER: as a limit that still
 * means "everything", and SQLite refuses a non-integer bind.
 */
import { badRequest } from '../api/status.js';

const int64Max = 2n ** 63n - 1n;

export function parseInt64Param(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  if (!/^[+-]?\d+$/.test(value)) throw badRequest(`strconv.ParseInt: parsing ${JSON.stringify(value)}: invalid syntax`);
  const n = BigInt(value);
  if (n > int64Max || n < -int64Max - 1n) throw badRequest(`strconv.ParseInt: parsing ${JSON.stringify(value)}: value out of range`);
  return Math.max(Math.min(Number(n), Number.MAX_SAFE_INTEGER), Number.MIN_SAFE_INTEGER);
}
