/**
 * Where the last N lines of a file start (the kubelet's
 * tail.FindTailLineStartIndex): read backwards in blocks counting newlines.
 * An incomplete last line (no newline yet) is not counted as a line, so it
 * follows the N lines it selects.
 */
import type { FileHandle } from 'node:fs/promises';

const blockSize = 1024;
const NEWLINE = 0x0a;

export async function tailLineStart(fh: FileHandle, n: number): Promise<number> {
  if (n < 0) return 0;
  const size = (await fh.stat()).size;
  let left = 0;
  let count = 0;
  let buf = Buffer.alloc(0);
  for (let right = size; right > 0 && count <= n; right -= blockSize) {
    left = Math.max(0, right - blockSize);
    buf = Buffer.alloc(right - left);
    await fh.read(buf, 0, buf.length, left);
    for (const b of buf) if (b === NEWLINE) count++;
  }
  for (; count > n; count--) {
    const idx = buf.indexOf(NEWLINE) + 1;
    buf = buf.subarray(idx);
    left += idx;
  }
  return left;
}
