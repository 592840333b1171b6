/** The HorizontalPodAutoscaler controller. */
export { horizontalPodAutoscalerController, HorizontalController, syncPeriodMs } from './controller.js';
export { resourceReplicas, podRequest, tolerance } from './replicas.js';
export { normalize, normalizeWithBehavior } from './normalize.js';
