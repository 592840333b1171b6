/**
 * What a simulated container's command prints (shell.ts runs it): the
 * container's argv with the kubelet's $(VAR) expansion, its environment as
 * the kubelet builds it (env, envFrom, the downward API, service links) plus
 * what the image and the runtime add (PATH, HOSTNAME, HOME), and the files
 * of its ConfigMap, Secret and downward API volumes at their mount paths.
 */
import type { Container, Pod, Volume } from 'kubernetes-types/core/v1.js';
import { imageWorkingDir } from './image-workdir.js';
import { posix } from 'node:path';
import { containerEnv, expandVars } from '../cri/config.js';
import { fetchEnvSources, type EnvSources } from '../../envsources.js';
import type { PodObjectGetter } from '../../volumes/objects.js';
import { isProjectedVolume, volumePayload } from '../../volumes/projection.js';
import { throughDataDirectory } from './file-stat.js';
import type { NodeAllocatable } from '../../volumes/downward.js';
import { parseProgram, type Command, type ShellContext } from './shell.js';
import { imageContents } from './image-contents.js';
import { containerUser } from './identity.js';
import { mainProcessKey, pidOfProcess, visibleProcesses } from './processes.js';
import { PidNamespace } from './pid-namespace.js';

/** The simulated node's capacity as the downward API reads an unset limit (the simulator's default node). */
export const simulatedAllocatable: NodeAllocatable = { cpu: '4', memory: '8Gi' };

const argvOf = (c: Container) => [...(c.command ?? []), ...(c.args ?? [])];

/**
 * Whether the container's command is one the simulator runs, decided before
 * its environment is known: as written, or with each $(VAR) the kubelet
 * would expand taken as a plain word.
 */
export function runsProgram(c: Container): boolean {
  const argv = argvOf(c);
  // args alone run as the command of images without an entrypoint (busybox, alpine): `args: [sleep, "1000"]`.
  if (!argv.length) return false;
  return !!parseProgram(argv) || !!parseProgram(argv.map((a) => a.replace(/\$\(([A-Za-z_][A-Za-z0-9_.-]*)\)/g, 'x')));
}

export interface ProgramDeps {
  objects?: PodObjectGetter;
  nodeName: string;
  hostIP: string;
  podIP?: string;
  /** The ConfigMaps, Secrets and Services the instance started with (start-env.ts): a container's environment is fixed when it starts. */
  sources?: EnvSources;
  /** The PID namespace the container is in (pid-namespace.ts), kept by the runtime; absent: a new one each time. */
  pidNamespace?: PidNamespace;
}

/** The pod's hostname as the runtime sets it (the node's in the host's network: `kubectl debug node/N`; else spec.hostname, else the pod's name cut to 63 characters). */
const hostnameOf = (pod: Pod) => (pod.spec?.hostNetwork && pod.spec.nodeName) || (pod.spec?.hostname ?? (pod.metadata?.name ?? '').slice(0, 63).replace(/[-.]+$/, ''));

/** Volumes read without node access: ConfigMaps, Secrets, the downward API; projected ones with a token only where tokens are requested. */
const readable = (v: Volume, tokens: boolean) => !!(v.configMap || v.secret || v.downwardAPI || (v.projected && (tokens || !(v.projected.sources ?? []).some((s) => s.serviceAccountToken))));

/**
 * `serviceAccount`: the non-token parts of a projected service account volume
 * (ca.crt, namespace) are read too; `tokens`: its token as well, requested
 * from the API server when the node can (objects.serviceAccountToken), as
 * the kubelet writes it (a person's exec reads it: the Service Accounts page).
 */
export interface ViewOptions { serviceAccount?: boolean; tokens?: boolean }

/** A container's environment and files as a simulated command sees them (ShellContext without the clock and output). */
export type ContainerView = Omit<ShellContext, 'now' | 'sleep' | 'write'> & { refresh(): Promise<void>; workingDir: string };

/**
 * The program and what it reads, once the environment and volumes are
 * fetched; undefined when the expanded argv is not a program of the subset.
 */
export async function prepareProgram(pod: Pod, c: Container, deps: ProgramDeps & ViewOptions): Promise<{ program: Command[]; context: ContainerView } | undefined> {
  const { expand, context } = await containerView(pod, c, deps);
  const program = parseProgram(argvOf(c).map((a) => expandVars(a, expand)));
  return program && { program, context };
}

/**
 * What a command in the container sees: the kubelet's environment (for the
 * container's own command and for an exec alike) and the files of its
 * ConfigMap, Secret, downward API and projected volumes (ViewOptions).
 */
