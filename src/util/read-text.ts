/**
 * A file's UTF-8 text, read in 64 KiB pieces: for files of hundreds of KiB that a long-running
 * process reads once (generated/openapi-defs.json, 822 KiB, on the first request that needs a schema).
 *
 * Why not readFileSync(file, 'utf8'): Node 20 reads into a C++ string that doubles as it grows, so
 * an 822 KiB file ends in a 1 MiB malloc above glibc's mmap threshold (128 KiB), and its free, an
 * munmap, makes glibc raise that threshold to 1 MiB and its trim threshold to 2 MiB for the rest of
 * the process (mallopt(3), M_MMAP_THRESHOLD). After that, memory freed in the malloc arenas (the
 * TLS handshakes', the platform threads' compiler zones) stays resident: `k8ts up` idled with
 * ~7 MB of free memory in its threads' arenas (bench/RESULTS.md, `startup-2026-12-05`). A 64 KiB
 * piece is an arena chunk and leaves the thresholds as they were. read-script.ts does the same for
 * the launcher's 3.6 MB script.
 */
import { closeSync, openSync, readSync } from 'node:fs';
import { StringDecoder } from 'node:string_decoder';

/** Below glibc's default mmap threshold (128 KiB): an arena chunk, reused piece after piece. */
const pieceBytes = 64 * 1024;

/** The whole file as UTF-8 text (a character split between two pieces decoded whole); `bytes` sets the piece size (tests). */
export function readTextInPieces(file: string, bytes = pieceBytes): string {
  const fd = openSync(file, 'r');
  try {
    const piece = Buffer.allocUnsafeSlow(bytes);
    const decoder = new StringDecoder('utf8');
    const parts: string[] = [];
    for (;;) {
      const n = readSync(fd, piece, 0, bytes, null);
      if (n === 0) break;
      parts.push(decoder.write(piece.subarray(0, n)));
    }
    parts.push(decoder.end());
    return parts.join('');
  } finally {
    closeSync(fd);
  }
}
