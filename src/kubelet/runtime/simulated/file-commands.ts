/**
 * busybox 1.35's file commands against a simulated container's files (its
 * writable layer and volumes: layer.ts): touch, rm [-f] [-r], mkdir [-p],
 * cp [-r] and mv, and test / `[ ]`. The tutorials' scripts use them to
 * leave a mark for a probe (`touch /tmp/healthy; ...; rm -f /tmp/healthy`)
 * or to wait for one (`[ -f /tmp/ready ]`). Messages and exit codes are
 * busybox's; where a real file's times or modes would matter (touch of an
 * existing file, cp -p) nothing happens, as nothing reads them here.
 */
import { posix } from 'node:path';
import { banner } from './filters.js';

/** What a file command reads and changes. */
export interface FileIO {
  readBytes(path: string): Buffer | undefined;
  listDir(path: string): string[] | undefined;
  /** Writes a file, or with no data makes a directory; an error text when it cannot. */
  writeFile?(path: string, data: Buffer | undefined): string | undefined;
  /** Removes a file, or (recursive) a directory and what it holds; an error text when it cannot. */
  removeFile?(path: string, recursive: boolean): string | undefined;
  out(stream: 'stdout' | 'stderr', text: string): void;
}

const usages: Record<string, string> = {
  rm: 'Usage: rm [-irf] FILE...',
  touch: 'Usage: touch [-cham] [-d DATE] [-t DATE] [-r FILE] FILE...',
  mkdir: 'Usage: mkdir [-m MODE] [-p] DIRECTORY...',
  cp: 'Usage: cp [-arPLHpfinlsTu] SOURCE DEST',
  mv: 'Usage: mv [-fin] SOURCE DEST',
};

/** Flags and operands (`-rf` bundles, `--` ends options); an unknown flag answers as busybox does. */
function options(name: string, args: string[], known: string, io: FileIO, notSimulated = ''): { flags: Set<string>; operands: string[] } | number {
  const flags = new Set<string>();
  const operands: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (a === '--') { operands.push(...args.slice(i + 1)); break; }
    if (!a.startsWith('-') || a === '-') { operands.push(a); continue; }
    for (const f of a.slice(1)) {
      // An option busybox has but the simulation does not (a prompt, a mode, a date): said plainly rather than ignored.
      if (notSimulated.includes(f)) { io.out('stderr', `${name}: option -${f} is not simulated by k8ts's simulated shell\n`); return 1; }
      if (!known.includes(f)) { io.out('stderr', `${name}: invalid option -- '${f}'\n${banner}${usages[name]}\n`); return 1; }
      flags.add(f);
    }
  }
  if (!operands.length || ((name === 'cp' || name === 'mv') && operands.length < 2)) { io.out('stderr', `${banner}${usages[name]}\n`); return 1; }
  return { flags, operands };
}

const parentOf = (p: string) => (p.includes('/') ? p.slice(0, p.lastIndexOf('/')) || '/' : '.');
const readOnly = 'Read-only file system';

function touch(args: string[], io: FileIO): number {
  const o = options('touch', args, 'cham', io, 'dtr');
  if (typeof o === 'number') return o;
  let status = 0;
  for (const path of o.operands) {
    if (io.readBytes(path) !== undefined || io.listDir(path) !== undefined || o.flags.has('c')) continue;
    const error = io.listDir(parentOf(path)) === undefined ? 'No such file or directory' : io.writeFile ? io.writeFile(path, Buffer.alloc(0)) : readOnly;
    if (error) { io.out('stderr', `touch: ${path}: ${error}\n`); status = 1; }
  }
  return status;
}

