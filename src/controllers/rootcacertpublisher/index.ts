/** The root CA certificate publisher's factory and public pieces. */
import type { ControllerFactory } from '../types.js';
import { RootCACertPublisher } from './controller.js';

export { RootCACertPublisher, controllerName } from './controller.js';
export { planRootCAConfigMap, rootCACertConfigMapName, descriptionAnnotation, description } from './plan.js';

/** Publishes the CA the controller manager trusts the API server with (upstream's --root-ca-file, else the kubeconfig's CA). */
export const rootCACertPublisherController: ControllerFactory = (ctx) => new RootCACertPublisher(ctx, ctx.config.rootCA ?? '');
