/**
 * Images for a node that pulls nothing: OCI or docker archives imported into
 * containerd's k8s.io namespace, the one its CRI plugin serves. The CRI has
 * no import call, so this goes through `ctr` (containerd's own client), as
 * `kind load image-archive` and `k3s ctr images import` do.
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { packageRoot } from '../../util/package-root.js';
import { promisify } from 'node:util';
import type { CRIClient } from '../../kubelet/runtime/cri/client.js';
import { busyboxImage, pauseImage } from './config.js';

const run = promisify(execFile);

export interface LocalImage { name: string; file: string }

/** build/images of this checkout. */
export const localImagesDir = join(packageRoot(), 'build', 'images');

/** The images of scripts/images.sh: the sandbox's pause image and busybox. */
export function localImages(dir = localImagesDir): LocalImage[] {
  return [{ name: pauseImage, file: join(dir, 'pause.tar') }, { name: busyboxImage, file: join(dir, 'busybox.tar') }];
}

/** The local images whose archive is missing (build them with scripts/images.sh). */
export const missingArchives = (images: LocalImage[]) => images.filter((i) => !existsSync(i.file));

/**
 * Imports each image the runtime does not have yet. The archives name their
 * image themselves (org.opencontainers.image.ref.name in index.json, see
 * scripts/images.sh), so no --index-name is passed: with it, ctr also wrote
 * an index of its own under the same name, the manifest's image record then
 * replaced it, and containerd 1.6's garbage collector could take the index
 * blob while ctr was still unpacking it ("content digest sha256:9fb08c...:
 * not found", the same digest on every failing CI run).
 */
export async function importLocalImages(socket: string, client: CRIClient, images: LocalImage[]): Promise<void> {
  for (const image of images) {
    if (await client.imageStatus(image.name)) continue;
    await importImageArchive(socket, image.file);
  }
}

/**
 * `ctr -n k8s.io images import [--index-name NAME] FILE`, tried up to six
 * times with a back-off (0.25 s doubling to 4 s): on a loaded machine
 * containerd 1.6's content garbage collection can remove a blob the import
 * wrote but had not yet referenced ("content digest sha256:...: not found"),
 * and the same import succeeds once the collector has run. Three immediate
 * tries were not enough on a busy CI machine (two test files start private
 * containerds at once). Returns ctr's output.
 */
export async function importImageArchive(socket: string, file: string, indexName?: string): Promise<string> {
  const args = ['-a', socket, '-n', 'k8s.io', 'images', 'import', ...(indexName ? ['--index-name', indexName] : []), file];
  for (let attempt = 1, delayMs = 250; ; attempt++, delayMs = Math.min(delayMs * 2, 4_000)) {
    try {
      const { stdout } = await run('ctr', args);
      return stdout;
    } catch (e) {
      if (attempt >= maxImportAttempts || !isContentRace(e)) throw e;
      await new Promise((resolve) => setTimeout(resolve, delayMs));
    }
  }
}

const maxImportAttempts = 6;

/** containerd's words for a blob collected under an import: `content digest sha256:...: not found`. */
export const isContentRace = (e: unknown): boolean => /content digest\b[^\n]*not found/i.test(String((e as Error)?.message ?? e));
