/**
 * The HTTPS API server: authentication, non-resource endpoints (health,
 * version, metrics, discovery, openapi) and dispatch of resource requests to
 * the registry's stores.
 */
import https from 'node:https';
import http, { ServerResponse, type IncomingMessage } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { CustomResourceStore } from '../registry/custom/store.js';
import { addWarning } from './request-warnings.js';
import { badRequest, methodNotAllowed, pageNotFound, unauthorized, notAcceptable, serviceUnavailable, StatusError } from '../api/status.js';
import type { Registry } from '../registry/registry.js';
import type { Logger } from '../util/log.js';
import { keyOf } from '../util/batched-metrics.js';
import { inQuantum } from '../util/loop-quantum.js';
import type { UserInfo } from './auth/index.js';
import { impersonate, internalErrorText, type Impersonation } from './auth/impersonation.js';
import { attributesOf, forbidden, type AuthorizationAttributes, type Authorizer, type Decision, type RulesResolver } from './authz/index.js';
import { handleReview, isReview } from './reviews/handler.js';
import type { RequestContext } from './request-context.js';
import { parseRequestInfo, RequestInfo } from './request-info.js';
import { negotiate, negotiateMedia, negotiateOpenAPIV2, openapiV2ProtobufType } from './negotiate.js';
import { writeJSON, writeStatus, writeError, toStatus } from './respond.js';
import { linkAnswer } from './pipelined-answers.js';
import { observeStages, seatWaitSeconds, stagesOf, trackStages } from './request-stages.js';
import type { Aggregator } from './aggregation/aggregator.js';
import { withAggregated, withAggregatedGroups } from './aggregation/discovery-merge.js';
import { aggregatedContentType, aggregatedDiscovery, apiGroupDoc, apiGroupList, apiResourceList, apiVersions } from './discovery.js';
import { openapiV3Document, openapiV3Index } from './openapi/index.js';
import { openapiV2Document, openapiV2Protobuf } from './openapi/v2.js';
import { reportedVerb, requestLabels, type ApiMetrics } from './metrics.js';
import type { HandlerContext } from './handlers/context.js';
import { handleCreate, handleDelete, handleDeleteCollection, handleGet, handleList, handlePatch, handleUpdate } from './handlers/crud.js';
import { handleWatch } from './handlers/watch.js';
import { handleApproval, handleBinding, handleEphemeralContainers, handleEviction, handleFinalize, handleScale } from './handlers/subresources.js';
import { versionInfo } from './version.js';
import { handlePodLog } from './handlers/logs.js';
import { handleNodeProxy } from './handlers/node-proxy.js';
import { handleResourceProxy, resolveProxy, type ProxyDeps } from './handlers/pod-proxy.js';
import { upgradeThroughProxy } from './proxy/upgrade.js';
import { createProxyAgents, type ProxyAgents } from './proxy/transport.js';
import type { ServiceResolverSources } from './service-resolver.js';
import type { Node } from 'kubernetes-types/core/v1.js';
import { handlePodStream } from './handlers/exec.js';
import { handlePortForward } from './handlers/portforward.js';
import { handleTokenRequest, type TokenRequestAdmission } from './handlers/token-request.js';
import type { TokenIssuer } from './serviceaccount/token-request.js';
import { rejectUpgrade } from '../util/upgrade-response.js';
import type { KubeletClient } from './kubelet-client/client.js';
import { componentStatusResource, handleComponentStatuses } from './componentstatuses.js';
import { healthAnswer, type HealthCheck, type HealthEndpoint } from './health.js';
import { handleMetrics, metricsGroup, metricsResources, SummaryScraper } from './metrics-api/index.js';
import { storageHealthCheck, type StorageHealth } from './storage-health.js';
import type { PostStartHooks } from './post-start-hooks.js';
import { closeHeavyLane } from './heavy/index.js';
import type { PodSummaryEndpoint } from './pod-summary/endpoint.js';
import { defaultSeats } from './flowcontrol/fair-queue.js';
import { FlowControl } from './flowcontrol/flow-control.js';
import { registerFlowControlMetrics } from './flowcontrol/metrics.js';
import { boundConnections, tlsServerDeadlineOptions, deadlineFor, defaultTimeouts, isLongRunning, settleBody, lastResort, requestURL, type ConnectionTimeouts } from './connections.js';

