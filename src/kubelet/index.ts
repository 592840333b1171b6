/** The node agent (kubelet) and the node simulator: the public surface for cli and tests. */
export { NodeAgent, nodeConfigFor, defaultRenewIntervalMs, defaultNodeStatusReportFrequencyMs } from './agent.js';
export type { NodeAgentOptions, NodeAgentDeps } from './agent.js';
export { NodeSimulator } from './simulator.js';
export type { NodeSimulatorOptions, SimulatedNodeOptions } from './simulator.js';
export { HeartbeatScheduler } from './heartbeat.js';
export type { HeartbeatTask, HeartbeatSchedulerOptions, HeartbeatStats } from './heartbeat.js';
export { PodSource } from './podsource.js';
export { NodeSource } from './nodesource.js';
export { Semaphore } from './semaphore.js';
export { createKubeletMetrics, serveMetrics } from './metrics.js';
export type { KubeletMetrics, MetricsServer } from './metrics.js';
export { parseDuration, mustParseDuration } from './duration.js';
export { realTimers, FakeTimers } from './timers.js';
export type { Timers } from './timers.js';
export type { PodRuntime, RuntimePodStatus, RuntimeContainerStatus, RuntimeSandboxStatus } from './runtime/runtime.js';
export { SimulatedRuntime, podCIDRForIndex, nodeIPForIndex, indexFromName } from './runtime/simulated/index.js';
export { kubeletVersion, controlPlaneTaint, annotationSimulated } from './nodestatus.js';
export { nodeLeaseNamespace } from './nodelease.js';
