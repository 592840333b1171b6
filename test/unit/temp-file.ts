import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Runs `fn` on a fresh file holding `bytes`, removed afterwards: for readers that must be tested on real files. */
export function withFile(bytes: string | Buffer, fn: (file: string) => void): void {
  const dir = mkdtempSync(join(tmpdir(), 'k8ts-unit-file-'));
  try {
    const file = join(dir, 'f');
    writeFileSync(file, bytes);
    fn(file);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