export interface ApiServerOptions {
  registry: Registry;
  tls: https.ServerOptions;
  authenticate: (req: IncomingMessage) => UserInfo | undefined | Promise<UserInfo | undefined>;
  metrics: ApiMetrics;
  logger: Logger;
  /** Storage open and bootstrap objects written (componentstatuses). */
  ready: () => boolean;
  /** The start steps behind /healthz, /livez and /readyz's `poststarthook/*` checks; none listed when absent. */
  postStartHooks?: PostStartHooks;
  /** True once the server has begun to stop: /readyz's `shutdown` check fails from then on. */
  shuttingDown?: () => boolean;
  /** The `etcd` health check's probe; a read of the registry's backend when absent (storage-health.ts). */
  storageHealth?: StorageHealth;
  /** Connection and request time bounds; upstream's defaults when absent. */
  timeouts?: Partial<ConnectionTimeouts>;
  /** How pods/log and nodes/proxy reach kubelets; without it they answer 503. */
  kubelet?: KubeletClient;
  /** The authorizer chain (--authorization-mode); absent means every authenticated request is allowed (AlwaysAllow). */
  authorize?: Authorizer;
  /** The chain's rules of a user in a namespace, for SelfSubjectRulesReview (`kubectl auth can-i --list`). */
  rulesResolver?: RulesResolver;
  /** The bearer-token authenticators on a bare token, for TokenReview. */
  authenticateToken?: (token: string) => Promise<UserInfo | undefined>;
  /** kube-apiserver --api-audiences: the audiences a TokenReview without any asks for. */
  apiAudiences?: string[];
  /** Signs serviceaccounts/x/token answers; without it they answer 503. */
  serviceAccountTokens?: TokenIssuer;
  /** NodeRestriction's check of a TokenRequest (served outside the store, so outside store admission). */
  admitTokenRequest?: TokenRequestAdmission;
  /** metrics.k8s.io's source; made from `kubelet` when absent (no kubelet client: no metrics API). */
  resourceMetrics?: SummaryScraper;
  /**
   * Handlers of paths outside the API (the dashboard's `/dashboard/`), served
   * before authentication: they hold no privilege of their own and must reach
   * the API as clients, with the caller's credentials, so authn and RBAC
   * apply there. Matched by prefix (a prefix "/x/" also takes "/x").
   */
  nonApiHandlers?: readonly NonApiHandler[];
  /** The aggregation layer (APIServices with a service): proxied group versions and their discovery. */
  aggregator?: Aggregator;
  /** The dashboard's pod summary (pod-summary/endpoint.ts), authorized as the pods list it stands for. */
  podSummary?: PodSummaryEndpoint;
  /** Seats for mutating requests, shared by the priority levels and within each fairly between flows (flowcontrol/); defaultSeats when absent. */
  maxMutatingRequestsInflight?: number;
  /** The watch-fed caches pods/proxy and services/proxy read: Services and their endpoints (the ServiceResolver's); without them services/proxy answers 503. */
  serviceEndpoints?: ServiceResolverSources;
  /** Nodes from the watch-fed cache (is a pod's node simulated?); storage reads when absent. */
  nodes?: { get(namespace: undefined, name: string): Node | undefined };
  /** Kept-alive connections to pods for pods/proxy and services/proxy; the server makes its own when absent (and closes them with itself). */
  proxyAgents?: ProxyAgents;
  /**
   * HOST:PORT clients are told to reach the server at (upstream's ExternalAddress: the advertise address and
   * secure port), known once it listens: /api's serverAddressByClientCIDRs. Until then, or absent: the request's Host.
   */
  externalAddress?: () => string | undefined;
}

export interface NonApiHandler {
  readonly prefix: string;
  serve(req: IncomingMessage, res: ServerResponse, url: URL): Promise<void>;
}

const nonApiHandlerFor = (handlers: readonly NonApiHandler[] | undefined, path: string) =>
  handlers?.find((h) => path.startsWith(h.prefix) || `${path}/` === h.prefix);

export interface ApiServer {
  listen(port: number, host: string): Promise<AddressInfo>;
  /**
   * Serves the same API, plain HTTP, on a Unix socket for this process's own clients (the control
   * loops, cli/loopback-clients.ts). Its requests are authenticated by `authenticate` alone (auth/loopback.ts).
   */
  listenLoopback(path: string, authenticate: ApiServerOptions['authenticate']): Promise<void>;
  close(): Promise<void>;
  /** Its priority levels and flow schemas (flowcontrol/); setUIDs once the stored objects are ensured. */
  readonly flowControl: FlowControl;
}

/** How long an error answer waits for the rest of a request body it will not use. */
const settleBodyMs = 2_000;

/** Methods whose requests are served as they arrive, in their socket's read callback. */
const readMethods = new Set(['GET', 'HEAD', 'OPTIONS']);

const anonymousPaths = new Set(['/healthz', '/livez', '/readyz', '/version', '/healthz/', '/livez/', '/readyz/']);

