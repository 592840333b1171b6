/**
 * Where this installation's files are, whichever layout runs: the compiled
 * tree (dist/src/<layer>/...) that tests import module by module, or the
 * bundle (dist/bundle/*.js) that `k8ts` and `npm start` run. Paths computed
 * from a module's own URL would differ between the two (a bundled module
 * lives in dist/bundle, not at its source depth), so they start from the
 * package root instead.
 */
import { existsSync, readFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));

let root: string | undefined;

/** The directory holding k8ts's package.json. */
export function packageRoot(): string {
  if (root) return root;
  for (let dir = here; ; dir = dirname(dir)) {
    const manifest = join(dir, 'package.json');
    if (existsSync(manifest) && (JSON.parse(readFileSync(manifest, 'utf8')) as { name?: string }).name === 'k8ts') return (root = dir);
    if (dirname(dir) === dir) throw new Error(`k8ts's package.json not found above ${here}`);
  }
}

/** True when this code runs from the bundle (dist/bundle). */
export const bundled = basename(here) === 'bundle';

/**
 * The CLI entry of the running layout, for child processes (`k8ts agent`,
 * static pods, the supervisor): the bundle's main.js when bundled, else the
 * compiled tree's, so a child never mixes the two.
 */
export function cliEntry(): string {
  return bundled ? join(here, 'main.js') : join(packageRoot(), 'dist', 'src', 'cli', 'main.js');
}
