/**
 * client-go's rest.InClusterConfig: a pod reaches the API server at
 * KUBERNETES_SERVICE_HOST:KUBERNETES_SERVICE_PORT with its mounted
 * service-account token (re-read as it rotates) and the cluster CA beside it.
 */
import { readFileSync } from 'node:fs';
import { isIPv6 } from 'node:net';
import type { ClientConfig } from './kubeconfig.js';

export const serviceAccountDir = '/var/run/secrets/kubernetes.io/serviceaccount';

export function inClusterConfig(env: NodeJS.ProcessEnv = process.env, dir = serviceAccountDir): ClientConfig {
  const host = env.KUBERNETES_SERVICE_HOST;
  const port = env.KUBERNETES_SERVICE_PORT;
  // client-go's words (rest.ErrNotInCluster).
  if (!host || !port) throw new Error('unable to load in-cluster configuration, KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT must be defined');
  const tokenFile = `${dir}/token`;
  return {
    server: `https://${isIPv6(host) ? `[${host}]` : host}:${port}`,
    caPem: readFileSync(`${dir}/ca.crt`, 'utf8'),
    token: readFileSync(tokenFile, 'utf8').trim(),
    tokenFile,
  };
}