export function createApiServer(options: ApiServerOptions): ApiServer {
  const proxyAgents = options.proxyAgents ?? createProxyAgents();
  const opts = {
    ...options, resourceMetrics: options.resourceMetrics ?? resourceMetricsOf(options),
    storageHealth: options.storageHealth ?? storageHealthCheck(options.registry.backend), proxyAgents,
  };
  const timeouts = { ...defaultTimeouts, ...opts.timeouts };
  const seats = new FlowControl(opts.maxMutatingRequestsInflight ?? defaultSeats);
  registerFlowControlMetrics(opts.metrics.registry, seats);
  // The handshake and header deadlines of upstream's http.Server (util/serving-deadlines.ts).
  const checking = tlsServerDeadlineOptions(timeouts);
  // The one error boundary: whatever a request makes a handler throw or reject with, the
  // process answers it (or drops that connection) and lives on.
  const onRequest = (o: typeof opts) => (req: IncomingMessage, res: ServerResponse) => {
    linkAnswer(req, res);
    // Latency counts from arrival, the wait for the quantum included (upstream's includes its queues).
    // One clock and one instant for the latency and the stages, so the stages sum to the latency.
    const arrived = performance.now();
    const start = () => { serve({ opts: o, timeouts, seats, arrived }, req, res).catch((err) => lastResort(o.logger, req, res, err)); };
    // A read is served in its socket's read callback (answered from the watch cache at once). A
    // write's first steps (authentication, impersonation, authorization, its seat) wait for the
    // loop's time quantum (util/loop-quantum.ts): a flood's writes arrive in one poll of the
    // sockets, and run there they would all go before a GET read in the same poll.
    if (readMethods.has(req.method ?? '')) start();
    else {
      trackStages(req, arrived);
      inQuantum(start);
    }
  };
  const onUpgrade = (o: typeof opts) => (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    socket.on('error', () => socket.destroy());
    serveUpgrade(o, timeouts, seats, req, socket, head).catch((err) => {
      o.logger.error('upgrade request failed', { url: req.url, err: (err as Error)?.stack ?? String(err) });
      rejectUpgrade(socket, 500, JSON.stringify(toStatus(err)), 'application/json');
    });
  };
  const server = https.createServer({ ...opts.tls, ...checking }, onRequest(opts));
  server.on('upgrade', onUpgrade(opts));
  boundConnections(server, timeouts, opts.logger);
  let loopback: http.Server | undefined;
  return {
    flowControl: seats,
    listen: (port, host) => new Promise((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, host, () => resolve(server.address() as AddressInfo));
    }),
    listenLoopback: (path, authenticate) => new Promise((resolve, reject) => {
      const o = { ...opts, authenticate };
      const plain = loopback = http.createServer({ connectionsCheckingInterval: checking.connectionsCheckingInterval }, onRequest(o));
      plain.on('upgrade', onUpgrade(o));
      boundConnections(plain, timeouts, opts.logger);
      plain.once('error', reject);
      plain.listen(path, () => resolve());
    }),
    close: async () => {
      const closed = (s: http.Server) => new Promise<void>((resolve) => {
        s.close(() => resolve());
        s.closeAllConnections();
      });
      await Promise.all([closed(server), ...(loopback ? [closed(loopback)] : [])]);
      if (!options.proxyAgents) proxyAgents.close();
      await closeHeavyLane();
    },
  };
}

/** apiserver_longrunning_requests (upstream's filter of that name): up while the request is open. */
function trackLongRunning(metrics: ApiServerOptions['metrics'], req: IncomingMessage, res: ServerResponse, info: RequestInfo): void {
  const labels = {
    verb: reportedVerb(req, info), group: info.group, version: info.version, resource: info.resource ?? '', subresource: info.subresource ?? '',
    scope: info.name ? 'resource' : info.namespace ? 'namespace' : 'cluster', component: 'apiserver',
  };
  metrics.longRunning.inc(labels);
  res.once('close', () => metrics.longRunning.dec(labels));
}

