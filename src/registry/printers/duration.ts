/**
 * apimachinery pkg/util/duration HumanDuration and the printers' timestamp
 * helpers, with the same cut-offs so AGE reads exactly as upstream's:
 * "0s", "119s", "2m5s", "10m", "3h5m", "47h", "2d3h", "400d", "2y6d", "9y".
 */

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;

/** HumanDuration: ~2-3 significant figures of a duration given in milliseconds. */
export function humanDuration(ms: number): string {
  // Up to two seconds of clock skew (exclusive) reads as "now".
  const seconds = Math.trunc(ms / SECOND);
  if (seconds < -1) return '<invalid>';
  if (seconds < 0) return '0s';
  if (seconds < 60 * 2) return `${seconds}s`;
  const minutes = Math.trunc(ms / MINUTE);
  if (minutes < 10) {
    const s = seconds % 60;
    return s === 0 ? `${minutes}m` : `${minutes}m${s}s`;
  }
  if (minutes < 60 * 3) return `${minutes}m`;
  const hours = Math.trunc(ms / HOUR);
  if (hours < 8) {
    const m = minutes % 60;
    return m === 0 ? `${hours}h` : `${hours}h${m}m`;
  }
  if (hours < 48) return `${hours}h`;
  const days = Math.trunc(hours / 24);
  if (hours < 24 * 8) {
    const h = hours % 24;
    return h === 0 ? `${days}d` : `${days}d${h}h`;
  }
  if (hours < 24 * 365 * 2) return `${days}d`;
  const years = Math.trunc(days / 365);
  if (hours < 24 * 365 * 8) {
    const dy = days % 365;
    return dy === 0 ? `${years}y` : `${years}y${dy}d`;
  }
  return `${years}y`;
}

/** Milliseconds since the epoch of a metav1.Time / MicroTime, or undefined when unset (the zero time). */
export function parseTime(ts: unknown): number | undefined {
  if (typeof ts !== 'string' || ts === '') return undefined;
  const ms = Date.parse(ts);
  return Number.isNaN(ms) ? undefined : ms;
}

/** translateTimestampSince: "<unknown>" for an unset timestamp, else the HumanDuration since it. */
export function timestampSince(ts: unknown, now: Date): string {
  const ms = parseTime(ts);
  return ms === undefined ? '<unknown>' : humanDuration(now.getTime() - ms);
}
