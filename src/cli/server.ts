/**
 * `k8ts server`: the API server on embedded SQLite (or etcd with --etcd-servers), HTTPS only.
 * This module holds the help and the flags only: the control plane's modules load once the
 * flags are good (`k8ts server --help` or a bad flag answers without them).
 */
import { parseFeatureGates } from './feature-gates.js';
import { requireFlags } from './flag-errors.js';
import { parseArgs } from 'node:util';
import { parseDuration } from './duration.js';
import { clusterSigningConfig, clusterSigningFlagOptions } from './cluster-signing.js';
import { bareBoolFlags, nodeCIDRConfigOrReport, nodeCIDRFlagOptions } from './node-cidrs.js';
import { parsePortRange } from '../util/port-range.js';
import { parseServiceIPRange } from '../registry/service-allocation.js';
import { parseAuthorizationModes, type AuthorizationMode } from '../apiserver/authz/index.js';
import { etcdConfig, etcdFlagOptions, etcdFlagsHelp, type EtcdConfig } from './storage-flags.js';
import { enabledAdmissionPlugins, pluginList, type AdmissionPluginName } from '../apiserver/admission/plugins.js';
import { defaultSeats } from '../apiserver/flowcontrol/fair-queue.js';

export const serverHelp = `Run the k8ts API server.

Usage:
  k8ts server --data-dir DIR [flags]

Flags:
      --data-dir string          directory for the database, PKI and admin.conf (required)
${etcdFlagsHelp}
      --cert-dir string          directory of the cluster PKI (ca, apiserver, sa, ...) in kubeadm's layout (default DATA/pki)
      --port int                 secure port to serve HTTPS on (default 6443)
      --bind string              address to bind to (default 127.0.0.1)
      --token-auth-file string   static bearer tokens, CSV: token,user,uid,"group1,group2"
      --advertise-address string address written into admin.conf (default: the bind address)
      --service-node-port-range string
                                 ports reserved for NodePort services, e.g. 30000-32767 or 30000+2767 (default 30000-32767)
      --service-cluster-ip-range string
                                 the CIDR cluster IPs are allocated from; its first address is the kubernetes Service's (default 10.96.0.0/12)
      --controllers string       in-process controllers: all, none, or a list such as
                                 daemonset,garbagecollector,nodelifecycle,tainteviction,podgc,root-ca-cert-publisher,scheduler (default all);
                                 they run in a thread of their own, restarted with back-off if it ends
      --controllers-heap-limit-mb int
                                 heap limit of the controllers' thread in MiB; reaching it restarts the thread,
                                 as a memory limit restarts a container (default 0: Node's limit)
      --node-monitor-grace-period duration
                                 heartbeat silence before a node is marked Unknown (default 50s)
      --pod-gc-quarantine duration
                                 how long a deleted node's pods wait before pod GC removes them (default 40s)
      --default-not-ready-toleration-seconds int
                                 tolerationSeconds of the not-ready:NoExecute toleration added to pods (default 300)
      --default-unreachable-toleration-seconds int
                                 tolerationSeconds of the unreachable:NoExecute toleration added to pods (default 300)
      --request-timeout duration the longest a non-long-running request may take; a request still
                                 unanswered then (e.g. its body stalled) gets 504 (default 1m0s)
      --max-mutating-requests-inflight int
                                 seats for create, update, patch and delete requests, shared by the
                                 default priority levels' shares, and within a level fairly between
                                 flows (system:masters exempt; 0: no limit) (default ${defaultSeats})
      --cluster-signing-cert-file string
                                 csrsigning: the CA certificate that signs approved CSRs (default DATA/pki/ca.crt)
      --cluster-signing-key-file string
                                 csrsigning: its key (default DATA/pki/ca.key)
      --cluster-signing-duration duration
                                 csrsigning: the longest certificate it issues (default 8760h0m0s)
      --allocate-node-cidrs      nodeipam: give every Node a spec.podCIDR from --cluster-cidr (default false)
      --cluster-cidr string      nodeipam: the pod network, e.g. 10.244.0.0/16 (IPv4,IPv6 for dual stack)
      --node-cidr-mask-size int32
                                 nodeipam: prefix length of each node's subnet (default 24 for IPv4, 64 for IPv6;
                                 also --node-cidr-mask-size-ipv4 / -ipv6)
      --resource-version-wait duration
                                 how long a list or watch for a resourceVersion newer than the store's waits for it
                                 before answering 504 Too large resource version (default 3s, as upstream's watch cache)
      --default-watch-cache-size int
                                 events kept per resource by the watch cache that serves lists and watches; a watch
                                 from an older resourceVersion is 410 Expired; 0 disables the cache (default 1024)
      --authorization-mode strings
                                 ordered list of authorization plug-ins: Node, RBAC, AlwaysAllow, AlwaysDeny
                                 (default Node,RBAC; members of system:masters are always allowed)
      --default-storage-class    create the default StorageClass local-path (rancher.io/local-path) when absent, as k3s
                                 does; upstream creates none (default true)
      --enable-admission-plugins strings
                                 admission plugins to enable beside the default ones, by upstream's names
                                 (NamespaceLifecycle, LimitRanger, ServiceAccount, NodeRestriction, Priority,
                                 DefaultTolerationSeconds, DefaultStorageClass, ValidatingAdmissionPolicy, ResourceQuota, ...)
      --disable-admission-plugins strings
                                 admission plugins to disable, even if on by default
      --dashboard                serve the dashboard at https://ADDRESS:PORT/dashboard/, as \`k8ts up\` does; users log in
                                 with a bearer token (default false)
      --anonymous-auth           requests without credentials are system:anonymous, group system:unauthenticated,
                                 and get what RBAC grants them (default true; false with AlwaysAllow)
      --feature-gates mapStringBool
                                 key=value pairs of the gates k8ts acts on: APIServerIdentity=true|false (default true:
                                 each server keeps its identity Lease in kube-system)
  -h, --help                     help for server`;

