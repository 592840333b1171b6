/**
 * `ls` of the image: busybox 1.35's in busybox and alpine images, GNU
 * coreutils' in the others (ls-columns.ts lsFlavour). Options: -l (long),
 * -a (with `.`, `..` and dot files, and the kubelet's `..data` in a
 * ConfigMap, Secret or downward API volume), -A (without `.` and `..`),
 * -d (the directories themselves), -R (recursive), -1; others are accepted
 * and ignored. As both ls do: missing operands first (stderr), then the
 * files, then each directory (headed `DIR:` when there are several operands
 * or -R), blocks parted by an empty line; names sorted byte-wise (the C
 * locale: no LANG in the images).
 *
 * The long format (file-stat.ts gives the metadata):
 *  - busybox (ls.c): `%-10s %4u %-8.8s %-8.8s %9u Mmm dd HH:MM name`
 *  - coreutils: the same fields, each column as wide as its widest entry
 *    (counts and sizes right-aligned, names left-aligned), one space apart.
 *  Both write `total N` (1 KiB blocks: 4 a directory or 4 KiB page of a
 *  file, 0 a symlink) before a directory's entries, a date older than six
 *  months with its year instead of the time, and `NAME -> TARGET` for a
 *  symlink.
 */
import { posix } from 'node:path';
import type { ShellContext } from './shell.js';
import type { FileStat } from './file-stat.js';
import { lsColumns, lsFlavour } from './ls-columns.js';
import { ownerNames } from './identity.js';

type Out = (stream: 'stdout' | 'stderr', text: string) => void;
const months = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const sixMonthsMs = (365.2425 * 24 * 3600 * 1000) / 2;

/** `drwxrwsrwx`: the type, then rwx with setuid/setgid (s, S) and sticky (t, T) in the x places. */
export function modeString(s: Pick<FileStat, 'type' | 'mode'>): string {
  const bits = (r: number, w: number, x: number, special: boolean, letter: string) =>
    `${s.mode & r ? 'r' : '-'}${s.mode & w ? 'w' : '-'}${special ? (s.mode & x ? letter : letter.toUpperCase()) : s.mode & x ? 'x' : '-'}`;
  return (s.type === 'dir' ? 'd' : s.type === 'link' ? 'l' : '-')
    + bits(0o400, 0o200, 0o100, !!(s.mode & 0o4000), 's') + bits(0o40, 0o20, 0o10, !!(s.mode & 0o2000), 's') + bits(0o4, 0o2, 0o1, !!(s.mode & 0o1000), 't');
}

/** `Dec  5 03:30`, or `Dec  5  2025` for a time more than six months from now (both ls). */
export function lsDate(t: Date, now: Date): string {
  const day = `${months[t.getUTCMonth()]} ${String(t.getUTCDate()).padStart(2, ' ')}`;
  const recent = Math.abs(now.getTime() - t.getTime()) < sixMonthsMs;
  return recent ? `${day} ${String(t.getUTCHours()).padStart(2, '0')}:${String(t.getUTCMinutes()).padStart(2, '0')}` : `${day}  ${t.getUTCFullYear()}`;
}

/** 1 KiB blocks a file takes, as `total` counts them: whole 4 KiB pages; a symlink's target is in its inode. */
const blocksOf = (s: FileStat) => (s.type === 'link' ? 0 : s.type === 'dir' ? 4 : Math.ceil(s.size / 4096) * 4);

/** The long lines of one block (a directory's entries, or the file operands). */
export function longLines(entries: { name: string; stat: FileStat }[], o: { image?: string; now: Date }): string {
  const rows = entries.map(({ name, stat }) => {
    const [user, group] = ownerNames(stat.uid, stat.gid, o.image);
    return { mode: modeString(stat), nlink: String(stat.nlink), user, group, size: String(stat.size), date: lsDate(stat.mtime, o.now), name: stat.target === undefined ? name : `${name} -> ${stat.target}` };
  });
  if (lsFlavour(o.image) === 'busybox') {
    return rows.map((r) => `${r.mode.padEnd(10)} ${r.nlink.padStart(4)} ${r.user.slice(0, 8).padEnd(8)} ${r.group.slice(0, 8).padEnd(8)} ${r.size.padStart(9)} ${r.date} ${r.name}\n`).join('');
  }
  const width = (k: 'nlink' | 'user' | 'group' | 'size') => Math.max(0, ...rows.map((r) => r[k].length));
  const [wn, wu, wg, ws] = [width('nlink'), width('user'), width('group'), width('size')];
  return rows.map((r) => `${r.mode} ${r.nlink.padStart(wn)} ${r.user.padEnd(wu)} ${r.group.padEnd(wg)} ${r.size.padStart(ws)} ${r.date} ${r.name}\n`).join('');
}

