/**
 * Warning response headers (`299 - "text"`), kept within bounds as
 * upstream's warning recorder keeps them (apiserver's
 * endpoints/filters/warning.go): past 4 KiB of warnings each text is cut to
 * 256 characters, and warnings that still do not fit are left out. Unbounded,
 * one unknown field with a 70 KB name made a header block no client reads
 * (Node's own limit is 16 KiB).
 */
const headerBytesLimit = 4 * 1024;
const truncateAt = 256;

export function warningHeaderValues(texts: readonly string[]): string[] {
  const all = texts.map(headerValue);
  if (size(all) <= headerBytesLimit) return all;
  const out: string[] = [];
  let total = 0;
  for (const text of texts) {
    const value = headerValue([...text].slice(0, truncateAt).join(''));
    if (total + value.length > headerBytesLimit) break;
    total += value.length;
    out.push(value);
  }
  return out;
}

const size = (values: string[]) => values.reduce((n, v) => n + v.length, 0);

/**
 * Header values must be ASCII here: Node refuses characters past U+00FF and
 * re-encodes the others, so a field named `Ā` failed the whole request. Go
 * would send the UTF-8 bytes; the warning carries JSON's \u escape (\u0100)
 * instead (as strconv.QuoteToASCII would), for DEL too.
 */
function headerValue(text: string): string {
  return `299 - ${JSON.stringify(text)}`.replace(/[^\x20-\x7e]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}
