/**
 * The `[scheme:]name[:port]` form of a proxy subresource's name
 * (apimachinery's utilnet.SplitSchemeNamePort), shared by nodes/proxy,
 * pods/proxy and services/proxy:
 *
 *  1. `name` alone, `name:port`, or `scheme:name:port` (three parts: the
 *     first is the scheme, and the port may be empty, `https:name:`).
 *  2. The scheme, when given, is `http` or `https`; the name is never empty.
 *  3. Anything else (four parts, an unknown scheme) is not valid: the caller
 *     answers 400 `invalid pod request "x"` in its own resource's words.
 */
export interface SchemeNamePort { scheme: '' | 'http' | 'https'; name: string; port: string }

export function splitSchemeNamePort(id: string): SchemeNamePort | undefined {
  const parts = id.split(':');
  let scheme = '', name: string, port = '';
  if (parts.length === 1) name = parts[0]!;
  else if (parts.length === 2) [name, port] = parts as [string, string];
  else if (parts.length === 3) [scheme, name, port] = parts as [string, string, string];
  else return undefined;
  if (!name || (scheme !== '' && scheme !== 'http' && scheme !== 'https')) return undefined;
  return { scheme, name, port };
}
