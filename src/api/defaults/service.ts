/**
 * Service defaulting: SetDefaults_Service plus what the service strategy fills
 * before allocation (clusterIPs kept in step with clusterIP, the IP family
 * policy). Allocating cluster IPs, node ports and IP families is the registry's job.
 */
import { Obj, ensure, isObj, list, objects, setDefault } from './util.js';

export function defaultService(svc: Obj): void {
  const spec = ensure(svc, 'spec');
  setDefault(spec, 'sessionAffinity', 'None');
  if (spec.sessionAffinity === 'None') delete spec.sessionAffinityConfig;
  if (spec.sessionAffinity === 'ClientIP' && !(isObj(spec.sessionAffinityConfig) && isObj(spec.sessionAffinityConfig.clientIP)
    && typeof spec.sessionAffinityConfig.clientIP.timeoutSeconds === 'number')) {
    spec.sessionAffinityConfig = { clientIP: { timeoutSeconds: 10800 } };
  }
  setDefault(spec, 'type', 'ClusterIP');
  for (const port of objects(spec.ports)) {
    setDefault(port, 'protocol', 'TCP');
    if (port.targetPort === undefined || port.targetPort === null || port.targetPort === 0 || port.targetPort === '') port.targetPort = port.port;
  }
  const externallyAccessible = spec.type === 'LoadBalancer' || spec.type === 'NodePort' || (spec.type === 'ClusterIP' && list(spec.externalIPs).length > 0);
  if (externallyAccessible) setDefault(spec, 'externalTrafficPolicy', 'Cluster');
  if (['NodePort', 'LoadBalancer', 'ClusterIP'].includes(spec.type)) setDefault(spec, 'internalTrafficPolicy', 'Cluster');
  if (spec.type === 'LoadBalancer') setDefault(spec, 'allocateLoadBalancerNodePorts', true);
  if (spec.type === 'ExternalName') return;
  if (typeof spec.clusterIP === 'string' && spec.clusterIP && list(spec.clusterIPs).length === 0) spec.clusterIPs = [spec.clusterIP];
  if (!spec.clusterIP && list(spec.clusterIPs).length > 0) spec.clusterIP = spec.clusterIPs[0];
  const headlessWithoutSelector = spec.clusterIP === 'None' && Object.keys(isObj(spec.selector) ? spec.selector : {}).length === 0;
  setDefault(spec, 'ipFamilyPolicy', headlessWithoutSelector ? 'RequireDualStack' : 'SingleStack');
}
