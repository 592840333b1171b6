/** kubeadm's bootstrap-token phase objects and steps. */
export * from './clusterinfo.js';
export * from './node.js';
export * from './phase.js';
