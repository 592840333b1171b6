/**
 * Image names as a CRI runtime reports them: fully qualified
 * (docker.io/library/nginx:latest) with an image ID that is a digest. The
 * simulated digest is the SHA-256 of the reference, so it is stable.
 */
import { createHash } from 'node:crypto';

function splitReference(image: string): { repo: string; tag?: string; digest?: string } {
  const at = image.indexOf('@');
  const named = at >= 0 ? image.slice(0, at) : image;
  const digest = at >= 0 ? image.slice(at + 1) : undefined;
  const slash = named.lastIndexOf('/');
  const colon = named.lastIndexOf(':');
  if (colon > slash) return { repo: named.slice(0, colon), tag: named.slice(colon + 1), digest };
  return { repo: named, digest };
}

function qualify(repo: string): string {
  const first = repo.split('/')[0];
  const hasDomain = repo.includes('/') && (first.includes('.') || first.includes(':') || first === 'localhost');
  // docker.io/redis is docker.io/library/redis, as containerd's reference normalization has it (index.docker.io too).
  if (hasDomain && (first === 'docker.io' || first === 'index.docker.io')) return `docker.io/${repo.split('/').length === 2 ? 'library/' : ''}${repo.slice(first.length + 1)}`;
  if (hasDomain) return repo;
  return repo.includes('/') ? `docker.io/${repo}` : `docker.io/library/${repo}`;
}

export function normalizeImage(image: string): string {
  const { repo, tag, digest } = splitReference(image);
  const q = qualify(repo);
  if (digest) return tag ? `${q}:${tag}@${digest}` : `${q}@${digest}`;
  return `${q}:${tag ?? 'latest'}`;
}

export function simulatedImageID(image: string): string {
  // Every start of a container asks: a DaemonSet's 5,000 pods hash the same name 5,000 times without this.
  let id = imageIDs.get(image);
  if (id !== undefined) return id;
  const { repo, digest } = splitReference(image);
  const q = qualify(repo);
  id = `${q}@${digest ?? `sha256:${createHash('sha256').update(normalizeImage(image)).digest('hex')}`}`;
  if (imageIDs.size >= 1024) imageIDs.clear();
  imageIDs.set(image, id);
  return id;
}
const imageIDs = new Map<string, string>();
