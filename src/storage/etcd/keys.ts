/**
 * Key ranges in etcd's wire form. etcd compares keys as bytes, so a prefix's
 * range ends at the prefix with its last byte below 0xff incremented (clientv3.GetPrefixRangeEnd).
 */

/** etcd's "\0": as a range end, every key from `key` on; as key and range end, all keys. */
const ALL = Buffer.from([0]);

export function prefixRangeEnd(prefix: Buffer): Buffer {
  for (let i = prefix.length - 1; i >= 0; i--) {
    if (prefix[i] < 0xff) {
      const end = Buffer.from(prefix.subarray(0, i + 1));
      end[i]++;
      return end;
    }
  }
  return ALL;
}

/** [key, range_end) of the keys under `prefix`, from `startKey` on when given; "" is every key. */
export function prefixRange(prefix: string, startKey?: string): { key: Buffer; range_end: Buffer } {
  const p = Buffer.from(prefix);
  const s = startKey === undefined ? p : Buffer.from(startKey);
  const start = Buffer.compare(s, p) > 0 ? s : p;
  return { key: start.length ? start : ALL, range_end: p.length ? prefixRangeEnd(p) : ALL };
}
