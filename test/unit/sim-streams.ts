/**
 * Driving a simulated container's exec as the kubelet server would: the
 * request for a command, and what its streams carried once it ended.
 */
import type { LocalStream, StreamRequest } from '../../src/kubelet/runtime/runtime.js';

/** An exec of `cmd` with stdout and stderr, no stdin and no tty unless `o` says otherwise. */
export const execRequest = (cmd: string[], o: Partial<StreamRequest> = {}): StreamRequest => ({ cmd, stdin: false, stdout: true, stderr: true, tty: false, ...o });

/** The stream's stdout, stderr and exit code, read until it ends (and the last chunks delivered). */
export async function collect(s: LocalStream): Promise<{ out: string; err: string; code: number }> {
  let out = '';
  let err = '';
  s.stdout.on('data', (d: Buffer) => { out += d.toString(); });
  s.stderr?.on('data', (d: Buffer) => { err += d.toString(); });
  const code = await s.done;
  await new Promise((r) => setImmediate(r));
  return { out, err, code };
}

/**
 * Waits until the simulated runtime has started the pod's containers: a pod
 * naming a ConfigMap or Secret starts once they are read (start-checks.ts), a
 * few promise turns after syncPod.
 */
export async function containersStarted(rt: { status(uid: string): { containers: unknown[] } | undefined }, uid: string): Promise<void> {
  for (let i = 0; i < 100 && !rt.status(uid)?.containers.length; i++) await new Promise((r) => setImmediate(r));
}
