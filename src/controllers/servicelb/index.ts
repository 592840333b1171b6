/** The built-in service load balancer (k3s ServiceLB's idea): LoadBalancer Services get the nodes' addresses. */
export { serviceLBController, ServiceLBController } from './controller.js';
export { desiredIngress, handlesService } from './plan.js';
