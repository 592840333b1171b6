/**
 * The image pull policy upstream defaults from the image reference: Always when
 * the tag is `latest` (or there is no tag and no digest), IfNotPresent otherwise,
 * including references that do not parse.
 */
const pathComponent = /^[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*$/;
const tagPattern = /^[\w][\w.-]{0,127}$/;

/** The tag ParseImageName reports: 'latest' for an untagged name, '' for digests or bad references. */
export function imageTag(image: string): string {
  if (!image) return '';
  const at = image.indexOf('@');
  const name = at >= 0 ? image.slice(0, at) : image;
  const slash = name.lastIndexOf('/');
  const colon = name.lastIndexOf(':');
  const hasTag = colon > slash;
  const repo = hasTag ? name.slice(0, colon) : name;
  const tag = hasTag ? name.slice(colon + 1) : '';
  const parts = repo.split('/');
  const domain = parts.length > 1 && (parts[0].includes('.') || parts[0].includes(':') || parts[0] === 'localhost') ? parts.shift() : undefined;
  if (domain === '' || parts.some((p) => !pathComponent.test(p))) return '';
  if (hasTag) return tagPattern.test(tag) ? tag : '';
  return at >= 0 ? '' : 'latest';
}

export const defaultPullPolicy = (image: string) => (imageTag(image) === 'latest' ? 'Always' : 'IfNotPresent');
