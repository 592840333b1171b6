/** POST serviceaccounts/<name>/token: a TokenRequest answered with a signed token (serviceaccount/token-request.ts). */
import type { TokenRequest } from 'kubernetes-types/authentication/v1.js';
import { methodNotAllowed, serviceUnavailable } from '../../api/status.js';
import { decodeBody, mediaType, readBody } from '../body.js';
import { createToken, type TokenIssuer } from '../serviceaccount/token-request.js';
import { registryObjectGetter } from '../serviceaccount/index.js';
import type { RequestContext } from '../request-context.js';
import { HandlerContext } from './context.js';
import { writeAnswer } from './crud.js';

/** Admission of a TokenRequest before it is signed: NodeRestriction's (a node may only mint tokens bound to its own pods). */
export type TokenRequestAdmission = (namespace: string, serviceAccountName: string, tr: TokenRequest, ctx: RequestContext) => Promise<void>;

export async function handleTokenRequest(ctx: HandlerContext, issuer: TokenIssuer | undefined, admit?: TokenRequestAdmission): Promise<void> {
  if (ctx.info.verb !== 'create') { ctx.req.resume(); throw methodNotAllowed(); }
  if (!issuer) { ctx.req.resume(); throw serviceUnavailable('this API server has no service account signing key'); }
  const body = decodeBody(await readBody(ctx.req), mediaType(ctx.req), false, { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest' }) as TokenRequest;
  await admit?.(ctx.info.namespace!, ctx.info.name!, body, ctx.request);
  const out = await createToken(issuer, registryObjectGetter(ctx.registry), {
    namespace: ctx.info.namespace!, name: ctx.info.name!, body, now: ctx.now,
  });
  writeAnswer(ctx, 201, out);
}
