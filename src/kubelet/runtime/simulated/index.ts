export { SimulatedRuntime, simulatedRuntimeType, simulatedRuntimeVersion } from './runtime.js';
export type { SimulatedRuntimeOptions } from './runtime.js';
export { podCIDRForIndex, nodeIPForIndex, indexFromName, IPPool } from './ipam.js';
export {
  simScript, annotationStartDelay, annotationReadyDelay, annotationReady, annotationFailAfter, annotationCompleteAfter, annotationExitCode,
  annotationLivenessFail, annotationReadinessFail, annotationStartupFail, containerCrashes, probeFails,
} from './annotations.js';
export type { SimScript } from './annotations.js';
export { normalizeImage, simulatedImageID } from './images.js';
