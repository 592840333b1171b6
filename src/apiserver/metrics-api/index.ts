/** metrics.k8s.io served from the kubelets' summaries (metrics-server's role, in the API server). */
export { metricsGroup, metricsResources } from './resources.js';
export { SummaryScraper } from './scraper.js';
export { handleMetrics } from './handler.js';
