/**
 * scripts/gen-openapi.mjs runs on every build of a fresh clone: it must be
 * deterministic (a second run writes the same bytes) and quick.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** The package root: the nearest directory above this file holding scripts/gen-openapi.mjs. */
function packageRoot(): string {
  let dir = path.dirname(fileURLToPath(import.meta.url));
  while (!existsSync(path.join(dir, 'scripts', 'gen-openapi.mjs'))) {
    const parent = path.dirname(dir);
    assert.notEqual(parent, dir, 'scripts/gen-openapi.mjs not found');
    dir = parent;
  }
  return dir;
}

describe('gen-openapi.mjs', () => {
  // Deterministic output is the contract; how long generation takes is not a test's business.
  it('writes the same bytes as the build did', () => {
    const root = packageRoot();
    const dir = mkdtempSync(path.join(tmpdir(), 'k8ts-openapi-'));
    try {
      const out = path.join(dir, 'defs.json');
      execFileSync(process.execPath, [path.join(root, 'scripts', 'gen-openapi.mjs'), '--out', out], { cwd: root, stdio: 'pipe' });
      assert.ok(readFileSync(out).equals(readFileSync(path.join(root, 'generated', 'openapi-defs.json'))), 'output differs from generated/openapi-defs.json');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
