/**
 * Assembles a control plane: PKI, storage, registry, API server, and the
 * in-process loops (system namespaces, default service accounts, namespace
 * deletion). Shuts down cleanly on SIGTERM/SIGINT.
 */
import { coldOptionsFrom } from '../registry/watch-cache/cold-sweep.js';
import { PodSummary } from '../apiserver/pod-summary/summary.js';
import { addWarning } from '../apiserver/request-warnings.js';
import { podSummaryEndpoint } from '../apiserver/pod-summary/endpoint.js';
import { conversionWebhook } from '../apiserver/conversion/webhook-converter.js';
import { createServiceResolution } from '../apiserver/service-resolver.js';
import { join } from 'node:path';
import { hostname } from 'node:os';
import { ensureClusterPKI, buildKubeconfig, writeKubeconfig } from '../pki/index.js';
import { Registry, type RegistryOptions } from '../registry/registry.js';
import type { StoreHooks } from '../registry/store.js';
import { APIServiceAutoregister } from '../apiserver/aggregation/autoregister.js';
import { metricsGroup, metricsVersion } from '../apiserver/metrics-api/resources.js';
import { Aggregator } from '../apiserver/aggregation/aggregator.js';
import { defaultRequestHeaders, publishAuthenticationConfigMap } from '../apiserver/aggregation/authentication-configmap.js';
import { ensureFrontProxyPKI } from './front-proxy.js';
import { ensureSystemNamespaces, ensureSystemPriorityClasses, ensureKubernetesService, runServiceAccountsLoop } from '../registry/bootstrap.js';
import { ensureFlowControlBootstrap, runFlowControlEnsurer, storedFlowControlObjects } from '../registry/flowcontrol-ensurer.js';
import { KubernetesEndpointReconciler, publishableAddress } from '../registry/kubernetes-endpoints.js';
import { APIServerIdentityLease } from '../registry/apiserver-identity-lease.js';
import { NamespaceLifecycle } from '../registry/namespace-lifecycle.js';
import { FlowSchemaStatus } from '../registry/flowschema-status.js';
import { ensureBootstrapPolicy } from '../registry/bootstrap-rbac.js';
import { CRDController } from '../registry/custom/crd-controller.js';
import { ServiceAllocator, defaultServiceIPRange, kubernetesServiceIPOf, type ServiceIPRange } from '../registry/service-allocation.js';
import { defaultStorageClassAdmission } from '../apiserver/admission/default-storage-class.js';
import { admitStorageObjectInUseProtection } from '../apiserver/admission/storage-protection.js';
import { priorityAdmission } from '../apiserver/admission/priority.js';
import { StatusError } from '../api/status.js';
import { runtimeClassAdmission } from '../apiserver/admission/runtimeclass.js';
import { defaultIngressClassAdmission } from '../apiserver/admission/default-ingress-class.js';
import { configureHeavyLane } from '../apiserver/heavy/index.js';
import { limitRangerAdmission } from '../apiserver/admission/limitranger.js';
import { resourceQuotaAdmission } from '../apiserver/admission/resourcequota.js';
import { nodeRestrictionAdmission } from '../apiserver/admission/noderestriction.js';
import { createNodeAuthorizer } from '../apiserver/authz/node/index.js';
import { admitCSRRequester } from '../apiserver/admission/csr-requester.js';
import { certificateSubjectRestriction } from '../apiserver/admission/certificate-subject-restriction.js';
import { serviceAccountAdmission } from '../apiserver/admission/serviceaccount.js';
import { createWebhookMetrics, webhookAdmission } from '../apiserver/admission/webhook/index.js';
import { createApiServer } from '../apiserver/server.js';
import { PostStartHooks } from '../apiserver/post-start-hooks.js';
import { createListers } from '../apiserver/listers.js';
import { createMetrics } from '../apiserver/metrics.js';
import { featureGates } from '../api/feature-gates.js';
import { instrumentBackend } from '../apiserver/instrumented-backend.js';
import { admit, AdmissionConfig, defaultAdmissionConfig } from '../apiserver/admission/index.js';
import { podSecurityAdmission } from '../apiserver/admission/podsecurity/admission.js';
import { runSteps, type AdmissionStep } from '../apiserver/admission/steps.js';
import { enabledAdmissionPlugins, k8tsSteps, type AdmissionPluginName } from '../apiserver/admission/plugins.js';
import { ValidatingAdmissionPolicyPlugin } from '../apiserver/admission/policy/plugin.js';
import { createAuthenticator, createBootstrapTokenAuthenticator, serverTLSOptions } from '../apiserver/auth/index.js';
import { registryObjectGetter, serviceAccountKeys } from '../apiserver/serviceaccount/index.js';
import { serviceAccountTokenAuthenticator } from '../apiserver/auth/serviceaccount-token.js';
import { legacyServiceAccountTokenAuthenticator } from '../apiserver/auth/legacy-serviceaccount-token.js';
import { anonymousAllowed, authorizerFor, rulesResolverFor, DEFAULT_AUTHORIZATION_MODES, type AuthorizationMode } from '../apiserver/authz/index.js';
import { PolicyCache, rbacAuthorizer, rbacEscalationAdmission, rulesFor } from '../apiserver/authz/rbac/index.js';
import type { Authorizer } from '../apiserver/authz/index.js';
import { createKubeletClient } from '../apiserver/kubelet-client/client.js';
import { createLogger, Logger } from '../util/log.js';
import type { PortRange } from '../util/port-range.js';
import { realClock } from '../util/clock.js';
import { reportMemoryOnSignal } from './heap-report.js';
import { boundHeapHeadroom, defaultHeapHeadroom, headroomBudgetMiB } from './heap-headroom.js';
import { watchFullCollections } from './full-collections.js';
import { adaptsHeapGrowing } from './v8-flags.js';
import { startControlLoopsThread, type ClientCredentials, type ControlLoopsThread } from './control-loops-thread.js';
import { startControlLoopsInline } from './control-loops-inline.js';
import { loopbackClients } from './loopback-clients.js';
import type { ControllerConfig } from '../controllers/types.js';
import { secureDataDir, secureDataDirLogged, startupError } from './data-dir.js';
import { lockDataDir } from './data-dir-lock.js';
import { EtcdUnreachableError, openStorage, type EtcdConfig } from './storage.js';
import { readHeaderTimeoutMs } from '../util/serving-deadlines.js';
import { packageRoot } from '../util/package-root.js';
import { dashboardHandler } from '../dashboard/handler.js';
import { announceStarted } from './started.js';
import { onShutdownSignal } from './shutdown-signal.js';