async function serve(server: { opts: ApiServerOptions; timeouts: ConnectionTimeouts; seats: FlowControl; arrived: number }, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const { opts, timeouts, seats, arrived: started } = server;
  const marks = stagesOf(req);
  if (marks) marks.started = performance.now();
  const url = requestURL(req.url);
  if (!url) { req.resume(); res.setHeader('Connection', 'close'); return writeStatus(res, badRequest(`malformed request URI ${JSON.stringify(req.url ?? '')}`).status); }
  // A summary request is authenticated and authorized as the pods list (or watch) it stands for.
  const summaryOf = opts.podSummary?.standsFor(req.method, url);
  const info = parseRequestInfo(req.method ?? 'GET', summaryOf ?? url);
  if (!isLongRunning(info)) deadlineFor(req, res, timeouts.requestMs);
  else if (info.isResourceRequest) trackLongRunning(opts.metrics, req, res, info);
  res.on('finish', () => {
    const labels = requestLabels(req, info, url);
    opts.metrics.requests.inc({ code: String(res.statusCode), ...labels });
    // A watch lasts as long as the client wants: its duration is not a latency.
    if (info.verb === 'watch') return;
    const end = performance.now();
    const seconds = (end - started) / 1000;
    const keys = { verb: labels.verb, resource: labels.resource, subresource: labels.subresource };
    const key = keyOf(keys);
    opts.metrics.latency.observeKeyed(key, keys, seconds);
    // Upstream's SLI leaves out the wait for a seat (request-stages.ts splits the rest).
    opts.metrics.sli.observeKeyed(key, keys, seconds - seatWaitSeconds(marks, end));
    if (marks) observeStages(opts.metrics, keys, key, marks, end);
  });
  try {
    const extra = summaryOf ? undefined : nonApiHandlerFor(opts.nonApiHandlers, url.pathname);
    if (extra) return await extra.serve(req, res, url);
    let user: UserInfo | undefined;
    // Without an authorizer the health and version paths are open to all; with one, anonymous
    // requests are authenticated as system:anonymous and authorized like any other (upstream).
    if (opts.authorize || !anonymousPaths.has(url.pathname)) {
      // Each step that answers at once (a client certificate, no impersonation, RBAC from its cache:
      // nearly every request) is not awaited: an await makes a promise and a microtask turn.
      const authenticated = opts.authenticate(req);
      user = authenticated instanceof Promise ? await authenticated : authenticated;
      if (!user) { await settleBody(req, res, Math.min(settleBodyMs, timeouts.requestMs / 2)); return writeStatus(res, unauthorized().status); }
      const impersonated = actingUser(opts, req, user);
      const acting = impersonated instanceof Promise ? await impersonated : impersonated;
      if ('internalError' in acting) { await settleBody(req, res, Math.min(settleBodyMs, timeouts.requestMs / 2)); return text(res, 500, acting.internalError); }
      user = acting;
      const authorized = authorizeRequest(opts, user, info);
      if (authorized) await authorized;
      seats.admit(req, res, user, info);
    }
    // A group version served by an extension API server goes there, authorized here first (kube-aggregator).
    const remote = user && info.apiPrefix === 'apis' && info.group && info.version ? opts.aggregator?.remoteFor(info.group, info.version) : undefined;
    if (remote) return await opts.aggregator!.proxy(req, res, user!, remote);
    // The request's user, RequestInfo, webhook scope and warnings, passed down with its store calls (request-context.ts).
    if (summaryOf) return await opts.podSummary!.serve(req, res, url);
    if (!info.isResourceRequest) return await serveNonResource(opts, req, res, url, info);
    await serveResource(opts, req, res, url, info, { user, info, webhook: { url, res }, warnings: { res, texts: [] }, ended: () => res.writableEnded || res.destroyed });
    if (marks) marks.handled = performance.now();
  } catch (err) {
    // Answered already (the deadline's 504): what the handler met writing an answer nobody
    // reads is no server error to report.
    if (res.writableEnded) {
      opts.logger.info('handler finished after its request ended', { method: req.method, path: url.pathname, err: (err as Error)?.message ?? String(err) });
      return;
    }
    const status = toStatus(err);
    if (status.code >= 500) logServerError(opts.logger, req.method, url.pathname, err);
    if (res.headersSent) { res.end(); return; }
    await settleBody(req, res, Math.min(settleBodyMs, timeouts.requestMs / 2));
    if (res.headersSent) return;
    // Resource requests negotiate their errors as their objects (client-go decodes a protobuf Status).
    writeError(res, err, info.isResourceRequest && negotiateMedia(req.headers.accept).protobuf);
  }
}

/**
 * A request asking to upgrade its connection. pods/exec and pods/attach
 * (handlers/exec.ts) and pods/portforward (handlers/portforward.ts) upgrade
 * to WebSocket or SPDY; pods/proxy and services/proxy pass the upgrade on to
 * the pod (proxy/upgrade.ts); every other request is served as
 * if it had not asked (as upstream's handlers ignore the header), on a
 * response bound to the raw socket, which closes after it.
 */
