/**
 * Which container starts pull their image on a simulated node, as the
 * kubelet's image manager decides (pkg/kubelet/images image_manager.go,
 * EnsureImageExists), so the Pulling and Pulled events are upstream's:
 *
 *  1. imagePullPolicy Never: no pull (the image is taken to be there).
 *  2. Always (the API's default for `:latest` or no tag): a pull at every
 *     start of the container, restarts included.
 *  3. IfNotPresent: a pull on the node's first use of the image; later
 *     starts find it ("already present on machine").
 *
 * Nothing is downloaded: the pull takes no time (`in 0s`) and the size is
 * made up from the image's name (stable, 2 to 130 MB), not the image's own.
 * Only nodes that keep logs (`k8ts up`'s) pull so: `k8ts sim`'s nodes say
 * "already present" and write one Event fewer per pod start.
 */
import { createHash } from 'node:crypto';
import type { Container } from 'kubernetes-types/core/v1.js';
import { defaultPullPolicy } from '../../../api/defaults/image.js';
import type { PulledImage } from '../runtime.js';
import { normalizeImage } from './images.js';

export class NodeImages {
  /** Normalized names of the images this node has pulled. */
  private readonly present = new Set<string>();

  /** The pull before a start of c, or undefined when the node uses the image it has. */
  pullFor(c: Container): PulledImage | undefined {
    const image = String(c.image ?? '');
    const policy = c.imagePullPolicy ?? defaultPullPolicy(image);
    if (policy === 'Never') return undefined;
    const name = normalizeImage(image);
    if (policy !== 'Always' && this.present.has(name)) return undefined;
    this.present.add(name);
    return { ms: 0, size: simulatedImageSize(name) };
  }
}

/** A made-up compressed size for an image, the same for every pull of it. */
export function simulatedImageSize(name: string): number {
  const h = createHash('sha256').update(name).digest().readUInt32BE(0);
  return 2_000_000 + (h % 128_000_000);
}