/** Events kept per resource for watches that resume (upstream sizes its ring between 100 and 100 Ki events by their age). */
export const defaultWatchCacheSize = 1024;

export interface ControlPlaneOptions {
  dataDir: string;
  /** The PKI directory (default DATA/pki); kubeadm-style nodes keep it in /etc/kubernetes/pki. */
  certDir?: string;
  port: number;
  bind: string;
  tokenFile?: string;
  advertiseAddress?: string;
  logger?: Logger;
  /** Controllers to run in-process: 'all' (default), 'none', or names ('daemonset,scheduler,...'). */
  controllers?: string;
  controllerConfig?: Partial<ControllerConfig>;
  /** The controllers' thread's heap limit in MiB (default: Node's); reaching it restarts the thread. */
  controllersHeapLimitMb?: number;
  /** false: the controllers and the scheduler run on the serving thread (`k8ts up`: control-loops-inline.ts); default true, a worker thread. */
  controlLoopsThread?: boolean;
  admission?: Partial<AdmissionConfig>;
  /** --enable-admission-plugins / --disable-admission-plugins, resolved (default: upstream's defaults and NodeRestriction). */
  admissionPlugins?: ReadonlySet<AdmissionPluginName>;
  /** How often the APF configuration producer ensures the bootstrap FlowSchemas and levels (upstream: a minute). */
  flowControlEnsureIntervalMs?: number;
  /** kube-apiserver --request-timeout (default 60 s); also bounds the wait for a request's headers. */
  requestTimeoutMs?: number;
  /** Seats for mutating requests (apiserver/flowcontrol); its default when absent. */
  maxMutatingRequestsInflight?: number;
  /** How long a read for a resourceVersion the store has not reached waits for it (default 3 s). */
  freshnessWaitMs?: number;
  /** Events kept per resource by the watch cache (default 1024; 0: no watch cache, lists and watches read storage). */
  watchCacheSize?: number;
  /** --service-node-port-range (default 30000-32767). */
  serviceNodePortRange?: PortRange;
  /** --service-cluster-ip-range (default 10.96.0.0/12). */
  serviceClusterIPRange?: ServiceIPRange;
  /** --authorization-mode (default Node,RBAC). */
  authorizationModes?: AuthorizationMode[];
  /** --feature-gates APIServerIdentity (default true): the identity Lease and its two post-start hooks. */
  apiServerIdentity?: boolean;
  /** --anonymous-auth (default true; off with AlwaysAllow, as upstream). */
  anonymousAuth?: boolean;
  /** --etcd-servers and friends: store in etcd instead of DATA/state.db. */
  etcd?: EtcdConfig;
  /** Serve the dashboard (dist/web) at /dashboard/ on the API server's port (`k8ts up`). */
  dashboard?: boolean;
}

