/**
 * Reads the launcher's script (main.cjs, ~3.6 MB) in 64 KiB pieces instead of readFileSync.
 *
 * Why: Node 20's readFileSync(file, 'utf8') appends the file to a C++ string that doubles as it
 * grows (256 KiB, 512 KiB ... 4 MiB), each step a malloc above glibc's mmap threshold and its free
 * a munmap. glibc then raises that threshold to the largest chunk freed (4 MiB) and its trim
 * threshold to twice that, for the rest of the process: frees in the malloc arenas no longer go
 * back to the system, and `k8ts up` idled with ~12 MB of free but resident malloc memory
 * (malloc_trim released it; so did MALLOC_MMAP_THRESHOLD_ fixed at 128 KiB, which is the same
 * thing). Pieces below the threshold come from the arena and leave it as it was.
 *
 * The bundle is ASCII only (scripts/ascii-only.mjs), so each piece decodes alone (latin1 is then
 * utf-8); a file that is not falls back to readFileSync, which decodes utf-8 across pieces.
 */
import { closeSync, fstatSync, openSync, readFileSync, readSync } from 'node:fs';
import { isAscii } from 'node:buffer';

/** Below glibc's default mmap threshold (128 KiB), so the buffer is an arena chunk. */
export const pieceBytes = 64 * 1024;

/** The file's text; `bytes` sets the piece size (tests). */
export function readScriptSource(file: string, bytes = pieceBytes): string {
  const fd = openSync(file, 'r');
  try {
    const piece = Buffer.allocUnsafeSlow(bytes);
    const parts: string[] = [];
    for (;;) {
      const n = readSync(fd, piece, 0, bytes, null);
      if (n === 0) break;
      const chunk = piece.subarray(0, n);
      if (!isAscii(chunk)) return readFileSync(file, 'utf8');
      parts.push(chunk.toString('latin1'));
    }
    return parts.join('');
  } finally {
    closeSync(fd);
  }
}

/**
 * glibc raises its mmap threshold only to chunks of at most 32 MiB (DEFAULT_MMAP_THRESHOLD_MAX on
 * 64-bit, mallopt(3)); a larger one is mapped and unmapped without moving it.
 */
export const beyondDynamicThreshold = 32 * 1024 * 1024 + 4096;

/**
 * The file's bytes (the V8 code cache, ~2.5 MB, which V8 needs in one piece), in a buffer reserved
 * past 32 MiB: freed after the compile, a buffer of the file's own size would raise glibc's mmap
 * and trim thresholds as readFileSync does above; this one does not. Only the pages read into are
 * ever resident (a fresh mapping is untouched memory), so the reservation costs address space only.
 */
export function readLargeFile(file: string): Buffer {
  const fd = openSync(file, 'r');
  try {
    const size = fstatSync(fd).size;
    const buf = Buffer.allocUnsafeSlow(Math.max(size, beyondDynamicThreshold));
    let at = 0;
    while (at < size) {
      const n = readSync(fd, buf, at, size - at, null);
      if (n === 0) break;
      at += n;
    }
    return buf.subarray(0, at);
  } finally {
    closeSync(fd);
  }
}
