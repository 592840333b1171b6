/**
 * The kubelet's auth filter, run before any route (upstream server.go,
 * InstallAuthFilter; go-restful runs it for unknown paths too):
 *
 *  1. authenticate (authn.ts): nobody, or a failure to ask → 401 "Unauthorized";
 *  2. the request's attributes (attributes.ts);
 *  3. authorize (authz.ts): a failure to ask → 500 "Authorization error
 *     (user=..., verb=..., resource=nodes, subresource=...)"; not allowed →
 *     403 "Forbidden (user=..., ...)"; allowed → the route serves it.
 */
import type { IncomingMessage } from 'node:http';
import type { Logger } from '../../util/log.js';
import { describeAttributes, requestAttributes } from './attributes.js';
import type { KubeletAuthenticator, KubeletUser } from './authn.js';
import type { KubeletAuthorizer } from './authz.js';

export interface KubeletAuth {
  authenticate: KubeletAuthenticator;
  authorize: KubeletAuthorizer;
}

export type AuthOutcome = { ok: true; user: KubeletUser } | { ok: false; code: 401 | 403 | 500; body: string };

export async function authenticateAndAuthorize(auth: KubeletAuth, nodeName: string, req: IncomingMessage, path: string, logger: Logger): Promise<AuthOutcome> {
  let user: KubeletUser | undefined;
  try {
    user = await auth.authenticate(req);
  } catch (e) {
    logger.error('Unable to authenticate the request due to an error', { err: (e as Error)?.message ?? String(e) });
    return { ok: false, code: 401, body: 'Unauthorized' };
  }
  if (!user) return { ok: false, code: 401, body: 'Unauthorized' };
  const attrs = requestAttributes(user, req.method, path, nodeName);
  let allowed: boolean;
  try {
    allowed = await auth.authorize(attrs);
  } catch (e) {
    logger.error('Authorization error', { user: user.name, verb: attrs.verb, subresource: attrs.subresource, err: (e as Error)?.message ?? String(e) });
    return { ok: false, code: 500, body: `Authorization error ${describeAttributes(attrs)}` };
  }
  if (!allowed) {
    logger.debug('Forbidden', { user: user.name, verb: attrs.verb, subresource: attrs.subresource });
    return { ok: false, code: 403, body: `Forbidden ${describeAttributes(attrs)}` };
  }
  return { ok: true, user };
}
