/**
 * Cuts `object.metadata.managedFields` out of one watch event's JSON text
 * before it is parsed, for informers that drop managedFields anyway (the
 * controller manager's and the scheduler's, as upstream's
 * TransformStripManagedFields): the parsed object is exactly what
 * JSON.parse followed by stripManagedFields gives, without building the
 * managedFields entries (a pod's are about half its objects) only to throw
 * them away. In the control loops' thread, parsing watch events was the
 * largest cost of a DaemonSet rollout (bench/RESULTS.md, ds-ab and ds-decode).
 *
 * The text is cut only where it is certainly that member: the first
 * `"managedFields":[` found outside every string (inside a JSON string each
 * `"` is escaped, so the pattern can only match a key; the scan checks it
 * anyway), whose enclosing objects are the event's `object` and its
 * `metadata`. Anything else (a custom resource with a field of that name
 * elsewhere, text the scan does not understand) is returned unchanged and
 * parsed whole, so the transform's strip still applies.
 */

const QUOTE = 34; // "
const BACKSLASH = 92; // \
const OPEN_OBJ = 123; // {
const CLOSE_OBJ = 125; // }
const OPEN_ARR = 91; // [
const CLOSE_ARR = 93; // ]
const COMMA = 44; // ,

const member = '"managedFields":[';

/** The index just after the string that opens at `start` (a `"`), or -1 if it does not end. */
function stringEnd(text: string, start: number): number {
  let j = text.indexOf('"', start + 1);
  while (j >= 0) {
    let k = j - 1;
    while (text.charCodeAt(k) === BACKSLASH) k--;
    if ((j - 1 - k) % 2 === 0) return j + 1; // an even number of backslashes: the quote ends the string
    j = text.indexOf('"', j + 1);
  }
  return -1;
}

/**
 * Whether the member at `at` sits directly in `object.metadata` of the event
 * (`bare`: in `metadata` of the object the text is, an answer's body):
 * walks the text before it, keeping the key that opened each enclosing
 * object or array. False if `at` falls inside a string.
 */
function inObjectMetadata(text: string, at: number, bare = false): boolean {
  // For each open container, the [start, end) of the string before it (its key), or -1.
  const keyStart: number[] = [];
  const keyEnd: number[] = [];
  let lastStart = -1;
  let lastEnd = -1;
  let i = 0;
  while (i < at) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      const e = stringEnd(text, i);
      if (e < 0 || e > at) return false;
      lastStart = i + 1;
      lastEnd = e - 1;
      i = e;
      continue;
    }
    if (c === OPEN_OBJ || c === OPEN_ARR) { keyStart.push(lastStart); keyEnd.push(lastEnd); lastStart = -1; } else if (c === CLOSE_OBJ || c === CLOSE_ARR) { keyStart.pop(); keyEnd.pop(); } else if (c === COMMA) lastStart = -1;
    i++;
  }
  const keyIs = (d: number, name: string) => keyStart[d] >= 0 && keyEnd[d] - keyStart[d] === name.length && text.startsWith(name, keyStart[d]);
  if (bare) return keyStart.length === 2 && keyIs(1, 'metadata');
  return keyStart.length === 3 && keyIs(1, 'object') && keyIs(2, 'metadata');
}

/** The index just after the `]` closing the array that opens at `open`, or -1. */
function arrayEnd(text: string, open: number): number {
  let depth = 0;
  let i = open;
  const n = text.length;
  while (i < n) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      const e = stringEnd(text, i);
      if (e < 0) return -1;
      i = e;
      continue;
    }
    if (c === OPEN_OBJ || c === OPEN_ARR) depth++;
    else if ((c === CLOSE_OBJ || c === CLOSE_ARR) && --depth === 0) return i + 1;
    i++;
  }
  return -1;
}

/**
 * `line` (one watch event, compact JSON) without object.metadata.managedFields, or `line` itself when
 * it has none or the cut is not certain. `bare`: `line` is one object (a write's answer), cut is its
 * own metadata.managedFields.
 */
export function skipManagedFields(line: string, bare = false): string {
  const at = line.indexOf(member);
  if (at < 0 || !inObjectMetadata(line, at, bare)) return line;
  const end = arrayEnd(line, at + member.length - 1);
  if (end < 0) return line;
  // Take one comma with the member: the one before it, or else the one after it. The server's
  // JSON is compact; text with spaces around the member is left whole.
  if (line.charCodeAt(at - 1) === COMMA) return line.slice(0, at - 1) + line.slice(end);
  if (line.charCodeAt(at - 1) === OPEN_OBJ && line.charCodeAt(end) === COMMA) return line.slice(0, at) + line.slice(end + 1);
  if (line.charCodeAt(at - 1) === OPEN_OBJ && line.charCodeAt(end) === CLOSE_OBJ) return line.slice(0, at) + line.slice(end);
  return line;
}
