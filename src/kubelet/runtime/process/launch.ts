/**
 * Starting one container as host processes:
 *
 *  1. The process is a session and process-group leader (setsid), so the
 *     whole container is signalled as one group and an agent that exits
 *     leaves it running.
 *  2. It starts as `unshare --mount --propagation private` when a volume
 *     must appear at a path other than its host path: in that private
 *     mount namespace each such volume is bind-mounted at its mountPath
 *     (read-only ones remounted read-only), invisible to the rest of the
 *     host. A missing mount point is created on the host first (an empty
 *     directory or file: host processes share the host's filesystem).
 *  3. A small POSIX sh wrapper (the same pid, through exec) runs the
 *     command in the background, waits for it and writes its exit status
 *     to a file, so an agent that did not start it (after a restart) still
 *     learns how it ended: 128+signal for a signal, as runc reports it.
 *     The wrapper traps SIGTERM, SIGINT, SIGHUP and SIGQUIT with a no-op,
 *     so a signal to the group ends the command and not the wrapper. (POSIX
 *     sh starts background commands with SIGINT and SIGQUIT ignored: a
 *     process container does not die of those two.)
 *  4. stdout and stderr go to files (append); the log pump turns them into
 *     the CRI log (and attach tails them). stdin is /dev/null, or with
 *     `stdin: true` a FIFO in the instance's directory that the command
 *     holds open for reading and writing, so it never reads EOF and an
 *     attach (even of a restarted agent) can write to it.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { closeSync, existsSync, mkdirSync, openSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type * as cri from '../cri/types.js';

export interface LaunchSpec {
  /** command and args, expanded. */
  argv: string[];
  env: Record<string, string>;
  workingDir: string;
  mounts: cri.Mount[];
  /** The instance's directory (stdout, stderr, exit, stdin). */
  dir: string;
  /** The container asked for stdin (`stdin: true`): its stdin is the FIFO `stdin` in dir, which attach writes to. */
  stdin?: boolean;
}

/** The FIFO an instance started with stdin reads. */
export const stdinFifo = (dir: string) => join(dir, 'stdin');

export const shellQuote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

/** Mounts whose volume is not already at its mountPath (hostPath at the same path needs nothing). */
export const bindMounts = (mounts: cri.Mount[]) => mounts.filter((m) => m.hostPath !== m.containerPath);

/** Creates the mount point on the host when missing, of the kind the source is. */
function ensureMountPoint(m: cri.Mount): void {
  if (existsSync(m.containerPath)) return;
  if (statSync(m.hostPath).isDirectory()) mkdirSync(m.containerPath, { recursive: true, mode: 0o755 });
  else {
    mkdirSync(dirname(m.containerPath), { recursive: true, mode: 0o755 });
    writeFileSync(m.containerPath, '', { mode: 0o644 });
  }
}

export function wrapperScript(mounts: cri.Mount[], workingDir: string, stdin = false): string {
  const lines = ['e=$1; shift'];
  if (stdin) lines.push('i=$1; shift');
  for (const m of mounts) {
    lines.push(`mount --bind ${shellQuote(m.hostPath)} ${shellQuote(m.containerPath)} || exit 128`);
    if (m.readonly) lines.push(`mount -o remount,bind,ro ${shellQuote(m.containerPath)} || exit 128`);
  }
  if (workingDir) lines.push(`cd ${shellQuote(workingDir)} || exit 128`);
  lines.push(
    // stdin read and written: the command's own write end means no EOF between attaches (stdinOnce is not honoured).
    stdin ? '"$@" 0<>"$i" &' : '"$@" &', 'c=$!', 'trap : TERM INT HUP QUIT',
    // wait returns early when a trapped signal arrives: wait again while the command runs.
    'while :; do wait "$c"; s=$?; kill -0 "$c" 2>/dev/null || break; done',
    'echo "$s" > "$e.tmp" && mv "$e.tmp" "$e"', 'exit "$s"',
  );
  return lines.join('\n');
}

export function launch(spec: LaunchSpec): { child: ChildProcess; mountNamespace: boolean } {
  const mounts = bindMounts(spec.mounts);
  for (const m of mounts) ensureMountPoint(m);
  const script = wrapperScript(mounts, spec.workingDir, spec.stdin);
  if (spec.stdin) execFileSync('mkfifo', ['-m', '600', stdinFifo(spec.dir)]);
  const sh = ['/bin/sh', '-c', script, 'k8ts-process', join(spec.dir, 'exit'), ...(spec.stdin ? [stdinFifo(spec.dir)] : []), ...spec.argv];
  const argv = mounts.length ? ['unshare', '--mount', '--propagation', 'private', '--', ...sh] : sh;
  const out = openSync(join(spec.dir, 'stdout'), 'a', 0o600);
  const err = openSync(join(spec.dir, 'stderr'), 'a', 0o600);
  try {
    const child = spawn(argv[0], argv.slice(1), { detached: true, stdio: ['ignore', out, err], env: spec.env, cwd: '/' });
    child.unref();
    return { child, mountNamespace: mounts.length > 0 };
  } finally {
    closeSync(out);
    closeSync(err);
  }
}

/** The executable of argv[0] as a shell would find it through PATH; undefined when there is none. */
export function lookPath(file: string, path: string | undefined): string | undefined {
  const executable = (p: string) => { try { return statSync(p).isFile() && (statSync(p).mode & 0o111) !== 0; } catch { return false; } };
  // A path is left to the shell (it may be relative to workingDir or under a mount): exit 127 when missing.
  if (file.includes('/')) return file;
  for (const dir of (path ?? '').split(':')) if (dir && executable(join(dir, file))) return join(dir, file);
  return undefined;
}