export async function runServer(args: string[]): Promise<number> {
  const { values } = parseArgs({
    args: bareBoolFlags(args, ['allocate-node-cidrs', 'default-storage-class', 'dashboard']), strict: true, allowPositionals: false,
    options: {
      'data-dir': { type: 'string' }, 'cert-dir': { type: 'string' }, port: { type: 'string', default: '6443' }, bind: { type: 'string', default: '127.0.0.1' },
      'token-auth-file': { type: 'string' }, 'advertise-address': { type: 'string' },
      controllers: { type: 'string', default: 'all' }, 'controllers-heap-limit-mb': { type: 'string', default: '0' }, 'node-monitor-grace-period': { type: 'string' },
      'default-not-ready-toleration-seconds': { type: 'string', default: '300' },
      'pod-gc-quarantine': { type: 'string' },
      'default-unreachable-toleration-seconds': { type: 'string', default: '300' },
      'request-timeout': { type: 'string', default: '1m0s' },
      'max-mutating-requests-inflight': { type: 'string', default: String(defaultSeats) },
      'resource-version-wait': { type: 'string' },
      'default-watch-cache-size': { type: 'string' },
      'service-node-port-range': { type: 'string', default: '30000-32767' },
      'service-cluster-ip-range': { type: 'string', default: '10.96.0.0/12' },
      ...clusterSigningFlagOptions,
      ...nodeCIDRFlagOptions,
      'authorization-mode': { type: 'string', default: 'Node,RBAC' },
      'anonymous-auth': { type: 'string', default: 'true' },
      'feature-gates': { type: 'string', default: '' },
      'default-storage-class': { type: 'string', default: 'true' },
      dashboard: { type: 'string', default: 'false' },
      'enable-admission-plugins': { type: 'string' }, 'disable-admission-plugins': { type: 'string' },
      ...etcdFlagOptions,
    },
  });
  requireFlags(values, ['data-dir']);
  const port = Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535) { console.error(`Error: invalid --port "${values.port}"`); return 1; }
  const controllersHeapLimitMb = Number(values['controllers-heap-limit-mb']);
  if (!Number.isInteger(controllersHeapLimitMb) || controllersHeapLimitMb < 0) { console.error(`Error: invalid --controllers-heap-limit-mb "${values['controllers-heap-limit-mb']}"`); return 1; }
  let requestTimeoutMs: number;
  try { requestTimeoutMs = parseDuration(values['request-timeout']!); } catch { requestTimeoutMs = NaN; }
  if (!(requestTimeoutMs > 0)) { console.error(`Error: invalid --request-timeout "${values['request-timeout']}"`); return 1; }
  const inflightText = values['max-mutating-requests-inflight']!;
  const mutatingInflight = /^[-+]?\d+$/.test(inflightText) ? Number(inflightText) : NaN;
  if (Number.isNaN(mutatingInflight)) {
    console.error(`Error: invalid argument "${inflightText}" for "--max-mutating-requests-inflight" flag: strconv.ParseInt: parsing "${inflightText}": invalid syntax`);
    return 1;
  }
  // kube-apiserver's ServerRunOptions.Validate, in its words.
  if (mutatingInflight < 0) { console.error('Error: --max-mutating-requests-inflight can not be negative value'); return 1; }
  const serviceNodePortRange = flagValue(values, 'service-node-port-range', parsePortRange);
  if (!serviceNodePortRange) return 1;
  const serviceClusterIPRange = flagValue(values, 'service-cluster-ip-range', parseServiceIPRange);
  if (!serviceClusterIPRange) return 1;
  let authorizationModes: AuthorizationMode[];
  try {
    authorizationModes = parseAuthorizationModes(values['authorization-mode']!);
  } catch (e) {
    console.error(`Error: ${(e as Error).message}`);
    return 1;
  }
  const anonymousAuth = values['anonymous-auth'];
  if (anonymousAuth !== 'true' && anonymousAuth !== 'false') {
    console.error(`Error: invalid argument "${anonymousAuth}" for "--anonymous-auth" flag: strconv.ParseBool: parsing "${anonymousAuth}": invalid syntax`);
    return 1;
  }
  const featureGates = flagValue(values, 'feature-gates', parseFeatureGates);
  if (!featureGates) return 1;
  const defaultStorageClass = values['default-storage-class'];
  if (defaultStorageClass !== 'true' && defaultStorageClass !== 'false') {
    console.error(`Error: invalid argument "${defaultStorageClass}" for "--default-storage-class" flag: strconv.ParseBool: parsing "${defaultStorageClass}": invalid syntax`);
    return 1;
  }
  const dashboard = values.dashboard;
  if (dashboard !== 'true' && dashboard !== 'false') {
    console.error(`Error: invalid argument "${dashboard}" for "--dashboard" flag: strconv.ParseBool: parsing "${dashboard}": invalid syntax`);
    return 1;
  }
  let admissionPlugins: ReadonlySet<AdmissionPluginName>;
  try {
    admissionPlugins = enabledAdmissionPlugins(pluginList(values['enable-admission-plugins']), pluginList(values['disable-admission-plugins']));
  } catch (e) {
    console.error(`Error: ${(e as Error).message}`);
    return 1;
  }
  const nodeCIDRs = nodeCIDRConfigOrReport(values);
  if (!nodeCIDRs) return 1;
  let etcd: EtcdConfig | undefined;
  try {
    etcd = etcdConfig(values);
  } catch (e) {
    console.error(`Error: ${(e as Error).message}`);
    return 1;
  }
  const watchCacheSize = values['default-watch-cache-size'] === undefined ? undefined : Number(values['default-watch-cache-size']);
  if (watchCacheSize !== undefined && !(Number.isInteger(watchCacheSize) && watchCacheSize >= 0)) {
    console.error(`Error: invalid argument "${values['default-watch-cache-size']}" for "--default-watch-cache-size" flag: must be a non-negative integer`);
    return 1;
  }
  const { startControlPlane } = await import('./control-plane.js');
  const cp = await startControlPlane({
    authorizationModes, anonymousAuth: anonymousAuth === 'true', etcd, admissionPlugins,
    requestTimeoutMs, maxMutatingRequestsInflight: mutatingInflight || Infinity,
    dataDir: values['data-dir'], certDir: values['cert-dir'], port, bind: values.bind!, tokenFile: values['token-auth-file'],
    advertiseAddress: values['advertise-address'], controllers: values.controllers, serviceNodePortRange, serviceClusterIPRange,
    admission: {
      notReadyTolerationSeconds: Number(values['default-not-ready-toleration-seconds']),
      unreachableTolerationSeconds: Number(values['default-unreachable-toleration-seconds']),
    },
    controllerConfig: { ...controllerConfig(values), ...nodeCIDRs, defaultStorageClass: defaultStorageClass === 'true' }, controllersHeapLimitMb,
    freshnessWaitMs: values['resource-version-wait'] === undefined ? undefined : parseDuration(values['resource-version-wait']),
    watchCacheSize, dashboard: dashboard === 'true', apiServerIdentity: featureGates.APIServerIdentity,
  });
  return cp.waitForSignal();
}

