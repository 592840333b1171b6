/**
 * Where this installation's files are, whichever layout runs: the compiled
 * tree (dist/src/<layer>/...) that tests import module by module, or the
 * bundle (dist/bundle/*.js) that `k8ts` and `npm start` run. Paths computed
 * from a module's own URL would differ between the two (a bundled module
 * lives in dist/bundle, not at its source depth), so they start from the
 * package root instead.
 */
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));

/** True when this code runs from the bundle (dist/bundle). */
export const bundled = basename(here) === 'bundle';

/**
 * The directory holding k8ts's package.json, from the layout alone (dist/bundle, or
 * dist/src/util): no file is read, so a user who may run the files but not read the
 * package's directory listing (a non-root user of a root's checkout) gets the same answer.
 */
export function packageRoot(): string {
  return bundled ? join(here, '..', '..') : join(here, '..', '..', '..');
}

/**
 * The CLI entry of the running layout, for child processes (`k8ts agent`,
 * static pods, the supervisor): the bundle's main.js when bundled, else the
 * compiled tree's, so a child never mixes the two.
 */
export function cliEntry(): string {
  return bundled ? join(here, 'main.js') : join(packageRoot(), 'dist', 'src', 'cli', 'main.js');
}
