/**
 * What the process runtime keeps on disk so a restarted agent finds its
 * processes again (upstream keeps this in containerd; here it is the
 * kubelet's root dir):
 *
 *   <root dir>/pods/<uid>/process/pod.json                    the pod's name
 *   <root dir>/pods/<uid>/process/<container>_<n>/record.json  one instance: ID, pid, start time
 *   .../<container>_<n>/stdout, stderr                         what the process wrote (raw)
 *   .../<container>_<n>/exit                                   its exit code, written by the wrapper
 *   .../<container>_<n>/pumped.json                            how much of stdout/stderr is in the CRI log
 *
 * A pid alone could be reused by an unrelated process after a reboot or a
 * long outage: the process's start time (field 22 of /proc/<pid>/stat, in
 * clock ticks since boot) is recorded with it and must match.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { podDir } from '../cri/volumes.js';

export interface InstanceRecord {
  /** The container ID (without the process:// scheme). */
  id: string;
  name: string;
  attempt: number;
  /** Whether it is an init container (a restarted agent reports it there). */
  init: boolean;
  image: string;
  pid: number;
  /** /proc/<pid>/stat starttime: tells our process from a later one with the same pid. */
  procStart: string;
  /** Whether the process runs in a private mount namespace (exec enters it). */
  mountNamespace: boolean;
  workingDir: string;
  createdAt: string;
  startedAt: string;
}

export interface PodRecord { uid: string; namespace: string; name: string }

export const processDir = (rootDir: string, uid: string) => join(podDir(rootDir, uid), 'process');
export const instanceDir = (rootDir: string, uid: string, name: string, attempt: number) => join(processDir(rootDir, uid), `${name}_${attempt}`);

function writeJSON(path: string, value: unknown): void {
  writeFileSync(`${path}.tmp`, JSON.stringify(value), { mode: 0o600 });
  renameSync(`${path}.tmp`, path);
}

function readJSON<T>(path: string): T | undefined {
  try { return JSON.parse(readFileSync(path, 'utf8')) as T; } catch { return undefined; }
}

export function writePodRecord(rootDir: string, rec: PodRecord): void {
  mkdirSync(processDir(rootDir, rec.uid), { recursive: true, mode: 0o700 });
  writeJSON(join(processDir(rootDir, rec.uid), 'pod.json'), rec);
}

export function writeInstanceRecord(dir: string, rec: InstanceRecord): void { writeJSON(join(dir, 'record.json'), rec); }

export function writePumped(dir: string, offsets: { stdout: number; stderr: number }): void { writeJSON(join(dir, 'pumped.json'), offsets); }

export function readPumped(dir: string): { stdout: number; stderr: number } {
  return readJSON(join(dir, 'pumped.json')) ?? { stdout: 0, stderr: 0 };
}

/** The exit code the wrapper recorded; undefined while it runs or when it was killed before it could write. */
export function readExitCode(dir: string): number | undefined {
  try {
    const n = Number.parseInt(readFileSync(join(dir, 'exit'), 'utf8').trim(), 10);
    return Number.isNaN(n) ? undefined : n;
  } catch { return undefined; }
}

/** Every pod with process records under the root dir, with its instances (for adoption at start). */
export function listRecords(rootDir: string): { pod: PodRecord; instances: { dir: string; rec: InstanceRecord }[] }[] {
  const pods = join(rootDir, 'pods');
  if (!existsSync(pods)) return [];
  const out = [];
  for (const uid of readdirSync(pods)) {
    const dir = processDir(rootDir, uid);
    const pod = readJSON<PodRecord>(join(dir, 'pod.json'));
    if (!pod) continue;
    const instances = readdirSync(dir, { withFileTypes: true }).filter((d) => d.isDirectory())
      .map((d) => ({ dir: join(dir, d.name), rec: readJSON<InstanceRecord>(join(dir, d.name, 'record.json')) }))
      .filter((i): i is { dir: string; rec: InstanceRecord } => !!i.rec);
    out.push({ pod, instances });
  }
  return out;
}

/** /proc/<pid>/stat: the state letter and the start time, or undefined when there is no such process. */
export function procStat(pid: number): { state: string; start: string } | undefined {
  let text: string;
  try { text = readFileSync(`/proc/${pid}/stat`, 'utf8'); } catch { return undefined; }
  // The command name (field 2) may hold spaces and parentheses: fields 3.. follow the last ')'.
  const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
  return { state: fields[0], start: fields[19] };
}

/** Whether the recorded process still runs (a zombie has ended). */
export function processAlive(rec: InstanceRecord): boolean {
  const st = procStat(rec.pid);
  return !!st && st.start === rec.procStart && st.state !== 'Z' && st.state !== 'X';
}
