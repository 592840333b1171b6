/** Static pods: manifest directory, mirror pods, the standalone kubelet. */
export { StaticPods, defaultFileCheckIntervalMs, defaultMirrorSyncIntervalMs } from './manager.js';
export type { StaticPodsOptions, StaticPodsDeps, StaticPodsAPI } from './manager.js';
export { StandaloneKubelet } from './standalone.js';
export type { StandaloneKubeletOptions, StandaloneKubeletDeps } from './standalone.js';
export {
  parseStaticPodManifest, staticPodName, staticPodHash, isIgnoredManifestName, isMirrorPod, isStaticPod, configHashOf,
  annotationConfigHash, annotationConfigMirror, annotationConfigSeen, annotationConfigSource,
} from './manifest.js';
export type { ManifestResult } from './manifest.js';
export { isMirrorPodOf, mirrorPodFor } from './mirror.js';
export { ManifestSource } from './source.js';
export { StaticPodStatus } from './status.js';
export type { PodStatusWriter } from './status.js';