async function serveUpgrade(opts: ApiServerOptions, timeouts: ConnectionTimeouts, seats: FlowControl, req: IncomingMessage, socket: Duplex, head: Buffer): Promise<void> {
  const url = requestURL(req.url);
  const info = url && parseRequestInfo(req.method ?? 'GET', url);
  const stream = info?.isResourceRequest && info.group === '' && info.resource === 'pods' && info.namespace && info.name && (info.subresource === 'exec' || info.subresource === 'attach' || info.subresource === 'portforward');
  const proxied = info?.isResourceRequest && info.group === '' && (info.resource === 'pods' || info.resource === 'services') && info.namespace && info.name && info.subresource === 'proxy';
  if (url && info && proxied) return serveProxyUpgrade(opts, { req, socket, head, url, info });
  if (!url || !info || !stream) {
    if (head.length) socket.unshift(head);
    const res = new ServerResponse(req);
    res.shouldKeepAlive = false;
    res.assignSocket(socket as Socket);
    res.once('finish', () => socket.end());
    return serve({ opts, timeouts, seats, arrived: performance.now() }, req, res);
  }
  const count = (code: number) => opts.metrics.requests.inc({ code: String(code), ...requestLabels(req, info, url) });
  const fail = (status: ReturnType<typeof toStatus>) => { count(status.code); rejectUpgrade(socket, status.code, JSON.stringify(status), 'application/json'); };
  const user = await opts.authenticate(req);
  if (!user) return fail(unauthorized().status);
  if (!opts.kubelet) return fail(serviceUnavailable('this API server has no kubelet client credentials').status);
  try {
    const acting = await actingUser(opts, req, user);
    if ('internalError' in acting) { count(500); return rejectUpgrade(socket, 500, acting.internalError, 'text/plain; charset=utf-8'); }
    await authorizeRequest(opts, acting, info);
    const ctx = { req, socket, head, url, info, store: opts.registry.store('', 'v1', 'pods')!, kubelet: opts.kubelet, logger: opts.logger };
    count(await (info.subresource === 'portforward' ? handlePortForward(ctx) : handlePodStream(ctx)));
  } catch (err) {
    const status = toStatus(err);
    if (status.code >= 500) logServerError(opts.logger, req.method, url.pathname, err);
    fail(status);
  }
}

/** An upgrade through pods/proxy or services/proxy (proxy/upgrade.ts), authenticated and authorized as any request. */
async function serveProxyUpgrade(opts: ApiServerOptions, u: { req: IncomingMessage; socket: Duplex; head: Buffer; url: URL; info: RequestInfo }): Promise<void> {
  const { req, socket, url, info } = u;
  const count = (code: number) => opts.metrics.requests.inc({ code: String(code), ...requestLabels(req, info, url), subresource: 'proxy' });
  const fail = (status: ReturnType<typeof toStatus>) => { count(status.code); rejectUpgrade(socket, status.code, JSON.stringify(status), 'application/json'); };
  const user = await opts.authenticate(req);
  if (!user) return fail(unauthorized().status);
  try {
    const acting = await actingUser(opts, req, user);
    if ('internalError' in acting) { count(500); return rejectUpgrade(socket, 500, acting.internalError, 'text/plain; charset=utf-8'); }
    await authorizeRequest(opts, acting, info);
    const store = opts.registry.store('', 'v1', info.resource!)!;
    const resolved = await resolveProxy({ info, url, store }, proxyDeps(opts));
    await upgradeThroughProxy({ ...u, target: resolved.target, path: resolved.path, search: url.search });
    count(101);
  } catch (err) {
    const status = toStatus(err);
    if (status.code >= 500) logServerError(opts.logger, req.method, url.pathname, err);
    fail(status);
  }
}

/**
 * WithImpersonation (auth/impersonation.ts): the user the request acts as.
 * A refused impersonation throws its 403; headers that ask for groups, extras
 * or a uid without a user get upstream's text/plain 500, returned here.
 */
function actingUser(opts: ApiServerOptions, req: IncomingMessage, user: UserInfo): UserInfo | { internalError: string } | Promise<UserInfo | { internalError: string }> {
  const acting = impersonate(req, user, opts.authorize);
  return acting instanceof Promise ? acting.then((a) => actingFrom(req, user, a)) : actingFrom(req, user, acting);
}

function actingFrom(req: IncomingMessage, user: UserInfo, acting: Impersonation): UserInfo | { internalError: string } {
  if (acting.kind === 'forbidden') throw acting.error;
  if (acting.kind === 'internalError') return { internalError: `${internalErrorText(req.url ?? '', acting.message)}\n` };
  return acting.kind === 'user' ? acting.user : user;
}

/** WithAuthorization: anything but an allow is a 403 in upstream's words. */
/** Throws upstream's 403 unless allowed; a promise only when the authorizer answers with one. */
function authorizeRequest(opts: ApiServerOptions, user: UserInfo, info: RequestInfo): Promise<void> | void {
  if (!opts.authorize) return;
  const attrs = attributesOf(user, info);
  const d = opts.authorize(attrs);
  if (d instanceof Promise) return d.then((decided) => allowedOrThrow(attrs, decided));
  allowedOrThrow(attrs, d);
}

function allowedOrThrow(attrs: AuthorizationAttributes, d: Decision): void {
  if (d.decision !== 'allow') throw forbidden(attrs, d.reason);
}

