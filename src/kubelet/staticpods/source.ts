/**
 * The manifest directory (`--pod-manifest-path`), as upstream's file source
 * watches it (pkg/kubelet/config/file.go, file_linux.go):
 *
 *  1. Every scan lists the directory, skips ignored names (manifest.ts) and
 *     subdirectories ("Not recursing into manifest path"), reads each regular
 *     file and parses it; the valid pods are the whole desired set (upstream's
 *     SET operation), so a file that no longer parses stops its pod.
 *  2. Scans run on start, on every fs.watch event (coalesced), and every
 *     checkInterval (upstream --file-check-frequency, 20 s) in case the watch
 *     misses something or the directory did not exist yet.
 *  3. Two files naming the same pod: the first in file-name order wins, the
 *     other is reported (upstream's duplicate check in the config merger).
 *  4. A file that does not parse or validate is reported once per distinct
 *     error (and again when its error changes), then skipped.
 *  5. `kubernetes.io/config.seen` is when a UID was first seen; it is kept
 *     while the UID stays in the set.
 */
import { watch, type FSWatcher } from 'node:fs';
import { readdir, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { Pod } from 'kubernetes-types/core/v1.js';
import type { Logger } from '../../util/log.js';
import type { Timers, TimerHandle } from '../timers.js';
import { annotationConfigSeen, isIgnoredManifestName, parseStaticPodManifest } from './manifest.js';

export interface ManifestProblem {
  path: string;
  error: string;
}

export interface ManifestSourceOptions {
  dir: string;
  nodeName: string;
  /** Rescan period (upstream --file-check-frequency, 20 s). */
  checkIntervalMs: number;
  logger: Logger;
  timers: Timers;
  /** The desired set of static pods after each scan (always the full set). */
  onPods(pods: Pod[]): void;
  /** A manifest that was skipped, reported once per distinct error. */
  onProblem?(problem: ManifestProblem): void;
}

/** Files larger than this are refused instead of read (a manifest is a few KiB). */
const maxManifestBytes = 3 * 1024 * 1024;
const coalesceMs = 50;

export class ManifestSource {
  private watcher?: FSWatcher;
  private interval?: TimerHandle;
  private pending?: TimerHandle;
  private scanning?: Promise<void>;
  private rescan = false;
  private stopped = false;
  private synced = false;
  private readonly firstSeen = new Map<string, string>();
  private readonly reported = new Map<string, string>();
  private missingDirLogged = false;

  constructor(private readonly opts: ManifestSourceOptions) {}

  /** Scans once (awaited) and keeps watching. */
  async start(): Promise<void> {
    this.watchDir();
    await this.scan();
    const tick = () => {
      if (this.stopped) return;
      if (!this.watcher) this.watchDir();
      this.kick(0);
      this.interval = this.opts.timers.setTimeout(tick, this.opts.checkIntervalMs);
    };
    this.interval = this.opts.timers.setTimeout(tick, this.opts.checkIntervalMs);
  }

  /** The first scan has completed: the set is known (upstream's sourcesReady). */
  get hasSynced(): boolean { return this.synced; }

  stop(): void {
    this.stopped = true;
    this.watcher?.close();
    this.watcher = undefined;
    if (this.interval) this.opts.timers.clearTimeout(this.interval);
    if (this.pending) this.opts.timers.clearTimeout(this.pending);
  }

  private watchDir(): void {
    try {
      this.watcher = watch(this.opts.dir, { persistent: false }, (_event, name) => {
        if (name && isIgnoredManifestName(String(name))) return;
        this.kick(coalesceMs);
      });
      this.watcher.on('error', () => { this.watcher?.close(); this.watcher = undefined; });
    } catch {
      this.watcher = undefined; // the directory may appear later; the periodic scan retries.
    }
  }

  private kick(delayMs: number): void {
    if (this.stopped || this.pending) return;
    this.pending = this.opts.timers.setTimeout(() => { this.pending = undefined; void this.scan(); }, delayMs);
  }

  /** One scan at a time; a request during a scan runs one more after it. */
  private async scan(): Promise<void> {
    if (this.scanning) { this.rescan = true; return this.scanning; }
    this.scanning = (async () => {
      do {
        this.rescan = false;
        await this.scanOnce().catch((e) => this.opts.logger.error('manifest scan failed', { path: this.opts.dir, err: e }));
      } while (this.rescan && !this.stopped);
    })();
    try { await this.scanning; } finally { this.scanning = undefined; }
  }

  private async scanOnce(): Promise<void> {
    const names = await this.listDir();
    if (names === undefined || this.stopped) return;
    const pods: Pod[] = [];
    const byKey = new Map<string, string>();
    const problems = new Map<string, string>();
    for (const name of names.sort()) {
      const path = join(this.opts.dir, name);
      const read = await this.readManifest(path);
      if (read === undefined) continue;
      if ('error' in read) { problems.set(path, read.error); continue; }
      const result = parseStaticPodManifest(read.text, { path, nodeName: this.opts.nodeName });
      if (!result.ok) { problems.set(path, result.error); continue; }
      const pod = result.pod;
      const key = `${pod.metadata!.namespace}/${pod.metadata!.name}`;
      const first = byKey.get(key);
      if (first) { problems.set(path, `pod ${key} is already defined by ${first}, ignoring this manifest`); continue; }
      byKey.set(key, path);
      for (const w of result.warnings) this.opts.logger.warn('static pod manifest', { path, warning: w });
      pods.push(this.stampSeen(pod));
    }
    this.report(problems);
    const live = new Set(pods.map((p) => p.metadata!.uid!));
    for (const uid of this.firstSeen.keys()) if (!live.has(uid)) this.firstSeen.delete(uid);
    if (this.stopped) return;
    this.synced = true;
    this.opts.onPods(pods);
  }

  private async listDir(): Promise<string[] | undefined> {
    try {
      const names = await readdir(this.opts.dir);
      this.missingDirLogged = false;
      return names.filter((n) => !isIgnoredManifestName(n));
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
      // Upstream: "Unable to read config path" ... "path does not exist, ignoring"; no pods from it.
      if (!this.missingDirLogged) this.opts.logger.info('static pod path does not exist, ignoring', { path: this.opts.dir });
      this.missingDirLogged = true;
      return [];
    }
  }

  private async readManifest(path: string): Promise<{ text: string } | { error: string } | undefined> {
    try {
      const st = await stat(path);
      if (st.isDirectory()) { this.opts.logger.debug('not recursing into manifest path', { path }); return undefined; }
      if (!st.isFile()) return { error: `manifest path is not a directory or file (mode ${(st.mode & 0o170000).toString(8)})` };
      if (st.size > maxManifestBytes) return { error: `manifest file is ${st.size} bytes, more than ${maxManifestBytes}` };
      return { text: await readFile(path, 'utf8') };
    } catch (e) {
      // Gone between the listing and the read: the next scan settles it.
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      return { error: (e as Error).message };
    }
  }

  private stampSeen(pod: Pod): Pod {
    const uid = pod.metadata!.uid!;
    let seen = this.firstSeen.get(uid);
    if (!seen) { seen = this.opts.timers.now().toISOString() /* RFC3339Nano, trailing zeros trimmed */; this.firstSeen.set(uid, seen); }
    pod.metadata!.annotations = { ...pod.metadata!.annotations, [annotationConfigSeen]: seen };
    return pod;
  }

  private report(problems: Map<string, string>): void {
    for (const path of this.reported.keys()) if (!problems.has(path)) this.reported.delete(path);
    for (const [path, error] of problems) {
      if (this.reported.get(path) === error) continue;
      this.reported.set(path, error);
      this.opts.logger.error('could not process manifest file', { path, err: error });
      this.opts.onProblem?.({ path, error });
    }
  }
}
