/**
 * kube-aggregator's availability check of one APIService with a service:
 * the Service must exist, have a ready endpoint on the port, and answer a
 * discovery GET of /apis/<group>/<version> with 2xx within 5 s. The
 * condition (reasons ServiceNotFound, MissingEndpoints, FailedDiscoveryCheck,
 * Passed) and the backend's APIResourceList are the result.
 */
import https from 'node:https';
import type { APIResourceList } from 'kubernetes-types/meta/v1.js';
import type { APIService, APIServiceCondition } from '../../api/apiregistration.js';
import { backendTLS, type ProxyClientCertificate } from './backend-tls.js';
import type { ServiceResolver } from '../service-resolver.js';

export interface Availability { condition: Omit<APIServiceCondition, 'lastTransitionTime'>; discovery?: APIResourceList }

const discoveryTimeoutMs = 5_000;

function getJSON(url: string, tls: https.RequestOptions): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = https.get(url, { ...tls, agent: false, headers: { Accept: 'application/json' }, timeout: discoveryTimeoutMs }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', reject);
    });
    req.on('timeout', () => req.destroy(new Error('context deadline exceeded')));
    req.on('error', reject);
  });
}

export async function checkAvailability(svc: APIService, resolver: ServiceResolver, client: ProxyClientCertificate | undefined): Promise<Availability> {
  const ref = svc.spec.service!;
  const where = resolver.route({ namespace: ref.namespace ?? '', name: ref.name ?? '', port: ref.port ?? 443 });
  if (!where.ok) return { condition: { type: 'Available', status: 'False', reason: where.reason, message: where.message } };
  const host = where.host.includes(':') ? `[${where.host}]` : where.host;
  const url = `https://${host}:${where.port}/apis/${svc.spec.group}/${svc.spec.version}`;
  const failed = (message: string): Availability => ({ condition: { type: 'Available', status: 'False', reason: 'FailedDiscoveryCheck', message } });
  try {
    const res = await getJSON(url, backendTLS(svc, client, where.serverName));
    if (res.status < 200 || res.status >= 300) return failed(`failing or missing response from ${url}: bad status from ${url}: ${res.status}`);
    let discovery: APIResourceList | undefined;
    try { discovery = JSON.parse(res.body) as APIResourceList; } catch { discovery = undefined; }
    return { condition: { type: 'Available', status: 'True', reason: 'Passed', message: 'all checks passed' }, discovery };
  } catch (e) {
    return failed(`failing or missing response from ${url}: Get "${url}": ${(e as Error).message}`);
  }
}