function rm(args: string[], io: FileIO): number {
  const o = options('rm', args, 'rfR', io, 'i');
  if (typeof o === 'number') return o;
  const recursive = o.flags.has('r') || o.flags.has('R');
  let status = 0;
  for (const path of o.operands) {
    const isDir = io.listDir(path) !== undefined;
    if (!isDir && io.readBytes(path) === undefined) {
      if (!o.flags.has('f')) { io.out('stderr', `rm: can't remove '${path}': No such file or directory\n`); status = 1; }
      continue;
    }
    if (isDir && !recursive) { io.out('stderr', `rm: '${path}' is a directory\n`); status = 1; continue; }
    const error = io.removeFile ? io.removeFile(path, recursive) : readOnly;
    if (error) { io.out('stderr', `rm: can't remove '${path}': ${error}\n`); status = 1; }
  }
  return status;
}

function mkdir(args: string[], io: FileIO): number {
  const o = options('mkdir', args, 'p', io, 'm');
  if (typeof o === 'number') return o;
  let status = 0;
  for (const path of o.operands) {
    const exists = io.listDir(path) !== undefined;
    if (exists && o.flags.has('p')) continue;
    let error = exists || io.readBytes(path) !== undefined ? 'File exists' : undefined;
    if (!error && !o.flags.has('p') && io.listDir(parentOf(path)) === undefined) error = 'No such file or directory';
    error ??= io.writeFile ? io.writeFile(path, undefined) : readOnly;
    if (error) { io.out('stderr', `mkdir: can't create directory '${path}': ${error}\n`); status = 1; }
  }
  return status;
}

/** Copies a file, or (recursive) a directory's tree; an error text for the first thing that could not be written. */
function copyTree(src: string, dst: string, io: FileIO): string | undefined {
  const entries = io.listDir(src);
  if (!entries) return io.writeFile ? io.writeFile(dst, io.readBytes(src) ?? Buffer.alloc(0)) : readOnly;
  if (io.listDir(dst) === undefined) {
    const e = io.writeFile ? io.writeFile(dst, undefined) : readOnly;
    if (e) return e;
  }
  for (const e of entries) {
    const err = copyTree(posix.join(src, e), posix.join(dst, e), io);
    if (err) return err;
  }
  return undefined;
}

/** cp and mv: SOURCE DEST, or SOURCE... DIRECTORY. */
function copy(name: 'cp' | 'mv', args: string[], io: FileIO): number {
  const o = options(name, args, name === 'cp' ? 'arRPLHpfd' : 'f', io, name === 'cp' ? 'inlsTut' : 'in');
  if (typeof o === 'number') return o;
  const sources = o.operands.slice(0, -1);
  const dest = o.operands[o.operands.length - 1]!;
  const intoDir = io.listDir(dest) !== undefined;
  if (sources.length > 1 && !intoDir) { io.out('stderr', `${name}: '${dest}' is not a directory\n`); return 1; }
  const recursive = name === 'mv' || o.flags.has('r') || o.flags.has('R') || o.flags.has('a');
  let status = 0;
  for (const src of sources) {
    const isDir = io.listDir(src) !== undefined;
    const target = intoDir ? posix.join(dest, posix.basename(src)) : dest;
    if (!isDir && io.readBytes(src) === undefined) {
      io.out('stderr', name === 'cp' ? `cp: can't stat '${src}': No such file or directory\n` : `mv: can't rename '${src}': No such file or directory\n`);
      status = 1;
      continue;
    }
    if (isDir && !recursive) { io.out('stderr', `cp: omitting directory '${src}'\n`); status = 1; continue; }
    if (io.listDir(parentOf(target)) === undefined) {
      io.out('stderr', name === 'cp' ? `cp: can't create '${target}': No such file or directory\n` : `mv: can't rename '${src}': No such file or directory\n`);
      status = 1;
      continue;
    }
    const error = copyTree(src, target, io);
    if (error) { io.out('stderr', name === 'cp' ? `cp: can't create '${target}': ${error}\n` : `mv: can't create '${target}': ${error}\n`); status = 1; continue; }
    if (name === 'mv') {
      const e = io.removeFile ? io.removeFile(src, true) : readOnly;
      if (e) { io.out('stderr', `mv: can't remove '${src}': ${e}\n`); status = 1; }
    }
  }
  return status;
}

class TestError extends Error {}