export interface ControlPlane {
  url: string;
  port: number;
  kubeconfigPath: string;
  /** Admin credentials for in-process clients (simulated nodes). */
  clientConfig: { server: string; caPem: string; certPem: string; keyPem: string };
  close(): Promise<void>;
  /** Resolves with the exit code once SIGTERM or SIGINT has shut everything down (after `before`). */
  waitForSignal(before?: () => Promise<void>): Promise<number>;
}

export async function startControlPlane(opts: ControlPlaneOptions): Promise<ControlPlane> {
  const logger = opts.logger ?? createLogger('k8ts');
  // Whatever fails part-way, nothing keeps running: a process that cannot serve must exit,
  // never sit half-alive with /readyz failing for ever.
  const cleanups: Array<() => unknown> = [];
  try {
    return await assemble(opts, logger, cleanups);
  } catch (err) {
    for (const undo of [...cleanups].reverse()) await Promise.resolve().then(undo).catch(() => undefined);
    throw err instanceof EtcdUnreachableError ? err : startupError(err, opts.dataDir);
  }
}

async function assemble(opts: ControlPlaneOptions, logger: Logger, cleanups: Array<() => unknown>): Promise<ControlPlane> {
  const started = Date.now();
  // Files this process creates (the database, its WAL, kubeconfigs) are private from the start.
  process.umask(0o077);
  // A promise some background loop forgot to handle is a bug to log, not a reason to take the
  // whole control plane down (Node's default); request handlers have their own boundary.
  process.on('unhandledRejection', (reason) => logger.error('unhandled promise rejection', { err: reason instanceof Error ? reason.stack : String(reason) }));
  secureDataDirLogged(opts.dataDir, logger);
  // Before anything in it is read or written: a second k8ts on the same directory stops here.
  cleanups.push(lockDataDir(opts.dataDir));
  // The `kubernetes` Service's IP too, as kubeadm's apiserver.crt names it: a pod's `curl --cacert ca.crt
  // https://$KUBERNETES_SERVICE_HOST` verifies the name it used (the Service's DNS names are always there, pki/cluster.ts).
  const serviceIP = kubernetesServiceIPOf(opts.serviceClusterIPRange ?? defaultServiceIPRange);
  const hosts = [opts.bind, opts.advertiseAddress, hostname(), serviceIP].filter((h): h is string => !!h && h !== '0.0.0.0' && h !== '::');
  const certDir = opts.certDir ?? join(opts.dataDir, 'pki');
  // The aggregation layer's front-proxy PKI is made (when absent) alongside the cluster's: on a fresh
  // data directory their file writes and fsyncs overlap on the thread pool.
  const [pki, frontProxy] = await Promise.all([ensureClusterPKI(opts.dataDir, { hosts, certDir: opts.certDir }), ensureFrontProxyPKI(certDir)]);
  // The process and Node.js metrics (and their modules) are registered once the server is ready.
  const metrics = createMetrics({ deferDefaultMetrics: true, featureGates: featureGates({ APIServerIdentity: opts.apiServerIdentity !== false }) });
  const backend = instrumentBackend(await openStorage(opts.dataDir, opts.etcd, logger), metrics);
  cleanups.push(() => backend.close());
  // Certificates are written 0644 by the PKI code; in the data directory they are 0600 too.
  secureDataDir(opts.dataDir);
  const plugins = opts.admissionPlugins ?? enabledAdmissionPlugins([], []);
  const on = (name: AdmissionPluginName) => plugins.has(name);
  // Upstream's default plugins k8ts has no step for are said once; one the user turned on by name is a warning.
  const defaults = enabledAdmissionPlugins([], []);
  const nameOnly = [...plugins].filter((name) => !k8tsSteps[name]);
  if (nameOnly.some((n) => defaults.has(n))) logger.info('default admission plugins k8ts has no step for', { plugins: nameOnly.filter((n) => defaults.has(n)).join(',') });
  for (const name of nameOnly) if (!defaults.has(name)) logger.warn('admission plugin enabled by name only: k8ts has no step for it', { plugin: name });
  const admission: AdmissionConfig = { ...defaultAdmissionConfig, ...(opts.admission ?? {}), plugins };
  const nodeRestriction = nodeRestrictionAdmission(() => registry, { get: (ns, name) => listers.nodes.get(ns, name) });
  // RBAC's escalation checks read the policy and the authorizer chain, both made once the registry exists.
  let policy: PolicyCache | undefined;
  const authz: { authorize?: Authorizer } = {};
  const rbacEscalation = rbacEscalationAdmission({
    clusterRole: (n) => policy?.clusterRole(n), role: (ns, n) => policy?.role(ns, n),
    clusterRoleBindings: () => policy?.clusterRoleBindings() ?? [], roleBindings: (ns) => policy?.roleBindings(ns) ?? [],
  }, () => authz.authorize);
  // Made once the namespace cache exists; writes before that (none) would skip it.
  const vap: { plugin?: ValidatingAdmissionPolicyPlugin } = {};
  // Mutating admission in upstream's order; a step with nothing to wait for returns no promise (admission/steps.ts).
  // Each step gets the request's context last (undefined for the server's own writes).
  type Admit = Parameters<NonNullable<StoreHooks['admit']>>;
  const mutatingSteps: AdmissionStep<Admit>[] = [
    (op, info, obj, _old, ctx) => { admit(op, info, obj, admission); admitCSRRequester(op, info, obj, ctx); },
    (op, info, obj) => on('ServiceAccount') ? serviceAccounts(op, info, obj) : undefined,
    (op, info, obj, old) => {
      services.admit(op, info, obj, old);
      if (on('DefaultStorageClass')) defaultStorageClass(op, info, obj);
      if (on('StorageObjectInUseProtection')) admitStorageObjectInUseProtection(op, info, obj);
      if (on('Priority')) priority(op, info, obj, old);
      if (on('LimitRanger')) limitRanger(op, info, obj);
      if (on('DefaultIngressClass')) defaultIngressClass(op, info, obj);
    },
    (op, info, obj) => on('RuntimeClass') ? runtimeClass.admit(op, info, obj) : undefined,
    (op, info, obj, old, ctx) => on('NodeRestriction') ? nodeRestriction.admit(op, info, obj, old, ctx) : undefined,
    (op, info, obj, _old, ctx) => rbacEscalation(op, info, obj, ctx),
    // MutatingAdmissionWebhook comes last among upstream's mutating plugins.
    (op, info, obj, old, ctx) => on('MutatingAdmissionWebhook') ? webhooks.admit(op, info, obj, old, ctx) : undefined,
  ];
  // Validating admission in upstream's order: ValidatingAdmissionPolicy, ValidatingAdmissionWebhook, then ResourceQuota last.
  type Validate = Parameters<NonNullable<StoreHooks['validate']>>;
  const validatingSteps: AdmissionStep<Validate>[] = [
    (...a) => on('PodSecurity') ? podSecurity.validate(...a) : undefined,
    (op, info, obj) => on('RuntimeClass') ? runtimeClass.validate(op, info, obj) : undefined,
    (op, info, obj, _old, opts) => on('CertificateSubjectRestriction') ? certificateSubjectRestriction(op, info, obj, opts) : undefined,
    (...a) => vap.plugin?.validate(...a),
    (...a) => on('ValidatingAdmissionWebhook') ? webhooks.validate(...a) : undefined,
    (...a) => on('ResourceQuota') ? resourceQuota(...a) : undefined,
  ];
  // A CREATE of pods/binding with the Binding as its object (upstream's order: NodeRestriction and the mutating
  // webhooks, then the policies and validating webhooks); the steps above only know their kinds' bodies.
  type AdmitSubresource = Parameters<NonNullable<RegistryOptions['admitSubresourceCreate']>>;
  const subresourceCreateSteps: AdmissionStep<AdmitSubresource>[] = [
    (info, obj, _o, ctx) => on('NodeRestriction') ? nodeRestriction.admit('create', info, obj, undefined, ctx) : undefined,
    (info, obj, _o, ctx) => on('MutatingAdmissionWebhook') ? webhooks.admit('create', info, obj, undefined, ctx) : undefined,
    (info, obj, o, ctx) => vap.plugin?.validate('create', info, obj, undefined, o, ctx),
    (info, obj, o, ctx) => on('ValidatingAdmissionWebhook') ? webhooks.validate('create', info, obj, undefined, o, ctx) : undefined,
  ];
  const registry: Registry = new Registry(backend, realClock, (...a) => runSteps(mutatingSteps, a), {
    freshnessWaitMs: opts.freshnessWaitMs,
    validateAdmission: (...a) => runSteps(validatingSteps, a),
    admitSubresourceCreate: (...a) => runSteps(subresourceCreateSteps, a),
    warn: (texts, ctx) => { for (const text of texts) addWarning(ctx, text); },
    admitDelete: async (info, obj, ctx) => {
      if (on('NodeRestriction')) await nodeRestriction.admitDelete(info, obj, ctx);
      await vap.plugin?.validateDelete(info, obj, ctx);
      if (on('ValidatingAdmissionWebhook') || on('MutatingAdmissionWebhook')) await webhooks.admitDelete(info, obj, ctx);
    },
  });
  // Lists and watches are served from the watch cache; the listers below are its first watchers.
  await registry.startWatchCache({
    capacity: opts.watchCacheSize ?? defaultWatchCacheSize, logger: logger.with('watch-cache'),
    cold: coldOptionsFrom(process.env.K8TS_WATCH_CACHE_COLD_AFTER_MS),
  });
  cleanups.push(() => registry.closeWatchCache());
  // Admission reads the watch-fed caches (listers), synced before the server serves.
  const listers = createListers(registry, logger.with('cache'));
  cleanups.push(() => listers.close());
  await listers.start();
  registry.useNamespaceCache(listers.namespaces);
  const services = new ServiceAllocator(listers.services, opts.serviceNodePortRange, opts.serviceClusterIPRange);
  const defaultStorageClass = defaultStorageClassAdmission(listers.storageClasses);
  const priority = priorityAdmission(listers.priorityClasses);
  const limitRanger = limitRangerAdmission(listers.limitRanges);
  const defaultIngressClass = defaultIngressClassAdmission(listers.ingressClasses);
  const runtimeClass = runtimeClassAdmission({
    classes: listers.runtimeClasses,
    lookup: (name) => registry.store('node.k8s.io', 'v1', 'runtimeclasses')!.get(undefined, name).catch((err: unknown) => {
      if (err instanceof StatusError && err.code === 404) return undefined;
      throw err;
    }),
  });
  const serviceAccounts = serviceAccountAdmission(() => registry, listers.serviceAccounts);
  const resourceQuota = resourceQuotaAdmission(() => registry, listers.resourceQuotas, realClock);
  const podSecurity = podSecurityAdmission({
    namespaces: listers.namespaces,
    getNamespace: (name) => registry.store('', 'v1', 'namespaces')!.get(undefined, name),
    listPods: async (ns) => (await registry.store('', 'v1', 'pods')!.list(ns)).items,
  });
  // ValidatingAdmissionPolicy reads policies, bindings and params from caches of its own, synced before serving.
  if (on('ValidatingAdmissionPolicy')) {
    const plugin = new ValidatingAdmissionPolicyPlugin({ registry: () => registry, namespaces: listers.namespaces, logger: logger.with('admission') });
    cleanups.push(() => plugin.close());
    await plugin.start();
    vap.plugin = plugin;
  }
  // One Service resolution for admission webhooks, CRD conversion webhooks and the aggregation layer.
  const serviceResolution = createServiceResolution(registry, { services: listers.services, logger: logger.with('service-resolver') });
  cleanups.push(() => serviceResolution.close());
  await serviceResolution.start();
  const webhooks = webhookAdmission(registry, { namespaces: listers.namespaces, resolver: serviceResolution.resolver, metrics: createWebhookMetrics(metrics.registry), logger: logger.with('admission-webhook') });
  cleanups.push(() => webhooks.close());
  await webhooks.start();
  // CRD conversion webhooks reach their Services the way admission webhooks do.
  registry.useConversionWebhook(conversionWebhook({ resolver: serviceResolution.resolver }));
  let ready = false;
  let shuttingDown = false;
  // Each start step below marks its upstream post-start hook finished (/readyz?verbose lists them).
  const identityHooks = ['start-kube-apiserver-identity-lease-controller', 'start-kube-apiserver-identity-lease-garbage-collector'] as const;
  const hooks = new PostStartHooks(opts.apiServerIdentity === false ? identityHooks : []);
  // Bootstrap tokens (kube-apiserver --enable-bootstrap-token-auth, which kubeadm sets) read a watch-kept cache of kube-system's token Secrets.
  const bootstrapTokens = createBootstrapTokenAuthenticator(registry.store('', 'v1', 'secrets')!, { clock: realClock, logger: logger.with('bootstrap-token') });
  await bootstrapTokens.start();
  cleanups.push(() => bootstrapTokens.close());
  const sa = serviceAccountKeys(pki.serviceAccountKeyPem, pki.serviceAccountPublicKeyPem);
  const saObjects = registryObjectGetter(registry, { serviceaccounts: listers.serviceAccounts, nodes: listers.nodes });
  const tokenAuthenticators = [
    bootstrapTokens.authenticate,
    serviceAccountTokenAuthenticator({ issuers: [sa.issuer.issuer], audiences: sa.issuer.audiences, keys: sa.keys, get: saObjects }),
    legacyServiceAccountTokenAuthenticator({ keys: sa.keys, get: saObjects }),
  ];
  const modes = opts.authorizationModes ?? DEFAULT_AUTHORIZATION_MODES;
  const anonymous = anonymousAllowed(modes, opts.anonymousAuth ?? true);
  const authenticate = createAuthenticator({ clientCAPem: pki.caCertPem, tokenFile: opts.tokenFile, tokenAuthenticators, anonymous });
  // The bootstrap policy is in place and cached before the first request is authorized.
  await ensureBootstrapPolicy(registry, logger.with('rbac'));
  hooks.finish('rbac/bootstrap-roles');
  const cache = policy = new PolicyCache(registry, logger.with('rbac'));
  cleanups.push(() => cache.close());
  await cache.start();
  const requestMs = opts.requestTimeoutMs ?? 60_000;
  // A heavy-lane job's wall-clock ceiling is what any request gets (--request-timeout, upstream's 1m by
  // default), no less: a large body on a busy machine must not be cut off sooner than a small one would
  // be. Runaway work is stopped by its CPU budget (the worker's own CPU time, heavy/pool.ts).
  configureHeavyLane({ deadlineMs: requestMs });
  // pods/log and nodes/proxy reach kubelets as kube-apiserver-kubelet-client (kubeadm's apiserver-kubelet-client.crt).
  const kubelet = createKubeletClient(registry, { certPem: pki.kubeletClientCertPem, keyPem: pki.kubeletClientKeyPem });
  cleanups.push(() => kubelet.close());
  const nodeAuthz = createNodeAuthorizer(registry, logger.with('authorizer'));
  cleanups.push(() => nodeAuthz.close());
  await nodeAuthz.start();
  const authorize = authz.authorize = authorizerFor(modes, { rbac: rbacAuthorizer(cache), node: nodeAuthz.authorize });
  // The dashboard reaches the API as a client (with each caller's token), at the URL known after listen.
  let apiServer = { server: '', caPem: pki.caCertPem };
  // HOST:PORT the server advertises (/api's serverAddressByClientCIDRs), known once it listens.
  const external: { address?: string } = {};
  const dashboard = opts.dashboard ? dashboardHandler({ apiServer: () => apiServer, webRoot: join(packageRoot(), 'dist', 'web') }) : undefined;
  const nonApiHandlers = dashboard ? [dashboard] : [];
  // The dashboard's pod counts, from the pods' watch cache (started by the first summary request).
  const podSummary = opts.dashboard ? podSummaryEndpoint(new PodSummary(() => registry.store('', 'v1', 'pods'), logger.with('pod-summary'))) : undefined;
  if (podSummary) cleanups.push(() => podSummary.close());
  // The aggregation layer: the front-proxy client certificate kubeadm's layout has (made above when absent).
  const aggregator = new Aggregator(registry, { resolver: serviceResolution.resolver, proxyClient: { certPem: frontProxy.clientCertPem, keyPem: frontProxy.clientKeyPem }, logger: logger.with('aggregator') });
  cleanups.push(() => aggregator.close());
  const server = createApiServer({ aggregator,
    registry, tls: serverTLSOptions(pki), authenticate, authenticateToken: authenticate.authenticateToken, metrics, logger: logger.with('apiserver'), ready: () => ready,
    postStartHooks: hooks, shuttingDown: () => shuttingDown,
    timeouts: { requestMs, headersMs: Math.min(requestMs, readHeaderTimeoutMs), handshakeMs: readHeaderTimeoutMs }, kubelet,
    maxMutatingRequestsInflight: opts.maxMutatingRequestsInflight, authorize, serviceAccountTokens: sa.issuer,
    admitTokenRequest: on('NodeRestriction') ? nodeRestriction.admitTokenRequest : undefined,
    rulesResolver: rulesResolverFor(modes, { rbac: (user, ns) => rulesFor(cache, user, ns) }), nonApiHandlers, podSummary,
    serviceEndpoints: serviceResolution.resolver.sources, nodes: listers.nodes, externalAddress: () => external.address,
  });
  const addr = await server.listen(opts.port, opts.bind);
  cleanups.push(() => server.close());
  const host = opts.advertiseAddress ?? (opts.bind === '0.0.0.0' || opts.bind === '::' ? '127.0.0.1' : opts.bind);
  external.address = `${host.includes(':') ? `[${host}]` : host}:${addr.port}`;
  const url = `https://${external.address}`;
  // In-process calls go to the loopback address the server listens on, whatever it advertises.
  apiServer = { server: `https://${opts.bind === '0.0.0.0' || opts.bind === '::' ? '127.0.0.1' : opts.bind.includes(':') ? `[${opts.bind}]` : opts.bind}:${addr.port}`, caPem: pki.caCertPem };
  const kubeconfigPath = join(opts.dataDir, 'admin.conf');
  // The admin kubeconfig is written before /readyz answers 200 (a user's kubectl may follow at once);
  // its fsync overlaps the first objects' commit. The Service waits for its namespace.
  await Promise.all([
    writeKubeconfig(kubeconfigPath, buildKubeconfig({
      server: url, caCertPem: pki.caCertPem, userName: 'kubernetes-admin', clientCertPem: pki.adminCertPem, clientKeyPem: pki.adminKeyPem,
    })),
    ensureSystemPriorityClasses(registry).then(() => hooks.finish('scheduling/bootstrap-system-priority-classes')),
    ensureFlowControlBootstrap(registry).then(() => storedFlowControlObjects(registry)).then((o) => server.flowControl.setUIDs(o.schemas, o.levels)),
    ensureSystemNamespaces(registry).then(async () => {
      hooks.finish('start-system-namespaces-controller');
      await ensureKubernetesService(registry);
      if (publishableAddress(host)) {
        const endpoints = new KubernetesEndpointReconciler(registry, backend, host, addr.port, logger.with('endpoint-reconciler'));
        cleanups.push(() => endpoints.stop());
        await endpoints.start();
      }
      hooks.finish('bootstrap-controller');
    }),
  ]);
  const stopSA = await runServiceAccountsLoop(registry, logger);
  cleanups.push(stopSA);
  cleanups.push(runFlowControlEnsurer(registry, logger.with('flowcontrol'), opts.flowControlEnsureIntervalMs));
  const namespaces = new NamespaceLifecycle(registry, logger.with('namespace'));
  cleanups.push(() => namespaces.close());
  await namespaces.start();
  const crds = new CRDController(registry, logger.with('apiextensions'));
  cleanups.push(() => crds.close());
  await crds.start();
  hooks.finish('start-apiextensions-controllers');
  // metrics.k8s.io is served from the kubelets' summaries (the kubelet client above), as metrics-server's APIService.
  const autoregister = new APIServiceAutoregister(registry, logger.with('autoregister'), () => new Date(), [{ group: metricsGroup, version: metricsVersion }]);
  cleanups.push(() => autoregister.close());
  await autoregister.start();
  hooks.finish('kube-apiserver-autoregistration');
  await publishAuthenticationConfigMap(registry, { clientCAPem: pki.caCertPem, requestHeaderCAPem: frontProxy.caPem, ...defaultRequestHeaders });
  hooks.finish('start-cluster-authentication-info-controller');
  if (opts.apiServerIdentity !== false) {
    // As upstream's hooks, these start their loops and finish at once: readiness does not wait on the first renewal.
    const identity = new APIServerIdentityLease(registry, hostname(), logger.with('apiserver-identity'));
    cleanups.push(() => identity.stop());
    void identity.startController();
    hooks.finish('start-kube-apiserver-identity-lease-controller');
    void identity.startGarbageCollector();
    hooks.finish('start-kube-apiserver-identity-lease-garbage-collector');
  }
  await aggregator.start();
  hooks.finish('start-kube-aggregator-informers');
  hooks.finish('apiservice-registration-controller');
  const clientConfig = { server: url, caPem: pki.caCertPem, certPem: pki.adminCertPem, keyPem: pki.adminKeyPem };
  // FlowSchemas' Dangling conditions (kubectl's MISSINGPL): a fresh store's written before readiness
  // in one group commit, so no status write trails readiness into the first requests.
  const flowSchemaStatus = new FlowSchemaStatus(registry, logger.with('flowcontrol'), () => new Date());
  cleanups.push(() => flowSchemaStatus.close());
  await flowSchemaStatus.start().catch((err) => logger.warn('flowschema status', { err }));
  // Upstream's producer writes the bootstrap FlowSchemas and keeps their status; both are done here.
  hooks.finish('priority-and-fairness-config-producer');
  ready = true;
  logger.info('API server ready', { url, dataDir: opts.dataDir, startupMs: Date.now() - started, sinceProcessStartMs: Math.round(performance.now()), kubeconfig: kubeconfigPath });
  // The launcher's code cache, if it has none, is what ran until now: what the next start needs before it is ready.
  announceStarted();
  // After readiness, and after the I/O already waiting (a /readyz poll): the process metrics' modules load.
  // The dashboard's page is read and compressed at its first request, not here: gzip's buffers on libuv's
  // threads stayed resident in their malloc arenas for the life of a server that is never asked for it.
  setImmediate(() => { metrics.collectDefaultMetrics(); });
  // Controllers are clients of the ready server; they catch up through their informers,
  // each component under its own identity (RBAC binds it to its bootstrap role).
  // In this process they reach the server on its loopback socket, without TLS (loopback-clients.ts).
  const identities = {
    controllerManager: { ...clientConfig, certPem: pki.controllerManagerCertPem, keyPem: pki.controllerManagerKeyPem },
    scheduler: { ...clientConfig, certPem: pki.schedulerCertPem, keyPem: pki.schedulerKeyPem },
  };
  const controlLoops = startInProcessControllers(opts, (opts.controllers ?? 'all') === 'none' ? identities : await loopbackClients(server, identities), logger);
  // The serving isolate's full collections: the memory report's live heap, and unless a factor was
  // set by hand, V8's garbage headroom bounded once the heap is large (heap-headroom.ts).
  const fullGcs = adaptsHeapGrowing() ? boundHeapHeadroom({ ...defaultHeapHeadroom, budgetMiB: headroomBudgetMiB(), logger }) : watchFullCollections();
  cleanups.push(() => fullGcs.close());
  cleanups.push(reportMemoryOnSignal(logger, controlLoops, fullGcs));

  let closing: Promise<void> | undefined;
  // The same undo list a failed start runs, newest first: the listener stops before the caches
  // and admission plugins it serves from, and they stop before the storage they watch.
  const close = () => closing ??= (async () => {
    ready = false;
    shuttingDown = true;
    await controlLoops?.stop();
    let first: unknown;
    for (const undo of [...cleanups].reverse()) await Promise.resolve().then(undo).catch((e) => { first ??= e; });
    if (first) throw first;
  })();
  return {
    url, port: addr.port, kubeconfigPath, close, clientConfig,
    waitForSignal: (before) => onShutdownSignal(logger, async () => {
      if (before) await before();
      await close();
    }),
  };
}

/** The controller manager and the scheduler as kubeadm runs them: two clients, two identities, two leader Leases, in their own thread unless told otherwise. */
function startInProcessControllers(opts: ControlPlaneOptions, clients: { controllerManager: ClientCredentials; scheduler: ClientCredentials }, logger: Logger): ControlLoopsThread | undefined {
  const controllers = opts.controllers ?? 'all';
  if (controllers === 'none') return undefined;
  // csrsigning signs with the cluster CA unless told otherwise (kubeadm passes the same files).
  const pkiDir = opts.certDir ?? join(opts.dataDir, 'pki');
  const config = { clusterSigningCertFile: join(pkiDir, 'ca.crt'), clusterSigningKeyFile: join(pkiDir, 'ca.key'), serviceAccountPrivateKeyFile: join(pkiDir, 'sa.key'), ...opts.controllerConfig };
  if (opts.controlLoopsThread === false) return startControlLoopsInline({ component: 'k8ts', controllers, config, clients }, logger);
  return startControlLoopsThread({ component: 'k8ts', controllers, config, clients, logger: logger.with('control-loops'), heapLimitMb: opts.controllersHeapLimitMb });
}