async function serveNonResource(opts: ApiServerOptions, req: IncomingMessage, res: ServerResponse, url: URL, info: RequestInfo): Promise<void> {
  const p = url.pathname.replace(/\/$/, '') || '/';
  const served = [...opts.registry.resources(), componentStatusResource, ...(opts.resourceMetrics ? metricsResources : [])];
  if (req.method !== 'GET' && req.method !== 'HEAD') throw methodNotAllowed();
  switch (p) {
    // responsewriters.WriteRawJSON: indented, as `curl -k https://127.0.0.1:6443/version` shows it upstream.
    case '/version': return writeJSON(res, 200, JSON.stringify(versionInfo(), null, 2));
    case '/metrics': return text(res, 200, await opts.metrics.registry.metrics(), opts.metrics.registry.contentType);
    case '/openapi/v3': return writeJSON(res, 200, openapiV3Index(opts.registry.custom));
    case '/openapi/v2': return openapiV2(req, res);
    case '/api': return discovery(res, req, () => aggregatedDiscovery(true, served), () => apiVersions(opts.externalAddress?.() ?? hostOf(req)));
    case '/apis': return discovery(res, req, () => withAggregated(aggregatedDiscovery(false, served), opts.aggregator), () => withAggregatedGroups(apiGroupList(served), opts.aggregator));
  }
  const health = /^\/(healthz|livez|readyz)(\/|$)/.exec(p);
  if (health) {
    const answer = await healthAnswer(health[1] as HealthEndpoint, healthChecks(opts, health[1] as HealthEndpoint), url);
    if (!answer) throw pageNotFound();
    return text(res, answer.code, answer.body);
  }
  if (p.startsWith('/openapi/v3/')) {
    const doc = openapiV3Document(p.slice('/openapi/v3/'.length), opts.registry.custom);
    if (!doc) throw pageNotFound();
    res.setHeader('Etag', `"${doc.hash}"`);
    return text(res, 200, doc.body, 'application/json');
  }
  if (info.apiPrefix === 'api' && info.version && !info.parts.length) {
    const list = apiResourceList(served, '', info.version);
    if (list) return writeJSON(res, 200, list);
  }
  if (info.apiPrefix === 'apis' && info.group && !info.version) {
    const g = apiGroupDoc(served, info.group) ?? opts.aggregator?.groupDoc(info.group);
    if (g) return writeJSON(res, 200, g);
  }
  if (info.apiPrefix === 'apis' && info.version && !info.parts.length) {
    const list = apiResourceList(served, info.group, info.version);
    if (list) return writeJSON(res, 200, list);
  }
  throw pageNotFound();
}

/**
 * As kube-openapi's v2 handler: JSON or gnostic's protobuf form by the
 * Accept (see negotiateOpenAPIV2), both under the JSON form's ETag with
 * `Vary: Accept`, 304 for a matching If-None-Match (http.ServeContent's
 * answer); 406 when neither form is acceptable. Upstream's 406 has an empty
 * body; k8ts's is a Status, as every refusal here is.
 */
function openapiV2(req: IncomingMessage, res: ServerResponse): void {
  res.setHeader('Vary', 'Accept');
  const form = negotiateOpenAPIV2(req.headers.accept);
  if (!form) return writeStatus(res, notAcceptable(`only the following media types are accepted: application/json, ${openapiV2ProtobufType}`).status);
  const doc = form === 'json' ? openapiV2Document() : openapiV2Protobuf();
  res.setHeader('Etag', doc.etag);
  if (String(req.headers['if-none-match'] ?? '').split(',').some((t) => t.trim() === doc.etag)) {
    res.writeHead(304);
    return void res.end();
  }
  const body = Buffer.from(doc.body);
  res.writeHead(200, { 'Content-Type': form === 'json' ? 'application/json' : openapiV2ProtobufType, 'Content-Length': body.length, 'X-Content-Type-Options': 'nosniff' });
  res.end(body);
}

function discovery(res: ServerResponse, req: IncomingMessage, aggregated: () => unknown, legacy: () => unknown): void {
  const r = negotiate(req.headers.accept);
  if (r === 'aggregated-discovery') return writeJSON(res, 200, aggregated(), aggregatedContentType);
  if (r === 'table' || r === 'partial') throw notAcceptable('only application/json is supported here');
  writeJSON(res, 200, legacy());
}

const hostOf = (req: IncomingMessage) => String(req.headers.host ?? 'localhost:6443');

/**
 * The checks of each health endpoint, in kube-apiserver's order (server/config.go AddHealthChecks and
 * the hooks' registration): `ping`; `log` (upstream's klog flush check: k8ts's logger writes at once);
 * `etcd` (a real read of storage); /readyz adds `etcd-readiness` (--etcd-readycheck-timeout) and
 * `informer-sync` (the admission listers, synced before the listener opens); then the post-start hooks
 * (post-start-hooks.ts) on all three; /readyz ends with `shutdown`, which fails once the server stops.
 */
