/**
 * `readlink [-n] FILE...`, as busybox's applet and coreutils' answer it,
 * over the container's files' stat (file-stat.ts, proc-files.ts):
 *
 *  1. A symlink: its target, a line each (-n: without the newline).
 *  2. Anything else (a file, a directory, nothing there): no output and
 *     exit 1, as both do without -v.
 *  3. -f, -e, -m (canonical paths) are not simulated, and say so.
 */
import { posix } from 'node:path';
import type { FileStat } from './file-stat.js';

export interface ReadlinkIO {
  cwd: string;
  stat(path: string): FileStat | undefined;
  out(stream: 'stdout' | 'stderr', text: string): void;
}

export function readlink(args: string[], io: ReadlinkIO): number {
  let newline = true;
  const files: string[] = [];
  for (const a of args) {
    if (a === '-n') newline = false;
    else if (a.startsWith('-') && a !== '-') { io.out('stderr', `readlink: option ${a} is not simulated by k8ts's simulated shell\n`); return 1; }
    else files.push(a);
  }
  if (!files.length) { io.out('stderr', 'readlink: missing operand\n'); return 1; }
  let status = 0;
  for (const f of files) {
    const s = io.stat(posix.resolve(io.cwd, f));
    if (s?.type !== 'link' || s.target === undefined) { status = 1; continue; }
    io.out('stdout', newline ? `${s.target}\n` : s.target);
  }
  return status;
}
