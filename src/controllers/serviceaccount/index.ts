/** The service-account tokens controller's factory (upstream's --service-account-private-key-file signs; --root-ca-file, else the client's CA, goes in ca.crt). */
import { readFileSync } from 'node:fs';
import type { Secret, ServiceAccount } from 'kubernetes-types/core/v1.js';
import type { ControllerFactory } from '../types.js';
import { TokensController } from './controller.js';
import { signJWT, signingKey } from '../../api/serviceaccount-jwt.js';
import { legacyTokenClaims } from '../../api/legacy-serviceaccount-token.js';

export { TokensController, controllerName } from './controller.js';
export { planTokenSecret } from './plan.js';

export const tokensController: ControllerFactory = (ctx) => {
  const file = ctx.config.serviceAccountPrivateKeyFile;
  const key = file ? signingKey(readFileSync(file, 'utf8')) : undefined;
  const sign = key && ((sa: ServiceAccount, secret: Secret) => signJWT(legacyTokenClaims(sa, secret), key));
  return new TokensController(ctx, ctx.config.rootCA ?? '', sign);
};
