/**
 * What `kubectl get --raw='/readyz?verbose'` and `'/livez?verbose'` print on a
 * ready k8ts, written out as the API health endpoints page shows upstream's:
 * ping, log, etcd (and on /readyz etcd-readiness and informer-sync), the
 * post-start hooks k8ts has a step for, and /readyz's shutdown last.
 */
export const postStartHookLines = [
  '[+]poststarthook/start-apiextensions-controllers ok',
  '[+]poststarthook/start-system-namespaces-controller ok',
  '[+]poststarthook/start-cluster-authentication-info-controller ok',
  '[+]poststarthook/start-kube-apiserver-identity-lease-controller ok',
  '[+]poststarthook/start-kube-apiserver-identity-lease-garbage-collector ok',
  '[+]poststarthook/rbac/bootstrap-roles ok',
  '[+]poststarthook/scheduling/bootstrap-system-priority-classes ok',
  '[+]poststarthook/priority-and-fairness-config-producer ok',
  '[+]poststarthook/bootstrap-controller ok',
  '[+]poststarthook/start-kube-aggregator-informers ok',
  '[+]poststarthook/apiservice-registration-controller ok',
  '[+]poststarthook/kube-apiserver-autoregistration ok',
].join('\n');

export const readyzVerbose = `[+]ping ok\n[+]log ok\n[+]etcd ok\n[+]etcd-readiness ok\n[+]informer-sync ok\n${postStartHookLines}\n[+]shutdown ok\nreadyz check passed\n`;

export const livezVerbose = `[+]ping ok\n[+]log ok\n[+]etcd ok\n${postStartHookLines}\nlivez check passed\n`;
