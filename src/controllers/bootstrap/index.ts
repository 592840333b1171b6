/** The bootstrap token controllers: tokencleaner and bootstrapsigner (kube-controller-manager's names). */
import type { ControllerFactory } from '../types.js';
import { BootstrapSigner } from './bootstrapsigner.js';
import { TokenCleaner } from './tokencleaner.js';

export { BootstrapSigner, bootstrapSignerName } from './bootstrapsigner.js';
export { TokenCleaner, tokenCleanerName, isTokenSecret } from './tokencleaner.js';
export { planSignedClusterInfo, signingTokens, nextExpiryMs } from './plan.js';

export const tokenCleanerController: ControllerFactory = (ctx) => new TokenCleaner(ctx);
export const bootstrapSignerController: ControllerFactory = (ctx) => new BootstrapSigner(ctx);
