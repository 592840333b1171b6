/**
 * A running pod whose container image changes (`kubectl set image pod/...`,
 * `kubectl patch pod ... '{"spec":{"containers":[{"name":..,"image":..}]}}'`,
 * `kubectl get pod -o yaml | sed ... | kubectl replace -f -`), as the kubelet
 * treats it. A container's image is one of the few pod fields that may change
 * after creation (ValidatePodUpdate). Upstream's computePodActions compares
 * each container's spec hash with the hash its running instance was started
 * from; when they differ:
 *
 *  1. the instance is killed, with the Normal event Killing "Container NAME
 *     definition changed, will be restarted";
 *  2. a new instance starts at once from the new spec (the crash back-off is
 *     keyed by the spec's hash, so a changed spec is not held back):
 *     restartCount + 1, lastState terminated, the new image pulled as any;
 *  3. an image reference that does not parse (`new image`) is not pulled:
 *     the image manager's applyDefaultImageTag fails and the container waits
 *     with reason InvalidImageName (events InspectFailed and Failed "Error:
 *     InvalidImageName"), until the image changes again.
 *
 * Completed init containers are not run again (upstream does not either).
 */
import type { Container } from 'kubernetes-types/core/v1.js';
import type { RuntimeContainerStatus } from '../runtime.js';
import { normalizeImage } from './images.js';

/** The Killing event's message for an instance stopped because its spec changed (kuberuntime_manager.go). */
export function definitionChangedMessage(name: string): string {
  return `Container ${name} definition changed, will be restarted`;
}

/**
 * The names of the containers whose running (or crash-looping) instance runs
 * another image than the spec now names. Waiting-for-pull containers are left
 * to the pull path, which pulls a new image at once.
 */
export function containersWithChangedImage(specs: readonly Container[], statuses: readonly RuntimeContainerStatus[], pulling: { has(name: string): boolean }): string[] {
  let out: string[] | undefined;
  for (const spec of specs) {
    if (pulling.has(spec.name)) continue;
    const s = statuses.find((x) => x.name === spec.name);
    if (!s || !s.id) continue;
    const live = s.state === 'running' || (s.state === 'waiting' && s.reason === 'CrashLoopBackOff');
    if (live && s.image !== normalized(String(spec.image ?? ''))) (out ??= []).push(spec.name);
  }
  return out ?? none;
}

const none: string[] = [];

// Every sync of every pod asks this; a node sees few distinct images, so their normalized names are kept (bounded).
const normalizedCache = new Map<string, string>();
function normalized(image: string): string {
  let n = normalizedCache.get(image);
  if (n === undefined) {
    if (normalizedCache.size >= 1024) normalizedCache.clear();
    n = normalizeImage(image);
    normalizedCache.set(image, n);
  }
  return n;
}

// The grammar of distribution/reference (reference/regexp.go), which the
// kubelet's parsers.ParseImageName applies through ParseNormalizedNamed.
const alnum = '[a-z0-9]+';
const separator = '(?:[._]|__|[-]+)';
const pathComponent = `${alnum}(?:${separator}${alnum})*`;
const domainComponent = '(?:[a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]*[a-zA-Z0-9])';
const domain = `(?:${domainComponent}(?:\\.${domainComponent})*|\\[[a-fA-F0-9:]+\\])(?::[0-9]+)?`;
const name = `(?:${domain}/)?${pathComponent}(?:/${pathComponent})*`;
const tag = '[\\w][\\w.-]{0,127}';
const digest = '[A-Za-z][A-Za-z0-9]*(?:[-_+.][A-Za-z][A-Za-z0-9]*)*:[0-9A-Fa-f]{32,}';
const referenceRegexp = new RegExp(`^(${name})(?::(${tag}))?(?:@(${digest}))?$`);
const identifierRegexp = /^[a-f0-9]{64}$/;

/**
 * Why the kubelet cannot use `image` (InvalidImageName's message, in
 * upstream's words), or undefined when the reference parses.
 */
export function invalidImageNameMessage(image: string): string | undefined {
  const why = referenceError(image);
  return why && `Failed to apply default image tag "${image}": couldn't parse image name "${image}": ${why}`;
}

function referenceError(image: string): string | undefined {
  if (identifierRegexp.test(image)) return `invalid repository name (${image}), cannot specify 64-byte hexadecimal strings`;
  const m = referenceRegexp.exec(image);
  if (!m) {
    if (image === '') return 'repository name must have at least one component';
    return referenceRegexp.test(image.toLowerCase()) ? 'repository name must be lowercase' : 'invalid reference format';
  }
  if (m[1]!.length > 255) return 'repository name must not be more than 255 characters';
  return undefined;
}
