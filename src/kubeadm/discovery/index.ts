/** Join-side token discovery: read cluster-info anonymously, verify its JWS with the token, pin the CA. */
export { retrieveValidatedConfigInfo, validateClusterInfoToken } from './token.js';
export type { TokenDiscoveryOptions, DiscoveredClusterInfo } from './token.js';
export { validateDiscoveryBootstrapToken } from './validation.js';
export { parsePins, checkAnyPinned } from './pubkeypin.js';
export { clusterFromKubeconfig } from './kubeconfig.js';
export { fetchClusterInfo } from './fetch.js';
