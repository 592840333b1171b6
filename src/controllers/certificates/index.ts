/** The certificate controllers, by upstream's names: csrapproving, csrsigning, csrcleaner. */
import type { ControllerFactory } from '../types.js';
import { CSRApprovingController } from './approver.js';
import { CSRSigningController } from './signer.js';
import { CSRCleanerController } from './cleaner.js';

export { CSRApprovingController, CSRSigningController, CSRCleanerController };
export { recognizers, isNodeClientCert, isSelfNodeClientCert, subjectAccessReviewFor } from './approver-rules.js';
export { checkRequestForSigner, validAPIServerClientUsages, signedSignerNames } from './signer-rules.js';
export { cleanupReason } from './cleaner-rules.js';

export const csrApprovingController: ControllerFactory = (ctx) => new CSRApprovingController(ctx);
export const csrSigningController: ControllerFactory = (ctx) => new CSRSigningController(ctx);
export const csrCleanerController: ControllerFactory = (ctx) => new CSRCleanerController(ctx);
