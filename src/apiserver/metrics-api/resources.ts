/**
 * metrics.k8s.io/v1beta1 as metrics-server registers it: NodeMetrics
 * ("nodes", cluster-scoped) and PodMetrics ("pods", namespaced), get and list
 * only. They are not stored, so they live outside the registry's catalogue;
 * the API server adds them to discovery when it can reach kubelets.
 */
import type { ResourceInfo } from '../../api/resources.js';

export const metricsGroup = 'metrics.k8s.io';
export const metricsVersion = 'v1beta1';

const metricsResource = (kind: string, plural: string, namespaced: boolean): ResourceInfo => ({
  group: metricsGroup, version: metricsVersion, kind, listKind: `${kind}List`, plural, singular: '', namespaced,
  shortNames: [], categories: [], verbs: ['get', 'list'], subresources: [],
});

export const metricsResources: readonly ResourceInfo[] = [
  metricsResource('NodeMetrics', 'nodes', false),
  metricsResource('PodMetrics', 'pods', true),
];
