/** `k8ts controller-manager`: the controllers and scheduler as a separate process. */
import { requireFlags } from './flag-errors.js';
import { parseArgs } from 'node:util';
import { readFileSync } from 'node:fs';
import { parseDuration } from './duration.js';
import { clusterSigningConfig, clusterSigningFlagOptions } from './cluster-signing.js';
import { bareBoolFlags, nodeCIDRConfigOrReport, nodeCIDRFlagOptions } from './node-cidrs.js';
import { createLogger } from '../util/log.js';

export const controllerManagerHelp = `Run the k8ts controllers and scheduler against an API server.

Usage:
  k8ts controller-manager --kubeconfig FILE [flags]

Flags:
      --kubeconfig string                  kubeconfig of the API server to manage (required)
      --controllers string                 all (or *), a list such as daemonset,garbagecollector,nodelifecycle,tainteviction,podgc,root-ca-cert-publisher,scheduler,
                                           or all but some: *,-scheduler (default all)
      --leader-elect                       elect a leader on the Lease kube-system/kube-controller-manager (default true)
      --node-monitor-grace-period duration heartbeat silence before a node is marked Unknown (default 50s)
      --metrics-port int                   serve /metrics on 127.0.0.1:PORT (default 10257; 0 picks a free port)
      --cluster-signing-cert-file string   csrsigning: the CA certificate that signs approved CSRs
      --cluster-signing-key-file string    csrsigning: its key (without both, csrsigning does not start)
      --cluster-signing-duration duration  csrsigning: the longest certificate it issues (default 8760h0m0s)
      --service-account-private-key-file string
                                           serviceaccount-token: the key that signs the tokens of
                                           kubernetes.io/service-account-token Secrets (without it, that controller does not start)
      --root-ca-file string                the CA bundle put in those Secrets' ca.crt and in kube-root-ca.crt ConfigMaps
                                           (default: the CA of --kubeconfig)
      --allocate-node-cidrs                nodeipam: give every Node a spec.podCIDR from --cluster-cidr
      --cluster-cidr string                nodeipam: the pod network, e.g. 10.244.0.0/16 (IPv4,IPv6 for dual stack)
      --node-cidr-mask-size int32          nodeipam: prefix length of each node's subnet (default 24 for IPv4, 64 for IPv6;
                                           also --node-cidr-mask-size-ipv4 / -ipv6)
  -h, --help                               help for controller-manager`;

export const schedulerHelp = `Run the k8ts scheduler alone against an API server (kube-scheduler).

Usage:
  k8ts scheduler --kubeconfig FILE [flags]

Flags:
      --kubeconfig string   kubeconfig of the API server (required)
      --leader-elect        elect a leader on the Lease kube-system/kube-scheduler (default true)
      --metrics-port int    serve /metrics and /healthz on 127.0.0.1:PORT (default 10259; 0 picks a free port)
  -h, --help                help for scheduler`;

export function runControllerManager(args: string[]): Promise<number> {
  return run(args, { component: 'controller-manager', metricsPort: '10257' });
}

/** `k8ts scheduler`: the same process with only the scheduler, on its own Lease as kube-scheduler has. */
export function runScheduler(args: string[]): Promise<number> {
  return run(args, { component: 'scheduler', metricsPort: '10259', controllers: 'scheduler', leaseName: 'kube-scheduler' });
}

async function run(args: string[], d: { component: string; metricsPort: string; controllers?: string; leaseName?: string }): Promise<number> {
  const { values } = parseArgs({
    args: bareBoolFlags(args, ['allocate-node-cidrs']), strict: true, options: {
      kubeconfig: { type: 'string' }, 'leader-elect': { type: 'string', default: 'true' }, 'metrics-port': { type: 'string', default: d.metricsPort },
      controllers: { type: 'string', default: 'all' }, 'node-monitor-grace-period': { type: 'string' },
      'service-account-private-key-file': { type: 'string' }, 'root-ca-file': { type: 'string' },
      ...clusterSigningFlagOptions,
      ...nodeCIDRFlagOptions,
    },
  });
  requireFlags(values, ['kubeconfig']);
  const nodeCIDRs = nodeCIDRConfigOrReport(values);
  if (!nodeCIDRs) return 1;
  // The controllers' code (and prom-client) load once the flags are good: `--help` and flag errors answer without them.
  const [{ parseControllersFlag, startControllerManager }, { startMetricsServer }] = await Promise.all([import('./controller-manager.js'), import('../util/metrics-server.js')]);
  const logger = createLogger(d.component);
  const metrics = await startMetricsServer(Number(values['metrics-port']));
  const cm = startControllerManager({
    client: values.kubeconfig, logger, leaderElect: values['leader-elect'] !== 'false', leaseName: d.leaseName,
    ...parseControllersFlag(d.controllers ?? values.controllers!), // the scheduler command ignores --controllers
    config: {
      ...(values['node-monitor-grace-period'] ? { nodeMonitorGracePeriodMs: parseDuration(values['node-monitor-grace-period']) } : {}),
      ...clusterSigningConfig(values),
      ...(values['service-account-private-key-file'] ? { serviceAccountPrivateKeyFile: values['service-account-private-key-file'] } : {}),
      // Read here, not by the controllers: a missing file is a start-up error, as upstream's.
      ...(values['root-ca-file'] ? { rootCA: readFileSync(values['root-ca-file'], 'utf8') } : {}),
      ...nodeCIDRs,
    },
  });
  logger.info(`${d.component} started`, { metricsPort: metrics.port });
  await new Promise<void>((resolve) => { process.once('SIGTERM', () => resolve()); process.once('SIGINT', () => resolve()); });
  logger.info('shutting down');
  await cm.stop();
  await metrics.close();
  return 0;
}
