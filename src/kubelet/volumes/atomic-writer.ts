/**
 * Writes a volume's files the way upstream's AtomicWriter does
 * (pkg/volume/util/atomic_writer.go), so a reader never sees half an update:
 *
 *  1. The files go into a fresh hidden directory `..<timestamp>` beside the
 *     previous one.
 *  2. `..data` is a symlink to the current directory, replaced with one
 *     rename (atomic on one filesystem).
 *  3. Every top-level entry is a symlink `name -> ..data/name`, so a
 *     container that opened the volume keeps working across updates.
 *  4. Then the old directory and links to names no longer present go.
 * An unchanged payload writes nothing (the volume is re-synced on every
 * container start).
 */
import { chmodSync, existsSync, lstatSync, mkdirSync, readFileSync, readdirSync, renameSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { Payload } from './projection.js';

const dataLink = '..data';

function unchanged(dir: string, payload: Payload): boolean {
  const current = join(dir, dataLink);
  if (!existsSync(current)) return false;
  const present = new Set<string>();
  const walk = (rel: string) => {
    for (const e of readdirSync(join(current, rel), { withFileTypes: true })) {
      const p = rel ? `${rel}/${e.name}` : e.name;
      if (e.isDirectory()) walk(p); else present.add(p);
    }
  };
  walk('');
  if (present.size !== payload.size) return false;
  for (const [p, f] of payload) {
    const file = join(current, p);
    if (!present.has(p) || (statSync(file).mode & 0o7777) !== f.mode || !readFileSync(file).equals(f.data)) return false;
  }
  return true;
}

const stamp = () => {
  const d = new Date();
  const pad = (n: number, w = 2) => String(n).padStart(w, '0');
  return `..${d.getUTCFullYear()}_${pad(d.getUTCMonth() + 1)}_${pad(d.getUTCDate())}_${pad(d.getUTCHours())}_${pad(d.getUTCMinutes())}_${pad(d.getUTCSeconds())}.${process.hrtime.bigint() % 1_000_000_000n}`;
};

/** Makes `dir` hold exactly `payload`; returns false when it already did. */
export function writeAtomically(dir: string, payload: Payload): boolean {
  mkdirSync(dir, { recursive: true, mode: 0o755 });
  if (unchanged(dir, payload)) return false;
  const ts = stamp();
  mkdirSync(join(dir, ts), { mode: 0o755 });
  for (const [p, f] of payload) {
    const file = join(dir, ts, p);
    mkdirSync(dirname(file), { recursive: true, mode: 0o755 });
    writeFileSync(file, f.data);
    chmodSync(file, f.mode);
  }
  const tmp = join(dir, '..data_tmp');
  rmSync(tmp, { force: true });
  symlinkSync(ts, tmp);
  renameSync(tmp, join(dir, dataLink));
  const top = new Set([...payload.keys()].map((p) => p.split('/')[0]));
  for (const name of top) {
    const link = join(dir, name);
    if (!existsSync(link) && !isLink(link)) symlinkSync(join(dataLink, name), link);
  }
  for (const name of readdirSync(dir)) {
    if (name.startsWith('..')) {
      if (name !== dataLink && name !== ts) rmSync(join(dir, name), { recursive: true, force: true });
    } else if (!top.has(name)) {
      rmSync(join(dir, name), { recursive: true, force: true });
    }
  }
  return true;
}

function isLink(p: string): boolean {
  try { return lstatSync(p).isSymbolicLink(); } catch { return false; }
}
