/**
 * `tar` in a simulated container, for `kubectl cp`: kubectl copies out of a
 * pod by running `tar cf - PATH` in it and reading the archive from stdout,
 * and into a pod by running `tar -xmf - [-C DIR]` with the archive on stdin
 * (kubectl's cp.go). With no process and no image, the simulated tar packs
 * what an exec can read (volumes, /etc/hostname, /etc/hosts, files copied in)
 * and unpacks into the container's writable layer (layer.ts).
 *
 * The archive format is POSIX ustar, what both sides need: Go's archive/tar
 * (kubectl) writes ustar, or a PAX header ('x') for a name longer than ustar
 * holds, and reads either; GNU long names ('L') are read too.
 */
import { posix } from 'node:path';
import { lsFlavour } from './ls-columns.js';
import type { ShellContext } from './shell.js';

type Out = (stream: 'stdout' | 'stderr', text: string) => void;

const block = 512;

/** One member of an archive: a regular file (with its bytes) or a directory. */
export interface TarEntry { name: string; dir: boolean; data: Buffer }

function octal(h: Buffer, at: number, len: number, n: number): void {
  h.write(n.toString(8).padStart(len - 1, '0'), at, len - 1, 'ascii');
}

function ustarHeader(name: string, size: number, type: '0' | '5' | 'x', mtime: number): Buffer {
  const h = Buffer.alloc(block);
  h.write(name, 0, 100, 'utf8');
  octal(h, 100, 8, type === '5' ? 0o755 : 0o644);
  octal(h, 108, 8, 0);
  octal(h, 116, 8, 0);
  octal(h, 124, 12, size);
  octal(h, 136, 12, mtime);
  h.write(type, 156, 1, 'ascii');
  h.write('ustar\0', 257, 6, 'ascii');
  h.write('00', 263, 2, 'ascii');
  h.write('root', 265, 32, 'ascii');
  h.write('root', 297, 32, 'ascii');
  h.write(`${headerChecksum(h).toString(8).padStart(6, '0')}\0 `, 148, 8, 'ascii');
  return h;
}

/** A header's checksum: the sum of its bytes with its own field taken as eight spaces. */
function headerChecksum(h: Buffer): number {
  let sum = 0;
  for (let i = 0; i < block; i++) sum += i >= 148 && i < 156 ? 32 : h[i]!;
  return sum;
}

const padding = (size: number) => Buffer.alloc((block - (size % block)) % block);

/** A PAX extended header record: "LEN key=value\n", LEN counting its own digits too. */
function paxRecord(key: string, value: string): string {
  const body = ` ${key}=${value}\n`;
  const bytes = Buffer.byteLength(body);
  let len = bytes + String(bytes).length;
  while (bytes + String(len).length !== len) len = bytes + String(len).length;
  return `${len}${body}`;
}

/** An archive of `entries`, ending with the two zero blocks. */
export function packTar(entries: TarEntry[], mtime = 0): Buffer {
  const parts: Buffer[] = [];
  for (const e of entries) {
    const name = e.dir && !e.name.endsWith('/') ? `${e.name}/` : e.name;
    if (Buffer.byteLength(name) > 100) {
      const pax = Buffer.from(paxRecord('path', name));
      parts.push(ustarHeader('PaxHeaders/long-name', pax.length, 'x', mtime), pax, padding(pax.length));
    }
    const size = e.dir ? 0 : e.data.length;
    parts.push(ustarHeader(Buffer.from(name).subarray(0, 100).toString('utf8'), size, e.dir ? '5' : '0', mtime));
    if (size) parts.push(e.data, padding(size));
  }
  parts.push(Buffer.alloc(2 * block));
  return Buffer.concat(parts);
}

const cString = (b: Buffer) => { const z = b.indexOf(0); return (z < 0 ? b : b.subarray(0, z)).toString('utf8'); };

/** A numeric field: octal text, or base-256 when its first byte has the high bit (GNU, Go for large values). */
function numeric(b: Buffer): number {
  if (b[0]! & 0x80) {
    let n = b[0]! & 0x7f;
    for (let i = 1; i < b.length; i++) n = n * 256 + b[i]!;
    return n;
  }
  const text = cString(b).trim();
  return text ? Number.parseInt(text, 8) : 0;
}

