/**
 * `k8ts proxy`: kube-proxy in nftables mode. Flags keep kube-proxy's names;
 * SIGTERM stops the informers and leaves table `ip kube-proxy` in place, as
 * upstream does, so Services keep working while the proxy restarts.
 */
import http from 'node:http';
import { hostname } from 'node:os';
import { parseArgs } from 'node:util';
import { Registry } from 'prom-client';
import { Clientset, inClusterConfig, loadKubeconfig, type ClientConfig } from '../client/index.js';
import { createLogger } from '../util/log.js';
import { startMetricsServer } from '../util/metrics-server.js';
import { Proxier } from '../proxy/proxier.js';
import { proxyMetrics } from '../proxy/metrics.js';
import { isIPv4CIDR } from '../proxy/node-addresses.js';
import { parseDuration } from './duration.js';
import { NetworkPolicyAgent } from '../netpol/agent.js';
import { kubeProxyFlagsFromConfig, readKubeProxyConfigFile } from './kube-proxy-config-file.js';
import { componentUserAgent } from '../util/user-agent.js';

export const proxyHelp = `Run kube-proxy (nftables mode): program this node's Service rules from Services and EndpointSlices.

Usage:
  k8ts proxy [--kubeconfig FILE] [flags]

Flags:
      --config string                  a KubeProxyConfiguration file (kubeadm's kube-proxy ConfigMap, config.conf); its values
                                       replace the flags below, except --hostname-override and --network-policy
      --kubeconfig string              kubeconfig of the API server (default: in-cluster service account)
      --hostname-override string       the name of this node (default: the host name)
      --cluster-cidr string            the pod network; traffic from outside it to a cluster IP is masqueraded
      --nodeport-addresses strings     "primary" (the node's InternalIP, the default) or CIDRs whose local addresses accept NodePorts
      --metrics-bind-address string    /metrics on this address (default "127.0.0.1:10249")
      --healthz-bind-address string    /healthz on this address (default "0.0.0.0:10256")
      --min-sync-period duration       the shortest time between two syncs of the rules (default 1s)
      --network-policy string          "true" (default): also enforce NetworkPolicies for this node's pods (table inet k8ts-netpol), as kube-router does beside its proxy; "false": do not
  -h, --help                           help for proxy`;

function hostPort(s: string, flag: string): { host: string; port: number } {
  const i = s.lastIndexOf(':');
  const port = Number(s.slice(i + 1));
  if (i < 0 || !Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`invalid ${flag} "${s}": want host:port`);
  return { host: s.slice(0, i) || '0.0.0.0', port };
}

function nodePortAddresses(v: string | undefined): 'primary' | string[] {
  if (!v || v === 'primary') return 'primary';
  const cidrs = v.split(',').map((c) => c.trim()).filter(Boolean);
  const bad = cidrs.find((c) => !isIPv4CIDR(c));
  if (bad) throw new Error(`invalid --nodeport-addresses "${bad}": must be "primary" or a list of CIDRs`);
  return cidrs;
}

/** kube-proxy's healthz: 200 with the last sync time, 503 once a sync is overdue. */
function startHealthz(addr: { host: string; port: number }, lastOk: () => number): Promise<http.Server> {
  const server = http.createServer((req, res) => {
    if (req.url !== '/healthz' && req.url !== '/livez') { res.statusCode = 404; res.end('404 page not found\n'); return; }
    const last = lastOk();
    const healthy = last > 0;
    res.statusCode = healthy ? 200 : 503;
    res.setHeader('Content-Type', 'application/json');
    res.end(JSON.stringify({ lastUpdated: new Date(last || 0).toISOString(), currentTime: new Date().toISOString(), nodeEligible: true }));
  });
  return new Promise((resolve, reject) => { server.once('error', reject); server.listen(addr.port, addr.host, () => resolve(server)); });
}

