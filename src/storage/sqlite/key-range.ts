/**
 * Key ranges for prefix scans.
 *
 * SQLite compares TEXT with memcmp over UTF-8 (the BINARY collation), and UTF-8 byte order is
 * code point order. So the keys that start with `prefix` are exactly [prefix, successor), where
 * the successor bumps the last code point. A range condition (not LIKE or substr) lets SQLite
 * seek the index instead of scanning the table.
 */

export interface KeyRange {
  /** Inclusive lower bound. */
  from: string;
  /** Exclusive upper bound; absent when nothing bounds the prefix (the empty prefix). */
  to?: string;
}

/** The smallest string greater than every string that starts with `prefix`, if there is one. */
export function prefixSuccessor(prefix: string): string | undefined {
  const points = Array.from(prefix);
  while (points.length > 0) {
    const last = points.pop()!.codePointAt(0)!;
    if (last < 0x10ffff) {
      // Surrogate code points cannot be encoded in UTF-8; the next encodable one is U+E000.
      const next = last === 0xd7ff ? 0xe000 : last + 1;
      return points.join('') + String.fromCodePoint(next);
    }
  }
  return undefined;
}

/** The range of keys under `prefix`, starting at `startKey` when that lies further on. */
export function keyRange(prefix: string, startKey?: string): KeyRange {
  const to = prefixSuccessor(prefix);
  const from = startKey !== undefined && compareAsStored(startKey, prefix) > 0 ? startKey : prefix;
  return to === undefined ? { from } : { from, to };
}

/** Compare the way SQLite does (UTF-8 bytes); JS `<` compares UTF-16 units, which differs above U+FFFF. */
function compareAsStored(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'));
}