/** The members of an archive; throws with tar's words on a damaged one. */
export function unpackTar(archive: Buffer): TarEntry[] {
  const entries: TarEntry[] = [];
  let longName: string | undefined;
  for (let at = 0; at + block <= archive.length;) {
    const h = archive.subarray(at, at + block);
    if (h.every((b) => b === 0)) break;
    if (headerChecksum(h) !== numeric(h.subarray(148, 156))) throw new Error('invalid tar header checksum');
    const size = numeric(h.subarray(124, 136));
    const type = String.fromCharCode(h[156]!);
    const data = archive.subarray(at + block, at + block + size);
    if (data.length < size) throw new Error('short read');
    at += block + size + ((block - (size % block)) % block);
    if (type === 'x') {
      const path = /(?:^|\n)\d+ path=([^\n]*)\n/.exec(data.toString('utf8'))?.[1];
      if (path !== undefined) longName = path;
      continue;
    }
    if (type === 'L') { longName = cString(data); continue; }
    if (type === 'g') continue;
    const prefix = h.subarray(257, 262).toString('ascii') === 'ustar' ? cString(h.subarray(345, 500)) : '';
    const name = longName ?? (prefix ? `${prefix}/${cString(h.subarray(0, 100))}` : cString(h.subarray(0, 100)));
    longName = undefined;
    // Links, devices and FIFOs have nothing the simulation could hold.
    if (type === '5') entries.push({ name: name.replace(/\/+$/, ''), dir: true, data: Buffer.alloc(0) });
    else if (type === '0' || type === '\0' || type === '7') entries.push({ name, dir: false, data: Buffer.from(data) });
  }
  return entries;
}

interface TarOptions { mode?: 'c' | 'x' | 't'; file?: string; dir?: string; paths: string[] }

/** busybox tar's argument forms: `cf - P`, `-xmf - -C D`, `-x -m -f -`, `--no-same-owner`. */
function parseArgs(args: string[]): TarOptions | string {
  const o: TarOptions = { paths: [] };
  const rest = [...args];
  const letters = (flags: string): string | undefined => {
    for (const f of flags) {
      if (f === 'c' || f === 'x' || f === 't') o.mode = f;
      else if (f === 'f') o.file = rest.shift();
      else if (f === 'C') o.dir = rest.shift();
      else if (f === 'z' || f === 'j' || f === 'J') return 'compression is not simulated';
      else if (!'mvopO'.includes(f)) return `invalid option -- '${f}'`;
    }
    return undefined;
  };
  if (rest[0] && !rest[0].startsWith('-')) { const err = letters(rest.shift()!); if (err) return err; }
  while (rest.length) {
    const a = rest.shift()!;
    if (a === '--no-same-owner' || a === '--no-same-permissions' || a === '--') continue;
    if (a.startsWith('--')) return `unrecognized option '${a}'`;
    if (a.startsWith('-') && a.length > 1) { const err = letters(a.slice(1)); if (err) return err; continue; }
    o.paths.push(a);
  }
  return o;
}

/** What `path` holds for an archive (recursively), named as tar names members: relative, without a leading `/`. */
function collect(ctx: ShellContext, path: string, out: TarEntry[], missing: string[]): void {
  const name = path.replace(/^\/+/, '').replace(/\/+$/, '') || '.';
  const entries = ctx.listDir(path);
  if (entries) {
    out.push({ name, dir: true, data: Buffer.alloc(0) });
    for (const e of entries) collect(ctx, posix.join(path, e), out, missing);
    return;
  }
  const text = ctx.readBytes ? undefined : ctx.readFile(path);
  const data = ctx.readBytes ? ctx.readBytes(path) : text === undefined ? undefined : Buffer.from(text);
  if (data === undefined) missing.push(path);
  else out.push({ name, dir: false, data });
}

/**
 * What tar says, in the image's tar's words: busybox's, or GNU tar 1.34's in
 * the Debian-based images (nginx, debian, httpd ...), which a user copying
 * out of such a pod sees on kubectl cp's stderr. GNU tar exits 2 on errors,
 * and after errors it could go on from says so once at the end.
 */
interface TarWords {
  leadingSlash: string;
  cannotStat(given: string, resolved: string): string;
  cannotChdir(given: string, isFile: boolean): string;
  cannotOpen(member: string, err: string): string;
  dotdot(member: string): string;
  failed: number;
  afterErrors: string;
}

const busyboxWords: TarWords = {
  leadingSlash: "tar: removing leading '/' from member names\n",
  cannotStat: (_given, resolved) => `tar: can't stat '${resolved}': No such file or directory\n`,
  cannotChdir: (given, isFile) => `tar: can't change directory to '${given}': ${isFile ? 'Not a directory' : 'No such file or directory'}\n`,
  cannotOpen: (member, err) => `tar: can't open '${member}': ${err}\n`,
  dotdot: (member) => `tar: skipping member with '..': ${member}\n`,
  failed: 1,
  afterErrors: '',
};