export async function runProxy(args: string[]): Promise<number> {
  const { values: flags } = parseArgs({
    args, strict: true, options: {
      kubeconfig: { type: 'string' }, 'hostname-override': { type: 'string' }, 'cluster-cidr': { type: 'string' },
      'nodeport-addresses': { type: 'string' }, 'metrics-bind-address': { type: 'string', default: '127.0.0.1:10249' },
      'healthz-bind-address': { type: 'string', default: '0.0.0.0:10256' }, 'min-sync-period': { type: 'string', default: '1s' },
      'network-policy': { type: 'string', default: 'true' }, config: { type: 'string' },
    },
  });
  let values: Record<string, string | undefined> = flags;
  if (flags.config) {
    try {
      values = { ...kubeProxyFlagsFromConfig(readKubeProxyConfigFile(flags.config), flags['hostname-override']), 'network-policy': flags['network-policy'] };
    } catch (e) { console.error(`Error: ${(e as Error).message}`); return 1; }
  }
  const clusterCIDR = values['cluster-cidr'];
  if (clusterCIDR && !isIPv4CIDR(clusterCIDR)) { console.error(`Error: invalid --cluster-cidr "${clusterCIDR}"`); return 1; }
  let npa: 'primary' | string[];
  let metricsAddr: { host: string; port: number };
  let healthzAddr: { host: string; port: number };
  let minSync: number;
  try {
    npa = nodePortAddresses(values['nodeport-addresses']);
    metricsAddr = hostPort(values['metrics-bind-address']!, '--metrics-bind-address');
    healthzAddr = hostPort(values['healthz-bind-address']!, '--healthz-bind-address');
    minSync = parseDuration(values['min-sync-period']!);
  } catch (e) { console.error(`Error: ${(e as Error).message}`); return 1; }
  const networkPolicy = values['network-policy'];
  if (networkPolicy !== 'true' && networkPolicy !== 'false') { console.error(`Error: invalid argument "${networkPolicy}" for "--network-policy" flag: strconv.ParseBool: parsing "${networkPolicy}": invalid syntax`); return 1; }
  let config: ClientConfig;
  try { config = values.kubeconfig ? loadKubeconfig(values.kubeconfig) : inClusterConfig(); } catch (e) { console.error(`Error: ${(e as Error).message}`); return 1; }
  const logger = createLogger('kube-proxy');
  const registry = new Registry();
  const metrics = await startMetricsServer(metricsAddr.port, metricsAddr.host, registry);
  const nodeName = (values['hostname-override'] ?? hostname()).toLowerCase();
  const clientset = new Clientset(config, { userAgent: componentUserAgent('kube-proxy') });
  let lastOk = 0;
  const pm = proxyMetrics(registry);
  const proxier = new Proxier({
    clientset, hostname: nodeName, clusterCIDR, nodePortAddresses: npa, minSyncPeriodMs: minSync,
    fullSyncPeriodMs: 3_600_000, logger,
    metrics: { syncFailures: pm.syncFailures, observe: (f, s, n) => { lastOk = Date.now(); pm.observe(f, s, n); } },
  });
  const healthz = await startHealthz(healthzAddr, () => lastOk);
  logger.info('kube-proxy starting', { mode: 'nftables', node: nodeName, clusterCIDR, nodePortAddresses: npa, metricsPort: metrics.port });
  // NetworkPolicy enforcement rides on the proxy DaemonSet (one agent per node, as kube-router's), so
  // every node that runs Services enforces policies with nothing more to deploy.
  const netpol = networkPolicy === 'true'
    ? new NetworkPolicyAgent({ clientset, nodeName, logger: createLogger('network-policy'), minSyncPeriodMs: Math.min(minSync, 250) })
    : undefined;
  // The agent starts beside the proxier, not before it: Services must not wait for a NetworkPolicy
  // informer (one the proxy's credentials may not be allowed to list).
  const netpolStarted = netpol?.start().then(() => logger.info('network policy agent running', { node: nodeName }),
    (e: Error) => logger.error('network policy agent failed', { err: e.message }));
  await proxier.start();
  logger.info('kube-proxy running', { networkPolicy: !!netpol });
  await new Promise<void>((resolve) => { process.once('SIGTERM', () => resolve()); process.once('SIGINT', () => resolve()); });
  logger.info('shutting down; nftables rules stay in place');
  proxier.stop();
  netpol?.stop();
  await Promise.all([proxier.idle(), netpol?.idle(), netpolStarted]);
  healthz.close();
  healthz.closeAllConnections();
  await metrics.close();
  clientset.close();
  return 0;
}
