/**
 * What a simulated node's image pull answers. No registry is asked (a
 * simulated node runs nothing and may have no network), so every image is
 * taken to exist except the ones that say they do not:
 *
 *  - the references the Kubernetes documentation uses as "an image that does
 *    not exist", so its commands show what the docs show: the Kubernetes
 *    Basics tutorial's `kubectl set image ... kubernetes-bootcamp:v10`, and
 *    the Deployment page's `nginx:1.161` typo and the `nginx:sometag` of its
 *    proportional scaling ("an image which happens to be unresolvable");
 *  - a repository the docs name that no registry has (the Quick
 *    Reference's `image:v2`, the Pod failure policy page's
 *    `non-existing-repo/non-existing-image:example`), refused as Docker Hub
 *    refuses it;
 *  - any image whose tag says it does not exist (`doesnotexist`,
 *    `does-not-exist`, `nonexistent`, `non-existent`, `notfound`,
 *    `not-found`), the convention to use in your own tests.
 *
 * Such a pull fails with containerd's NotFound, as the kubelet reports it on a
 * real node; the kubelet's back-off (ErrImagePull, then ImagePullBackOff) is the
 * simulated runtime's.
 */
import { normalizeImage } from './images.js';

/** Normalized references the Kubernetes docs use as images that do not exist. */
const documentedMissing: ReadonlySet<string> = new Set([
  'gcr.io/google-samples/kubernetes-bootcamp:v10',
  'docker.io/library/nginx:1.161',
  'docker.io/library/nginx:sometag',
]);

/**
 * Repositories the docs name that no registry has: the kubectl Quick
 * Reference's `kubectl set image deployment/frontend www=image:v2`
 * (docker.io/library/image) and the Pod failure policy page's config-issue Job. Docker Hub answers a pull of a repository that
 * does not exist with an authorization error, which containerd passes on.
 */
const documentedMissingRepos: ReadonlySet<string> = new Set(['docker.io/library/image', 'docker.io/non-existing-repo/non-existing-image']);

const missingTags: ReadonlySet<string> = new Set(['doesnotexist', 'does-not-exist', 'nonexistent', 'non-existent', 'notfound', 'not-found']);

/** The tag of a normalized reference (repo:tag[@digest]), or undefined. */
function tagOf(ref: string): string | undefined {
  const named = ref.split('@')[0]!;
  const colon = named.lastIndexOf(':');
  return colon > named.lastIndexOf('/') ? named.slice(colon + 1) : undefined;
}

/**
 * The pull error for an image a simulated node cannot pull, in the words of
 * the kubelet's event on containerd (`rpc error: code = NotFound desc = failed
 * to pull and unpack image ...`); undefined when the pull succeeds.
 */
export function simulatedPullError(image: string): string | undefined {
  const ref = normalizeImage(image);
  if (documentedMissingRepos.has(ref.split('@')[0]!.replace(/:[^:/]*$/, ''))) {
    return `rpc error: code = Unknown desc = failed to pull and unpack image "${ref}": failed to resolve reference "${ref}": ` +
      'pull access denied, repository does not exist or may require authorization: server message: insufficient_scope: authorization failed';
  }
  const tag = tagOf(ref);
  if (!documentedMissing.has(ref) && !(tag && missingTags.has(tag.toLowerCase()))) return undefined;
  return `rpc error: code = NotFound desc = failed to pull and unpack image "${ref}": failed to resolve reference "${ref}": ${ref}: not found`;
}