export async function containerView(pod: Pod, c: Container, deps: ProgramDeps & ViewOptions): Promise<{ expand: Map<string, string>; context: ContainerView }> {
  const sources = deps.sources ?? await fetchEnvSources(pod.metadata!.namespace!, c, deps.objects, pod.spec?.enableServiceLinks ?? true);
  const hostname = hostnameOf(pod);
  const kubeletEnv = containerEnv(pod, c, { nodeName: deps.nodeName, hostIP: deps.hostIP, podLogsDir: '', allocatable: simulatedAllocatable }, deps.podIP, sources);
  const expand = new Map(kubeletEnv.map((e) => [e.key, e.value]));
  const env = new Map<string, string>([['PATH', '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin'], ['HOSTNAME', hostname]]);
  // The image's ENV, where the simulation knows it (image-contents.ts); the kubelet's variables override it, as the runtime merges them.
  for (const [k, v] of imageContents(String(c.image ?? ''))?.env ?? []) env.set(k, v);
  for (const e of kubeletEnv) env.set(e.key, e.value);
  if (!env.has('HOME')) env.set('HOME', '/root');
  let files = new Map<string, string>();
  let dirs = new Map<string, Set<string>>();
  let modes = new Map<string, number>();
  // Volumes follow their ConfigMaps and Secrets while the container runs (the kubelet's periodic sync); env does not.
  const refresh = async () => { ({ files, dirs, modes } = await volumeFiles(pod, c, deps.objects, deps)); };
  await refresh();
  const workingDir = c.workingDir ?? imageWorkingDir(c.image) ?? '/';
  const volumes = new Map((pod.spec?.volumes ?? []).map((v) => [v.name, v]));
  const projectedMounts = (c.volumeMounts ?? []).filter((m) => !m.subPath && volumes.has(m.name) && isProjectedVolume(volumes.get(m.name)!))
    .map((m) => posix.normalize(m.mountPath).replace(/(.)\/$/, '$1'));
  const abs = (p: string) => throughDataDirectory(posix.normalize(posix.isAbsolute(p) ? p : posix.join(workingDir, p)).replace(/(.)\/$/, '$1'), projectedMounts);
  const processes = visibleProcesses(pod, c);
  return {
    expand,
    context: {
      env, hostname, refresh, workingDir, image: c.image, user: containerUser(pod, c), processes, pids: deps.pidNamespace,
      // The container's own command is its main process (an exec's shell says its own: exec.ts).
      shellPid: () => pidOfProcess(processes, mainProcessKey(c.name), deps.pidNamespace ?? new PidNamespace()),
      readFile: (p) => files.get(abs(p)),
      listDir: (p) => { const d = dirs.get(abs(p)); return d && [...d].sort(); },
      projectedMode: (p) => modes.get(abs(p)),
    },
  };
}

/** A projected volume without its serviceAccountToken sources (no token is requested for a simulated container). */
function withoutToken(v: Volume): Volume {
  if (!v.projected) return v;
  return { ...v, projected: { ...v.projected, sources: (v.projected.sources ?? []).filter((s) => !s.serviceAccountToken) } };
}

/** The files of the container's ConfigMap, Secret and downward API mounts, by absolute path, their modes, and each directory's entries. */
async function volumeFiles(pod: Pod, c: Container, objects: PodObjectGetter | undefined, o: ViewOptions): Promise<{ files: Map<string, string>; dirs: Map<string, Set<string>>; modes: Map<string, number> }> {
  const tokens = !!o.tokens && !!objects?.serviceAccountToken;
  const files = new Map<string, string>();
  const modes = new Map<string, number>();
  const dirs = new Map<string, Set<string>>();
  const volumes = new Map((pod.spec?.volumes ?? []).map((v) => [v.name, v]));
  for (const m of c.volumeMounts ?? []) {
    const mounted = volumes.get(m.name);
    const v = mounted && o.serviceAccount && !tokens ? withoutToken(mounted) : mounted;
    if (!v || !readable(v, tokens)) continue;
    const payload = await volumePayload(pod, v, objects, simulatedAllocatable).catch(() => undefined);
    for (const [rel, f] of payload ?? []) {
      if (m.subPath && rel !== m.subPath) continue;
      const path = m.subPath ? posix.normalize(m.mountPath) : posix.join(m.mountPath, rel);
      files.set(path, f.data.toString('utf8'));
      modes.set(path, f.mode);
      // Every directory on the way lists its next entry (ls /etc/config).
      for (let child = path, dir = posix.dirname(path); child !== dir; child = dir, dir = posix.dirname(dir)) {
        if (!dirs.has(dir)) dirs.set(dir, new Set());
        dirs.get(dir)!.add(posix.basename(child));
      }
    }
  }
  return { files, dirs, modes };
}