function healthChecks(opts: ApiServerOptions, endpoint: HealthEndpoint): HealthCheck[] {
  const ping: HealthCheck = { name: 'ping', check: () => undefined };
  const log: HealthCheck = { name: 'log', check: () => undefined };
  const etcd: HealthCheck = { name: 'etcd', check: () => opts.storageHealth?.() };
  const hooks = opts.postStartHooks?.checks() ?? [];
  if (endpoint !== 'readyz') return [ping, log, etcd, ...hooks];
  return [ping, log, etcd, { name: 'etcd-readiness', check: () => opts.storageHealth?.() },
    { name: 'informer-sync', check: () => undefined }, ...hooks,
    { name: 'shutdown', check: () => (opts.shuttingDown?.() ? 'process is shutting down' : undefined) }];
}

function text(res: ServerResponse, code: number, body: string, type = 'text/plain; charset=utf-8'): void {
  res.writeHead(code, { 'Content-Type': type, 'Content-Length': Buffer.byteLength(body), 'X-Content-Type-Options': 'nosniff' });
  res.end(body);
}

/**
 * A resource request to its handler. Not an async function: it hands on the handler's promise
 * (an async one would wrap it in another, and resolving one promise with another costs two more).
 */
function serveResource(opts: ApiServerOptions, req: IncomingMessage, res: ServerResponse, url: URL, info: RequestInfo, request: RequestContext): Promise<void> | void {
  const resource = info.resource!;
  // POST /namespaces/ns/bindings is the same as POST pods/x/binding.
  if (resource === 'bindings' && info.group === '' && info.verb === 'create' && info.namespace) return serveLegacyBinding(opts, req, res, url, info, request);
  if (info.group === '' && resource === 'componentstatuses' && info.namespace === undefined && !info.subresource) {
    req.resume();
    return handleComponentStatuses({ res, url, info, rendering: negotiateMedia(req.headers.accept).rendering, registry: opts.registry, ready: opts.ready, now: new Date() });
  }
  if (info.group === metricsGroup && opts.resourceMetrics) {
    return handleMetrics({ req, res, url, info, registry: opts.registry, scraper: opts.resourceMetrics, now: new Date() });
  }
  const rinfo = opts.registry.findResource(info.group, info.version, resource);
  const store = rinfo && opts.registry.store(info.group, info.version, resource);
  const review = rinfo && isReview(rinfo);
  if (!rinfo || (!store && !review)) { req.resume(); throw pageNotFound(); }
  if ((info.namespace !== undefined && !rinfo.namespaced) || (rinfo.namespaced && !info.namespace && !['list', 'watch'].includes(info.verb))) {
    req.resume();
    throw pageNotFound();
  }
  // Access and identity reviews have no store: answered at once (reviews/).
  if (review || !store) return handleReview({ req, res, url, info, resource: rinfo, user: request.user }, opts);
  // A deprecated version of a custom resource warns on every request to it, subresources too (upstream's crdHandler).
  if (store instanceof CustomResourceStore && store.custom.deprecationWarning) addWarning(request, store.custom.deprecationWarning);
  const ctx = context(opts, req, res, url, info, store, request);
  const sub = info.subresource;
  if (sub) {
    if (!rinfo.subresources.some((s) => s.name === sub)) { req.resume(); throw pageNotFound(); }
    switch (sub) {
      case 'scale': return handleScale(ctx);
      case 'binding': return handleBinding(ctx, info.name!);
      case 'eviction': return handleEviction(ctx);
      case 'approval': return handleApproval(ctx);
      case 'ephemeralcontainers': return handleEphemeralContainers(ctx);
      case 'finalize': return handleFinalize(ctx);
      case 'log': return handlePodLog(ctx, kubeletOf(opts, req));
      case 'proxy': return resource === 'nodes' ? handleNodeProxy(ctx, kubeletOf(opts, req)) : handleResourceProxy(ctx, proxyDeps(opts));
      case 'token': return handleTokenRequest(ctx, opts.serviceAccountTokens, opts.admitTokenRequest);
    }
  }
  if (!allowed(rinfo.verbs, info.verb, sub)) { req.resume(); throw methodNotAllowed(); }
  if (info.verb === 'create' && store instanceof CustomResourceStore && opts.registry.custom.isTerminating(store.custom.crdName)) {
    req.resume();
    throw methodNotAllowed('create not allowed while custom resource definition is terminating');
  }
  switch (info.verb) {
    case 'get': return handleGet(ctx);
    case 'list': return handleList(ctx);
    case 'watch': return handleWatch(ctx);
    case 'create': return info.name ? (req.resume(), notAllowed()) : handleCreate(ctx);
    case 'update': return handleUpdate(ctx);
    case 'patch': return handlePatch(ctx);
    case 'delete': return handleDelete(ctx);
    case 'deletecollection': return handleDeleteCollection(ctx);
    default: req.resume(); throw methodNotAllowed();
  }
}

