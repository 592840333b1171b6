/** `k8ts dns`: the cluster DNS server (CoreDNS's place in a kubeadm cluster). */
import { parseArgs } from 'node:util';
import { Registry } from 'prom-client';
import { inClusterConfig, loadKubeconfig } from '../client/index.js';
import { startClusterDNS } from '../dns/cluster-dns.js';
import { startProbeServer } from '../dns/health.js';
import { readUpstreams } from '../dns/resolv-conf.js';
import { createLogger } from '../util/log.js';
import { startMetricsServer } from '../util/metrics-server.js';

export const dnsHelp = `Run the cluster DNS server: the Kubernetes DNS specification for Services and
EndpointSlices under the cluster domain, other names forwarded to the nameservers of --resolv-conf.

Usage:
  k8ts dns [flags]

Flags:
      --kubeconfig string       kubeconfig of the API server (default: in-cluster service account)
      --bind-address string     address to serve DNS on, UDP and TCP (default 0.0.0.0)
      --port int                DNS port (default 53)
      --cluster-domain string   the cluster's domain (default cluster.local)
      --resolv-conf string      nameservers to forward other names to (default /etc/resolv.conf)
      --health-port int         serve /health on this port, as CoreDNS's health plugin (default 8080; 0 picks a free port)
      --ready-port int          serve /ready on this port, as CoreDNS's ready plugin (default 8181; 0 picks a free port)
      --metrics-port int        serve /metrics on this port, as CoreDNS's prometheus plugin (default 9153; 0 picks a free port)
  -h, --help                    help for dns`;

export async function runDns(args: string[]): Promise<number> {
  const { values } = parseArgs({
    args, strict: true, options: {
      kubeconfig: { type: 'string' }, 'bind-address': { type: 'string', default: '0.0.0.0' }, port: { type: 'string', default: '53' },
      'cluster-domain': { type: 'string', default: 'cluster.local' }, 'resolv-conf': { type: 'string', default: '/etc/resolv.conf' },
      'health-port': { type: 'string', default: '8080' }, 'ready-port': { type: 'string', default: '8181' }, 'metrics-port': { type: 'string', default: '9153' },
    },
  });
  const logger = createLogger('dns');
  const host = values['bind-address']!;
  const client = values.kubeconfig ? loadKubeconfig(values.kubeconfig) : inClusterConfig();
  const upstreams = readUpstreams(values['resolv-conf']!);
  if (!upstreams.length) logger.warn('no nameserver to forward to: names outside the cluster answer SERVFAIL', { resolvConf: values['resolv-conf'] });
  const registry = new Registry();
  const dns = await startClusterDNS({ client, host, port: Number(values.port), clusterDomain: values['cluster-domain']!, upstreams, logger, registry });
  const health = await startProbeServer(host, Number(values['health-port']), '/health', () => true);
  const ready = await startProbeServer(host, Number(values['ready-port']), '/ready', dns.ready);
  const metrics = await startMetricsServer(Number(values['metrics-port']), host, registry);
  logger.info('dns server started', {
    address: host, port: Number(values.port), clusterDomain: values['cluster-domain'], upstreams: upstreams.map((u) => `${u.host}:${u.port}`),
    healthPort: health.port, readyPort: ready.port, metricsPort: metrics.port,
  });
  await new Promise<void>((resolve) => { process.once('SIGTERM', () => resolve()); process.once('SIGINT', () => resolve()); });
  logger.info('shutting down');
  await Promise.all([dns.close(), health.close(), ready.close(), metrics.close()]);
  return 0;
}
