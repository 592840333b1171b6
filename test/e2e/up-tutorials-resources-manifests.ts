/**
 * The manifests of the resource task pages (Assign Memory / CPU Resources,
 * Quality of Service, and the namespace pages under Manage Memory, CPU, and
 * API Resources), written out from what each page describes, as
 * up-tutorials-resources.test.ts applies them with `kubectl apply -f -`.
 */
import type { Container, LimitRange, Pod, ResourceQuota, ResourceRequirements } from 'kubernetes-types/core/v1.js';
import type { Deployment } from 'kubernetes-types/apps/v1.js';

type Resources = ResourceRequirements | undefined;

/** A pod of one container (the pages' `<pod>-ctr`), or of several. */
export function pod(name: string, containers: Container[]): string {
  const p: Pod = { apiVersion: 'v1', kind: 'Pod', metadata: { name }, spec: { containers } };
  return JSON.stringify(p);
}

export const ctr = (name: string, image: string, resources: Resources, more: Partial<Container> = {}): Container =>
  ({ name, image, ...(resources ? { resources } : {}), ...more });

/** Assign Memory Resources: polinux/stress allocating `bytes` under the page's request and limit. */
export const memoryDemo = (name: string, bytes: string, requests: string, limits: string) => pod(name, [ctr(`${name}-ctr`, 'polinux/stress',
  { requests: { memory: requests }, limits: { memory: limits } }, { command: ['stress'], args: ['--vm', '1', '--vm-bytes', bytes, '--vm-hang', '1'] })]);

/** Assign CPU Resources: vish/stress with `-cpus 2`. */
export const cpuDemo = (name: string, ctrName: string, requests: string, limits: string) =>
  pod(name, [ctr(ctrName, 'vish/stress', { limits: { cpu: limits }, requests: { cpu: requests } }, { args: ['-cpus', '2'] })]);

export function limitRange(name: string, limit: Record<string, Record<string, string>>): string {
  const lr: LimitRange = { apiVersion: 'v1', kind: 'LimitRange', metadata: { name }, spec: { limits: [{ ...limit, type: 'Container' }] } };
  return JSON.stringify(lr);
}

export function resourceQuota(name: string, hard: Record<string, string>): string {
  const q: ResourceQuota = { apiVersion: 'v1', kind: 'ResourceQuota', metadata: { name }, spec: { hard } };
  return JSON.stringify(q);
}

/** Configure a Pod Quota: three nginx replicas. */
export const podQuotaDeployment = JSON.stringify({
  apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'pod-quota-demo' },
  spec: {
    selector: { matchLabels: { purpose: 'quota-demo' } }, replicas: 3,
    template: { metadata: { labels: { purpose: 'quota-demo' } }, spec: { containers: [{ name: 'pod-quota-demo', image: 'nginx' }] } },
  },
} satisfies Deployment);