interface Options { long: boolean; all: boolean; almostAll: boolean; directory: boolean; recursive: boolean; onePerLine: boolean }

/** stat of a path, or what a context without metadata has to say: root's, 0755 or 0644, the time now. */
function statOf(ctx: ShellContext, path: string): FileStat | undefined {
  const s = ctx.stat?.(path);
  if (s) return s;
  const now = ctx.now();
  if (ctx.listDir(path) !== undefined) return { type: 'dir', mode: 0o755, uid: 0, gid: 0, size: 4096, nlink: 2, mtime: now };
  const data = ctx.readBytes?.(path) ?? (ctx.readFile(path) === undefined ? undefined : Buffer.from(ctx.readFile(path)!));
  return data && { type: 'file', mode: 0o644, uid: 0, gid: 0, size: data.length, nlink: 1, mtime: now };
}

/** A directory's entries as ls -a / -A / neither shows them, sorted. */
function entriesOf(ctx: ShellContext, dir: string, o: Options): string[] {
  // The kubelet's `..data` and data directory start with a dot: only -a and -A show them.
  const names = [...(ctx.listDir(dir) ?? []), ...(ctx.hiddenEntries?.(dir) ?? [])];
  const shown = names.filter((n) => o.all || o.almostAll || !n.startsWith('.'));
  return [...new Set([...(o.all ? ['.', '..'] : []), ...shown])].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
}

const childPath = (dir: string, name: string) => (name === '.' ? dir : name === '..' ? posix.join(dir, '..') : dir.endsWith('/') ? `${dir}${name}` : `${dir}/${name}`);

export function ls(args: string[], ctx: ShellContext, out: Out): number {
  const flags = new Set<string>();
  const operands: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (a === '--') { operands.push(...args.slice(i + 1)); break; }
    if (a.startsWith('-') && a.length > 1) for (const f of a.slice(1)) flags.add(f); else operands.push(a);
  }
  const o: Options = { long: flags.has('l'), all: flags.has('a'), almostAll: flags.has('A'), directory: flags.has('d'), recursive: flags.has('R') && !flags.has('d'), onePerLine: flags.has('1') };
  const gnu = lsFlavour(ctx.image) === 'coreutils';
  const now = ctx.now();
  const layout = (names: string[]) => (ctx.terminalColumns && !o.onePerLine ? lsColumns(names, ctx.terminalColumns(), lsFlavour(ctx.image)) : names.map((n) => `${n}\n`).join(''));
  const block = (entries: { name: string; path: string }[]) => {
    if (!o.long) return layout(entries.map((e) => e.name));
    const stats = entries.flatMap((e) => { const stat = statOf(ctx, e.path); return stat ? [{ name: e.name, stat }] : []; });
    return longLines(stats, { image: ctx.image, now });
  };
  let status = 0;
  const files: string[] = [];
  const dirs: string[] = [];
  const sorted = (xs: string[]) => [...xs].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  for (const path of sorted(operands.length ? operands : ['.'])) {
    const s = statOf(ctx, path);
    if (!s) { out('stderr', gnu ? `ls: cannot access '${path}': No such file or directory\n` : `ls: ${path}: No such file or directory\n`); status = gnu ? 2 : 1; continue; }
    // A symlink to a directory is listed as that directory without -l, or with a trailing slash (the kernel follows it then), as both ls do.
    const followed = s.type === 'link' && (!o.long || path.endsWith('/')) && ctx.listDir(path) !== undefined;
    if ((s.type === 'dir' || followed) && !o.directory) dirs.push(path); else files.push(path);
  }
  const blocks: string[] = files.length ? [block(files.map((f) => ({ name: f, path: f })))] : [];
  const headed = operands.length > 1 || o.recursive;
  const listDirectory = (dir: string) => {
    const names = entriesOf(ctx, dir, o);
    const entries = names.map((name) => ({ name, path: childPath(dir, name) }));
    const total = o.long ? `total ${entries.reduce((n, e) => n + blocksOf(statOf(ctx, e.path) ?? { type: 'link' } as FileStat), 0)}\n` : '';
    blocks.push(`${headed ? `${dir}:\n` : ''}${total}${block(entries)}`);
    if (!o.recursive) return;
    // -R descends into directories, not into symlinks to them, nor `.` and `..`.
    for (const e of entries) if (e.name !== '.' && e.name !== '..' && statOf(ctx, e.path)?.type === 'dir') listDirectory(e.path);
  };
  for (const dir of dirs) listDirectory(dir);
  out('stdout', blocks.join('\n'));
  return status;
}
