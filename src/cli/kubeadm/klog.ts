/**
 * A klog line as kubeadm prints its warnings to stderr:
 * `Lmmdd hh:mm:ss.uuuuuu threadid file:line] message` (k8s.io/klog's header,
 * with the process id as the thread id and this program's file and line).
 */
import { basename } from 'node:path';

const pad = (n: number, w = 2) => String(n).padStart(w, '0');

/** The file:line of the caller's caller, from the stack (klog's caller depth 1). */
function caller(): string {
  const frame = (new Error().stack ?? '').split('\n')[3] ?? '';
  const m = /([^/\s(]+):(\d+):\d+\)?$/.exec(frame.trim());
  // The bundle's chunks are named NAME-HASH.js (esbuild): the source file is NAME.ts.
  return m ? `${basename(m[1]!).replace(/-[A-Z0-9]{8}\.js$/, '.js').replace(/\.js$/, '.ts')}:${m[2]}` : 'k8ts:0';
}

export function klogLine(severity: 'I' | 'W' | 'E', message: string, now = new Date()): string {
  const micros = pad(now.getMilliseconds(), 3) + '000';
  const header = `${severity}${pad(now.getMonth() + 1)}${pad(now.getDate())} ${pad(now.getHours())}:${pad(now.getMinutes())}:${pad(now.getSeconds())}.${micros}`;
  return `${header} ${String(process.pid).padStart(7)} ${caller()}] ${message}`;
}
