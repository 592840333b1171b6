/** The DaemonSet controller and the pure rules it is built from. */
export { daemonSetController, DaemonSetsController, burstReplicas } from './controller.js';
export type { DaemonSetControllerOptions } from './controller.js';
export { nodeShouldRunDaemonPod, daemonPodSpec, sameDaemonPodInputs } from './predicates.js';
export type { ShouldRun } from './predicates.js';
export {
  podsShouldBeOnNode, planManage, planRollingUpdate, computeStatus, updatedDesiredNodeCounts, findUpdatedPodsOnNode,
  unscheduledPodsWithoutNode, groupByNode,
} from './plan.js';
export type { NodeToDaemonPods, PlanContext, ManagePlan, RollingPlan, DaemonSetCounts, PlanEvent } from './plan.js';
export {
  daemonPodTolerations, addDaemonPodTolerations, createPodTemplate, newDaemonPod, isPodUpdated, targetNodeName,
  scaledValueFromIntOrPercent, surgeCount, unavailableCount, allowsSurge, compareDaemonPods,
  controllerRevisionHashLabel, templateGenerationLabel, templateGenerationAnnotation, changeCauseAnnotation,
} from './util.js';
export { computeHash, revisionData, revisionMatches, newRevision, revisionsToDelete, canonicalJSON } from './history.js';
export { ControllerExpectations, Backoff } from './expectations.js';
