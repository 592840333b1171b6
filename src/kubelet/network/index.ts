export { PodNetwork, type PodNetworkOptions } from './podnet.js';
export { podNetworkBackends, type PodNetworkBackend } from './backend.js';
export { execRunner, type CommandRunner } from './commands.js';
export { teardownPodNetwork } from './teardown.js';
export { readPodNetworkState, writePodNetworkState, type PodNetworkState } from './state.js';
export { cniConflist, cniBridge, configuredSubnet, removeCNIConfig } from './cni-config.js';
export { runtimeCNIConfDir } from './runtime-cni.js';
