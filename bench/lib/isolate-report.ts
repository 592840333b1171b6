/**
 * A running `k8ts server`'s memory by isolate, read the way an operator would: SIGUSR2 makes the
 * server log one `memory by isolate` line (src/cli/heap-report.ts), and with
 * K8TS_HEAP_SNAPSHOT_DIR set in its environment it also writes a heap snapshot of each isolate
 * and logs each one's heap used after the snapshot's full GC: the live heap, garbage excluded.
 */
import type { ServerProcess } from './server.js';

export interface HeapFields {
  usedMiB: number; totalMiB: number; externalMiB: number;
  /** Heap used after the isolate's last full collection (servers since mem6): about its live heap. */
  usedAfterFullGcMiB?: number;
  /** Committed MiB by space (new_space, old_space ...). */
  spacesMiB?: Record<string, number>;
}
export interface IsolateReport {
  rssMiB: number; externalMiB: number; arrayBuffersMiB: number; main: HeapFields; controlLoops?: HeapFields;
  /** With snapshots: each isolate's heap used after the snapshot's full GC, MiB ('serving', 'control loops'). */
  liveMiB?: Record<string, number>;
}

/**
 * Sends SIGUSR2 and waits for the server's `memory by isolate` line, and with `snapshots` for
 * the two `heap snapshot written` lines after it (handed to `log` as they come).
 */
export function isolateReport(server: ServerProcess, snapshots = false, log: (line: string) => void = () => undefined): Promise<IsolateReport> {
  return new Promise((resolve, reject) => {
    let buf = '';
    let report: IsolateReport | undefined;
    const live: Record<string, number> = {};
    let written = 0;
    const timer = setTimeout(() => { server.proc.stderr!.off('data', onData); reject(new Error('no memory report in 10 min')); }, 600_000);
    const onData = (d: Buffer) => {
      buf += d.toString();
      let nl: number;
      while ((nl = buf.indexOf('\n')) >= 0) {
        const line = buf.slice(0, nl);
        buf = buf.slice(nl + 1);
        if (line.includes('"heap snapshot written"')) {
          log(line);
          written++;
          const rec = JSON.parse(line) as { isolate: string; usedAfterGcMiB: number };
          live[rec.isolate] = rec.usedAfterGcMiB;
        }
        if (line.includes('"memory by isolate"')) report = JSON.parse(line) as IsolateReport;
        if (!report || (snapshots && written < 2)) continue;
        clearTimeout(timer);
        server.proc.stderr!.off('data', onData);
        resolve(snapshots ? { ...report, liveMiB: live } : report);
        return;
      }
    };
    server.proc.stderr!.on('data', onData);
    server.proc.kill('SIGUSR2');
  });
}