const gnuWords: TarWords = {
  leadingSlash: "tar: Removing leading `/' from member names\n",
  cannotStat: (given) => `tar: ${given}: Cannot stat: No such file or directory\n`,
  cannotChdir: (given, isFile) => `tar: ${given}: Cannot open: ${isFile ? 'Not a directory' : 'No such file or directory'}\ntar: Error is not recoverable: exiting now\n`,
  cannotOpen: (member, err) => `tar: ${member}: Cannot open: ${err}\n`,
  dotdot: (member) => {
    const climb = /^(?:\.\.\/|\/)+/.exec(member)?.[0];
    return `${climb ? `tar: Removing leading \`${climb}' from member names\n` : ''}tar: ${member}: Member name contains '..'\n`;
  },
  failed: 2,
  afterErrors: 'tar: Exiting with failure status due to previous errors\n',
};

/** The `tar` command: create to stdout, extract or list from stdin. */
export async function tar(args: string[], ctx: ShellContext, out: Out): Promise<number> {
  const o = parseArgs(args);
  const words = lsFlavour(ctx.image) === 'coreutils' ? gnuWords : busyboxWords;
  if (typeof o === 'string') { out('stderr', `tar: ${o}\n`); return 1; }
  if (!o.mode) { out('stderr', 'tar: need at least one of -c, -x or -t\n'); return 1; }
  if (o.file !== '-') {
    out('stderr', `tar: ${o.file ?? '(no -f)'}: the simulated tar reads and writes only stdin and stdout (-f -)\n`);
    return 1;
  }
  if (o.mode === 'c') {
    if (!ctx.writeBytes) { out('stderr', 'tar: no output stream for an archive here\n'); return 1; }
    if (!o.paths.length) { out('stderr', 'tar: empty archive\n'); return 1; }
    const entries: TarEntry[] = [];
    const missing: string[] = [];
    const base = o.dir ?? ctx.workingDir ?? '/';
    const given = new Map<string, string>();
    for (const p of o.paths) {
      const resolved = posix.isAbsolute(p) ? p : posix.join(base, p);
      given.set(resolved, p);
      collect(ctx, resolved, entries, missing);
    }
    // Members are named without the root, and both tars say so.
    if (o.paths.some((p) => p.startsWith('/'))) out('stderr', words.leadingSlash);
    for (const m of missing) out('stderr', words.cannotStat(given.get(m) ?? m, m));
    ctx.writeBytes(packTar(entries, Math.floor(ctx.now().getTime() / 1000)));
    if (!missing.length) return 0;
    out('stderr', words.afterErrors);
    return words.failed;
  }
  if (!ctx.readStdin) { out('stderr', 'tar: no input stream here\n'); return 1; }
  let entries: TarEntry[];
  try {
    entries = unpackTar(await ctx.readStdin());
  } catch (e) {
    out('stderr', `tar: ${(e as Error).message}\n`);
    return 1;
  }
  if (o.mode === 't') { out('stdout', entries.map((e) => `${e.name}\n`).join('')); return 0; }
  if (!ctx.writeFile) { out('stderr', 'tar: no writable filesystem here\n'); return 1; }
  const dir = o.dir ?? ctx.workingDir ?? '/';
  // As both tars: -C names a directory that must be there (kubectl cp's is the destination's parent).
  const target = posix.isAbsolute(dir) ? dir : posix.join(ctx.workingDir ?? '/', dir);
  if (o.dir !== undefined && ctx.listDir(target) === undefined) {
    const isFile = (ctx.readBytes?.(target) ?? ctx.readFile(target)) !== undefined;
    out('stderr', words.cannotChdir(o.dir, isFile));
    return words.failed;
  }
  let failed = false;
  for (const e of entries) {
    // A member may not climb out of the directory it is unpacked in (GNU and busybox tar refuse `..`).
    if (e.name.split('/').includes('..')) { out('stderr', words.dotdot(e.name)); failed = true; continue; }
    const err = ctx.writeFile(posix.join(target, e.name), e.dir ? undefined : e.data);
    if (err) { out('stderr', words.cannotOpen(e.name, err)); failed = true; }
  }
  if (!failed) return 0;
  out('stderr', words.afterErrors);
  return words.failed;
}
