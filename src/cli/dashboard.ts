/**
 * `k8ts dashboard`: the dashboard for users whose kubeconfig holds a client
 * certificate (kubeadm's admin.conf) or a token, served locally as
 * `kubectl proxy` serves the API: plain HTTP on loopback, every request
 * forwarded with the kubeconfig's credentials, guarded against DNS
 * rebinding and cross-site requests (src/dashboard/proxy/).
 */
import { existsSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { isIP } from 'node:net';
import { parse } from 'yaml';
import { Registry } from 'prom-client';
import { loadKubeconfig, type ClientConfig } from '../client/index.js';
import { createLogger } from '../util/log.js';
import { packageRoot } from '../util/package-root.js';
import { startMetricsServer } from '../util/metrics-server.js';
import { startDashboardProxy } from '../dashboard/proxy/server.js';
import { defaultAcceptHosts } from '../dashboard/proxy/request-filter.js';

export const dashboardHelp = `Serve the dashboard locally, acting with a kubeconfig's credentials (as kubectl proxy does).

Usage:
  k8ts dashboard [--kubeconfig FILE] [--context NAME] [--address 127.0.0.1] [--port 8001]

Anyone who can reach the port acts as the kubeconfig's user, so it binds to loopback,
refuses requests whose Host is not an accepted host (DNS rebinding) and requests
from other sites (an Origin that is not its own, Sec-Fetch-Site cross-site or same-site).

Flags:
      --kubeconfig string             the kubeconfig to act with: client certificate or token
                                      (default $KUBECONFIG, then ~/.kube/config, then ./.k8ts/admin.conf)
      --context string                the kubeconfig context to use (default: its current-context)
      --address string                the IP address to serve on (default "127.0.0.1")
  -p, --port int                      the port to serve on; 0 picks a free one (default 8001)
      --accept-hosts string           regular expressions for the hosts (Host header, without port) to accept
                                      (default "${defaultAcceptHosts.join(',')}", and --address when it is an IP)
      --metrics-bind-address string   serve /metrics on this host:port (default: off)
  -h, --help                          help for dashboard`;

export async function runDashboard(args: string[]): Promise<number> {
  const { values } = parseArgs({
    args, strict: true, allowPositionals: false, options: {
      kubeconfig: { type: 'string' }, context: { type: 'string' }, address: { type: 'string', default: '127.0.0.1' },
      port: { type: 'string', short: 'p', default: '8001' }, 'accept-hosts': { type: 'string' }, 'metrics-bind-address': { type: 'string' },
    },
  });
  const port = Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535) { console.error(`error: invalid argument "${values.port}" for "-p, --port" flag: must be 0-65535`); return 1; }
  if (!isIP(values.address!)) { console.error(`error: invalid argument "${values.address}" for "--address" flag: not an IP address`); return 1; }
  const metricsAt = values['metrics-bind-address'] === undefined ? undefined : hostPort(values['metrics-bind-address']);
  if (metricsAt === null) { console.error(`error: invalid argument "${values['metrics-bind-address']}" for "--metrics-bind-address" flag: want host:port`); return 1; }
  const path = kubeconfigPath(values.kubeconfig);
  if (!existsSync(path)) { console.error(`error: stat ${path}: no such file or directory`); return 1; }
  let config: ClientConfig;
  let namespace: string | undefined;
  let context: string | undefined;
  try {
    ({ context, namespace } = contextOf(path, values.context));
    config = loadKubeconfig(path, context);
  } catch (e) { console.error(`error: ${(e as Error).message}`); return 1; }
  const logger = createLogger('dashboard');
  const acceptHosts = values['accept-hosts'] ? values['accept-hosts'].split(',').filter(Boolean) : [...defaultAcceptHosts];
  // A specific address the user chose is a host they mean to use; 0.0.0.0 names no host.
  if (!values['accept-hosts'] && !['0.0.0.0', '::'].includes(values.address!)) acceptHosts.push(`^${hostPattern(values.address!)}$`);
  if (!/^(127\.|::1$)/.test(values.address!)) logger.warn('serving beyond loopback: anyone who reaches this address acts as the kubeconfig\'s user', { address: values.address });
  // exec plugins and auth-providers are not read (loadKubeconfig): say so rather than serve anonymously unnoticed.
  if (!(config.certPem && config.keyPem) && !config.token) logger.warn('the kubeconfig\'s user has no client certificate or token k8ts can use: requests go as system:anonymous', { kubeconfig: path, context });
  const registry = new Registry();
  let proxy;
  try {
    proxy = await startDashboardProxy({
      config, context, namespace, address: values.address!, port, acceptHosts, webRoot: join(packageRoot(), 'dist', 'web'), logger, registry,
    });
  } catch (e) {
    const err = e as NodeJS.ErrnoException;
    if (err.code === 'EADDRINUSE') { console.error(`error: listen tcp ${values.address}:${port}: bind: address already in use`); return 1; }
    throw err;
  }
  const metrics = metricsAt ? await startMetricsServer(metricsAt.port, metricsAt.host, registry) : undefined;
  console.log(`Starting to serve the dashboard on ${proxy.url}`);
  logger.info('dashboard proxy ready', { url: proxy.url, server: config.server, context, metricsPort: metrics?.port });
  const signal = await new Promise<NodeJS.Signals>((resolve) => { process.once('SIGTERM', resolve); process.once('SIGINT', resolve); });
  logger.info('shutting down', { signal });
  await Promise.all([proxy.close(), metrics?.close()]);
  return 0;
}

/** kubectl's order: the flag, $KUBECONFIG (its first file), ~/.kube/config; then the quick start's own. */
function kubeconfigPath(flag: string | undefined): string {
  if (flag) return flag;
  const env = process.env.KUBECONFIG?.split(':').find(Boolean);
  if (env) return env;
  const home = join(homedir(), '.kube', 'config');
  return existsSync(home) ? home : join('.k8ts', 'admin.conf');
}

/** The context to use and its namespace (what kubectl defaults -n to). */
function contextOf(path: string, asked: string | undefined): { context?: string; namespace?: string } {
  const doc = parse(readFileSync(path, 'utf8')) ?? {};
  const name: string | undefined = asked ?? doc['current-context'];
  const entry = (doc.contexts ?? []).find((c: { name?: string }) => c.name === name) as { context?: { namespace?: string } } | undefined;
  if (!entry) throw new Error(asked ? `context was not found for specified context: ${asked}` : 'current-context is not set in the kubeconfig');
  return { context: name, namespace: entry.context?.namespace };
}

function hostPattern(address: string): string {
  const host = address.includes(':') ? `[${address}]` : address;
  return host.replace(/[.[\]]/g, '\\$&');
}

/** "127.0.0.1:9090" → host and port; null when it is not that shape. */
function hostPort(s: string): { host: string; port: number } | null {
  const i = s.lastIndexOf(':');
  const port = Number(s.slice(i + 1));
  if (i < 0 || s.slice(i + 1) === '' || !Number.isInteger(port) || port < 0 || port > 65535) return null;
  return { host: s.slice(0, i).replace(/^\[(.*)\]$/, '$1') || '127.0.0.1', port };
}
