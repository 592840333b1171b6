export { CRIRuntime } from './runtime.js';
export type { CRIRuntimeOptions } from './runtime.js';
export { CRIClient, criTarget, protoPath } from './client.js';
export { labelNodeName, labelPodUID, labelPodName, labelPodNamespace, labelContainerName, podLogDirectory, containerLogPath } from './config.js';
export { goGRPCError } from './images.js';
