/**
 * The server a container runs, as far as the simulator knows it: the
 * application images of the tutorials that need more than the image name
 * (agnhost's subcommand is in its args) or that talk to other pods (the
 * guestbook, WordPress), then the images of listeners.ts. A server runs
 * when the image's own entrypoint does (no `command`, except agnhost whose
 * args name what it serves, and redis-server named in the command);
 * undefined: nothing the simulator knows listens.
 */
import type { Container } from 'kubernetes-types/core/v1.js';
import { imageListener, type ImageListener } from './listeners.js';
import { repoAndTag } from './image-contents.js';
import { agnhostListener, goproxyListener } from './agnhost.js';
import { redisFollowerListener, redisServerListener } from './redis.js';
import { guestbookFrontendListener } from './guestbook.js';
import { mysqlListener, wordpressListener } from './wordpress.js';
import { mongoListener } from './mongo.js';

/** The servers of images whose entrypoint runs them (no command in the pod). */
function entrypointServer(repo: string, tag: string): ImageListener | undefined {
  switch (repo) {
    case 'registry.k8s.io/goproxy':
    case 'k8s.gcr.io/goproxy':
    case 'gcr.io/google_containers/goproxy': return goproxyListener;
    case 'us-docker.pkg.dev/google-samples/containers/gke/gb-redis-follower':
    case 'gcr.io/google-samples/gb-redis-follower':
    case 'gcr.io/google_samples/gb-redis-follower': return redisFollowerListener;
    case 'us-docker.pkg.dev/google-samples/containers/gke/gb-frontend':
    case 'gcr.io/google-samples/gb-frontend':
    case 'gcr.io/google_samples/gb-frontend': return guestbookFrontendListener;
    case 'docker.io/library/mysql': return mysqlListener(tag);
    case 'docker.io/library/mongo': return mongoListener(tag);
    case 'docker.io/library/wordpress': return tag.includes('fpm') ? undefined : wordpressListener;
    default: return undefined;
  }
}

export function containerListener(spec: Container): ImageListener | undefined {
  const image = String(spec.image ?? '');
  const { repo, tag } = repoAndTag(image);
  if (repo === 'registry.k8s.io/e2e-test-images/agnhost' || repo === 'k8s.gcr.io/e2e-test-images/agnhost') return agnhostListener(spec);
  // redis-server also runs when the command names it with a config file (the Configuring Redis using a ConfigMap page).
  if (repo === 'docker.io/library/redis') return redisServerListener(spec) ?? imageListener(image);
  const own = spec.command?.length ? undefined : entrypointServer(repo, tag);
  return own ?? imageListener(image);
}