/** metrics-server's scraper, reading kubelets through the API server's kubelet client. */
function resourceMetricsOf(opts: ApiServerOptions): SummaryScraper | undefined {
  const kubelet = opts.kubelet;
  if (!kubelet) return undefined;
  const nodes = async () => (await opts.registry.store('', 'v1', 'nodes')!.list(undefined)).items;
  return new SummaryScraper({ kubelet, nodes, logger: opts.logger });
}

function notAllowed(): never { throw methodNotAllowed(); }

function proxyDeps(opts: ApiServerOptions): ProxyDeps {
  const nodes = opts.nodes;
  return {
    agents: opts.proxyAgents,
    kubelet: opts.kubelet,
    node: nodes ? (name) => nodes.get(undefined, name)
      : (name) => opts.registry.store('', 'v1', 'nodes')!.get(undefined, name).then((n: Node) => n, () => undefined),
    services: opts.serviceEndpoints,
  };
}

function kubeletOf(opts: ApiServerOptions, req: IncomingMessage): KubeletClient {
  if (opts.kubelet) return opts.kubelet;
  req.resume();
  throw serviceUnavailable('this API server has no kubelet client credentials');
}

function allowed(verbs: string[], verb: string, sub?: string): boolean {
  if (sub === 'status') return ['get', 'update', 'patch'].includes(verb);
  return verbs.includes(verb);
}

/** POST /namespaces/ns/bindings: pods/x/binding with the pod named in the body. */
async function serveLegacyBinding(opts: ApiServerOptions, req: IncomingMessage, res: ServerResponse, url: URL, info: RequestInfo, request: RequestContext): Promise<void> {
  const ctx = context(opts, req, res, url, info, opts.registry.store('', 'v1', 'pods')!, request);
  const body = await peekBindingName(req);
  return handleBinding({ ...ctx, req: body.req }, body.name);
}

function context(opts: ApiServerOptions, req: IncomingMessage, res: ServerResponse, url: URL, info: RequestInfo, store: HandlerContext['store'], request: RequestContext): HandlerContext {
  const media = negotiateMedia(req.headers.accept);
  // Custom resources have no protobuf form: they answer JSON whatever the client prefers.
  const protobuf = media.protobuf && !(store instanceof CustomResourceStore);
  // The request's signal is made when a handler first asks for it, and aborted with a shared reason:
  // an abort() without one builds a DOMException with a stack on every response.
  let done: AbortController | undefined;
  let over = false;
  res.once('close', () => { over = true; done?.abort(requestOver); });
  const signalWhenNeeded = (): AbortSignal => {
    if (!done) {
      done = new AbortController();
      if (over) done.abort(requestOver);
    }
    return done.signal;
  };
  return {
    req, res, url, info, store, request, registry: opts.registry, rendering: media.rendering, protobuf, now: new Date(),
    signalWhenNeeded,
    logger: opts.logger, watchGauge: opts.metrics.watchers,
  };
}

/** The reason every request's signal is aborted with: its response is closed (answered, or its client left). */
const requestOver = Object.freeze(Object.assign(new Error('the request is over'), { name: 'AbortError' }));

/** Reads a Binding body to learn the pod name, then hands the body on as a fresh stream. */
async function peekBindingName(req: IncomingMessage): Promise<{ name: string; req: IncomingMessage }> {
  const { Readable } = await import('node:stream');
  const { readBody, decodeBody, mediaType } = await import('./body.js');
  const buf = await readBody(req);
  const obj = decodeBody(buf, mediaType(req), false, { apiVersion: 'v1', kind: 'Binding' });
  const replay = Readable.from([buf]) as unknown as IncomingMessage;
  replay.headers = req.headers;
  return { name: obj?.metadata?.name ?? '', req: replay };
}

/**
 * A 5xx in the log: an unexpected error with its stack (a bug to find); a
 * deliberate answer (a StatusError: etcd's request-too-large, a storage outage
 * worded as upstream's) with its message only, since its stack says nothing.
 */
function logServerError(logger: ApiServerOptions['logger'], method: string | undefined, path: string, err: unknown): void {
  if (err instanceof StatusError) logger.warn('request failed', { method, path, code: err.status.code, err: err.status.message });
  else logger.error('request failed', { method, path, err: (err as Error)?.stack ?? String(err) });
}
