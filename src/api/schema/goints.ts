/**
 * Which JSON numbers a Go integer field accepts. encoding/json parses the
 * number's text with strconv.ParseInt and refuses text that is not a plain
 * integer or overflows the field (`json: cannot unmarshal number 2147483648
 * into Go struct field DeploymentSpec.spec.replicas of type int32`).
 *
 * k8ts sees the number only after JSON.parse has made it a double, so:
 * - int32 is exact: every int32 is a double, and a double in range that is
 *   an integer was an integer in the text (or an exponent form such as `1e3`,
 *   which Go refuses and k8ts cannot tell apart).
 * - int64 above 2^53 (Number.MAX_SAFE_INTEGER) has already been rounded to
 *   the nearest double. k8ts accepts it and stores that double, as every
 *   JavaScript client does; only the low digits can differ from the request.
 *   The doubles ±2^63 are refused: they are what JSON.parse makes of any text
 *   within 512 of ±2^63, and JSON.stringify would write them back as
 *   `9223372036854776000`, which no Go client could read again. So the texts
 *   9223372036854775296..9223372036854775807 (and their negatives), which Go
 *   accepts, are the one range k8ts refuses that upstream takes.
 */

const int32Min = -(2 ** 31);
const int32Max = 2 ** 31 - 1;
/** 2^63 as a double: the first value outside int64 either way. */
const int64Bound = 2 ** 63;

/** True when the JSON number decodes into a Go integer of `goType` ('int32' or 'int64'). */
export function fitsGoInt(value: number, goType: string): boolean {
  if (!Number.isInteger(value)) return false;
  if (goType === 'int32') return value >= int32Min && value <= int32Max;
  return value > -int64Bound && value < int64Bound;
}

/**
 * The number as encoding/json quotes it (`number 2147483648`): Go prints the
 * request's text, which JSON.parse has dropped. An integral double below
 * 1e21 is printed with all its digits (2^63 as 9223372036854775808, not
 * String's 9223372036854776000); anything else as JavaScript writes it
 * (`1e+300`, `1.5`), which is the text for the usual spellings.
 */
export function goNumberText(value: number): string {
  return Number.isInteger(value) && Math.abs(value) < 1e21 ? BigInt(value).toString() : String(value);
}
