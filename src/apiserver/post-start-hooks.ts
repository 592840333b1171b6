/**
 * kube-apiserver's post-start hooks as health checks (k8s.io/apiserver/pkg/server/hooks.go):
 *
 *  1. Each start step the control plane runs once the listener is open is a
 *     `poststarthook/NAME` check of /healthz, /livez and /readyz, named as
 *     upstream names the hook that does the same work.
 *  2. A hook's check fails with `not finished` until its step has run, so
 *     `kubectl get --raw='/readyz?verbose'` lists upstream's names and, while
 *     the server starts, shows which steps are still pending.
 *  3. Only hooks k8ts has a step for are listed (no OpenAPI aggregation
 *     controllers), in the order upstream's list has them.
 */
import type { HealthCheck } from './health.js';

export const postStartHookNames = [
  'start-apiextensions-controllers',
  'start-system-namespaces-controller',
  'start-cluster-authentication-info-controller',
  'start-kube-apiserver-identity-lease-controller',
  'start-kube-apiserver-identity-lease-garbage-collector',
  'rbac/bootstrap-roles',
  'scheduling/bootstrap-system-priority-classes',
  'priority-and-fairness-config-producer',
  'bootstrap-controller',
  'start-kube-aggregator-informers',
  'apiservice-registration-controller',
  'kube-apiserver-autoregistration',
] as const;

export type PostStartHookName = typeof postStartHookNames[number];

export class PostStartHooks {
  private readonly finished = new Set<PostStartHookName>();

  /** `absent`: hooks not registered, as upstream registers none behind a gate that is off (APIServerIdentity=false). */
  constructor(private readonly absent: readonly PostStartHookName[] = []) {}

  /** The step behind `name` has run: its check passes from now on. */
  finish(name: PostStartHookName): void { this.finished.add(name); }

  checks(): HealthCheck[] {
    return postStartHookNames.filter((name) => !this.absent.includes(name)).map((name) => ({ name: `poststarthook/${name}`, check: () => (this.finished.has(name) ? undefined : 'not finished') }));
  }
}
