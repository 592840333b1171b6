/** The resourcequota controller's factory and public pieces. */
import type { ControllerFactory } from '../types.js';
import { ResourceQuotaController } from './controller.js';

export { ResourceQuotaController, controllerName } from './controller.js';
export { quotaStatus, resourcesToCount } from './usage.js';
export type { QuotaResource } from './usage.js';

export const resourceQuotaController: ControllerFactory = (ctx) => new ResourceQuotaController(ctx);