/**
 * test EXPRESSION (and `[ EXPRESSION ]`): `!`, one argument (true when not
 * empty), the file tests -e -f -d -s -r -w -x, -z and -n, = != == and the
 * integer comparisons; `-a` and `-o` join terms. Exit 0 true, 1 false, 2
 * with busybox's message on a malformed one.
 */
function evaluate(args: string[], io: FileIO): boolean {
  const split = (op: string) => { const i = args.lastIndexOf(op); return i > 0 && i < args.length - 1 ? i : -1; };
  const or = split('-o');
  if (or > 0) return evaluate(args.slice(0, or), io) || evaluate(args.slice(or + 1), io);
  const and = split('-a');
  if (and > 0) return evaluate(args.slice(0, and), io) && evaluate(args.slice(and + 1), io);
  if (args[0] === '!' && args.length > 1) return !evaluate(args.slice(1), io);
  if (args.length === 0) return false;
  if (args.length === 1) return args[0] !== '';
  if (args.length === 2) {
    const [op, x] = args as [string, string];
    const file = io.readBytes(x);
    const dir = io.listDir(x) !== undefined;
    switch (op) {
      case '-e': case '-r': case '-w': return file !== undefined || dir;
      case '-x': return dir;
      case '-f': return file !== undefined;
      case '-d': return dir;
      case '-s': return (file?.length ?? 0) > 0 || dir;
      case '-z': return x === '';
      case '-n': return x !== '';
      case '-L': case '-h': case '-p': case '-S': case '-b': case '-c': return false;
      default: throw new TestError(`${x}: unknown operand`);
    }
  }
  if (args.length === 3) {
    const [a, op, b] = args as [string, string, string];
    if (op === '=' || op === '==') return a === b;
    if (op === '!=') return a !== b;
    const ints = ['-eq', '-ne', '-lt', '-le', '-gt', '-ge'];
    if (ints.includes(op)) {
      const num = (s: string) => { if (!/^\s*[-+]?\d+\s*$/.test(s)) throw new TestError(`${s}: bad number`); return Number(s); };
      const x = num(a); const y = num(b);
      return [x === y, x !== y, x < y, x <= y, x > y, x >= y][ints.indexOf(op)]!;
    }
    throw new TestError(`${op}: unknown operand`);
  }
  throw new TestError(`${args[1]}: unknown operand`);
}

function test(name: string, args: string[], io: FileIO): number {
  if (name === '[') {
    if (args[args.length - 1] !== ']') { io.out('stderr', '[: missing ]\n'); return 2; }
    args = args.slice(0, -1);
  }
  // `[[ ... ]]` is only ever ash's builtin (bash compatibility, as in the downward API page's `if [[ -e FILE ]]`): its messages say `sh:`.
  if (name === '[[') {
    if (args[args.length - 1] !== ']]') { io.out('stderr', 'sh: missing ]]\n'); return 2; }
    args = args.slice(0, -1);
    name = 'sh';
  }
  // busybox names its messages after how it was called: `[:` or `test:`; a missing operand says `argument expected`.
  if (args.length === 2 && ['=', '!=', '-eq', '-ne', '-lt', '-le', '-gt', '-ge'].includes(args[1]!)) { io.out('stderr', `${name}: ${args[1]}: argument expected\n`); return 2; }
  try {
    return evaluate(args, io) ? 0 : 1;
  } catch (e) {
    if (e instanceof TestError) { io.out('stderr', `${name}: ${e.message}\n`); return 2; }
    throw e;
  }
}

export const fileCommandNames = ['touch', 'rm', 'mkdir', 'cp', 'mv', 'test', '[', '[['] as const;

export function runFileCommand(name: string, args: string[], io: FileIO): number {
  switch (name) {
    case 'touch': return touch(args, io);
    case 'rm': return rm(args, io);
    case 'mkdir': return mkdir(args, io);
    case 'cp': case 'mv': return copy(name, args, io);
    default: return test(name, args, io);
  }
}
