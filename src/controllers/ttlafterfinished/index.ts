/** The TTL-after-finished controller. */
export { ttlAfterFinishedController, TTLAfterFinishedController } from './controller.js';
export { timeLeft, jobFinishTime } from './plan.js';