/** A flag's parsed value, or undefined once pflag's `invalid argument` error for it is printed. */
function flagValue<T>(values: Record<string, string | boolean | undefined>, name: string, parse: (text: string) => T): T | undefined {
  const text = String(values[name]);
  try {
    return parse(text);
  } catch (e) {
    console.error(`Error: invalid argument "${text}" for "--${name}" flag: ${(e as Error).message}`);
    return undefined;
  }
}

function controllerConfig(values: Record<string, string | boolean | undefined>) {
  const c: Record<string, number | string> = {};
  Object.assign(c, clusterSigningConfig(values));
  const grace = values['node-monitor-grace-period'];
  if (typeof grace === 'string') {
    c.nodeMonitorGracePeriodMs = parseDuration(grace);
    // Check heartbeats often enough to notice within the grace period (upstream: every 5 s for 50 s).
    c.nodeMonitorPeriodMs = Math.min(5000, Math.max(100, Math.floor(c.nodeMonitorGracePeriodMs / 4)));
  }
  const q = values['pod-gc-quarantine'];
  if (typeof q === 'string') {
    c.podGCQuarantineMs = parseDuration(q);
    c.podGCPeriodMs = Math.min(20_000, Math.max(100, Math.floor(c.podGCQuarantineMs / 4)));
  }
  return c;
}
