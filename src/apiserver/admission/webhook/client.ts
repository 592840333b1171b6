/**
 * POSTs an AdmissionReview to a webhook and answers its response, as upstream's
 * webhook client (apiserver/pkg/util/webhook, admission/plugin/webhook/request):
 *  - clientConfig.url as given, or clientConfig.service resolved through
 *    service-resolver.ts (the connection goes to an endpoint's address; the serving
 *    certificate must be valid for `NAME.NAMESPACE.svc`, the URL shown in errors);
 *  - caBundle (PEM) as the only roots when given, the system's otherwise;
 *  - `?timeout=Ns` appended, and the call cut at timeoutSeconds;
 *  - failures worded as Go's client reports them (`Post "URL": context deadline
 *    exceeded`, `dial tcp ADDR: connect: connection refused`, x509 errors).
 * Connections are kept alive per webhook endpoint (one agent per CA and server name).
 */
import https from 'node:https';
import { checkServerIdentity, createSecureContext, type PeerCertificate } from 'node:tls';
import type { WebhookClientConfig } from 'kubernetes-types/admissionregistration/v1.js';
import type { ServiceResolver } from '../../service-resolver.js';

/** upstream's ErrCallingWebhook reason: the call did not produce a usable answer. */
export class CallError extends Error {}

const agents = new Map<string, https.Agent>();

function agentFor(caPem: string | undefined, serverName: string): https.Agent {
  const key = `${serverName}\n${caPem ?? ''}`;
  let agent = agents.get(key);
  if (!agent) {
    // One secure context per agent: without it each new connection parses the CA bundle again
    // (tls.connect builds a context from `ca` when none is given), on the serving loop, in a burst of calls.
    // A bundle that does not parse keeps the old path, where each request reports it as before.
    let secureContext;
    try { secureContext = caPem === undefined ? undefined : createSecureContext({ ca: caPem }); } catch { secureContext = undefined; }
    agent = new https.Agent({ keepAlive: true, maxSockets: 64, ca: caPem, secureContext, servername: serverName });
    agents.set(key, agent);
  }
  return agent;
}

/** Drops every kept-alive connection (server shutdown). */
export function closeWebhookConnections(): void {
  for (const a of agents.values()) a.destroy();
  agents.clear();
}

interface Target { shown: string; connectTo: URL; serverName: string }

function targetOf(cc: WebhookClientConfig, timeoutSeconds: number, resolver: ServiceResolver): Target {
  if (cc.url) {
    const url = new URL(cc.url);
    url.searchParams.set('timeout', `${timeoutSeconds}s`);
    return { shown: url.href, connectTo: url, serverName: url.hostname.replace(/^\[|\]$/g, '') };
  }
  const svc = cc.service!;
  const port = svc.port ?? 443;
  // As upstream shows it: the service's DNS name with its port, even 443.
  const shown = `https://${svc.name}.${svc.namespace}.svc:${port}${svc.path ?? ''}?timeout=${timeoutSeconds}s`;
  let resolved;
  try {
    resolved = resolver.resolve(svc.namespace, svc.name, port);
  } catch (e) {
    throw new CallError(`failed to call webhook: Post "${shown}": ${(e as Error).message}`);
  }
  const connectTo = new URL(`${resolved.url}${svc.path ?? ''}?timeout=${timeoutSeconds}s`);
  return { shown, connectTo, serverName: resolved.serverName };
}

/** Go's wording of a Node network error. */
function goError(err: NodeJS.ErrnoException & { address?: string; port?: number }, target: URL): string {
  const addr = `${err.address ?? target.hostname}:${err.port ?? target.port}`;
  switch (err.code) {
    case 'ECONNREFUSED': return `dial tcp ${addr}: connect: connection refused`;
    case 'ECONNRESET': return 'EOF';
    case 'UNABLE_TO_VERIFY_LEAF_SIGNATURE':
    case 'SELF_SIGNED_CERT_IN_CHAIN':
    case 'DEPTH_ZERO_SELF_SIGNED_CERT': return 'tls: failed to verify certificate: x509: certificate signed by unknown authority';
    case 'ERR_TLS_CERT_ALTNAME_INVALID': return `tls: failed to verify certificate: x509: ${hostnameError(err as unknown as { host?: string; cert?: PeerCertificate })}`;
    case 'CERT_HAS_EXPIRED': return 'tls: failed to verify certificate: x509: certificate has expired or is not yet valid';
    default: return err.message;
  }
}

/** Go's x509.HostnameError text. */
function hostnameError(err: { host?: string; cert?: PeerCertificate }): string {
  const dns = (err.cert?.subjectaltname ?? '').split(', ').filter((n) => n.startsWith('DNS:')).map((n) => n.slice(4));
  const host = (err.host ?? '').replace(/\.$/, '');
  return dns.length ? `certificate is valid for ${dns.join(', ')}, not ${host}` : `certificate is not valid for any names, but wanted to match ${host}`;
}

export interface WebhookCall { clientConfig: WebhookClientConfig; timeoutSeconds: number; body: string; resolver: ServiceResolver }

/** The webhook's decoded answer; throws CallError when there is none to use. */
export async function callWebhook(call: WebhookCall): Promise<unknown> {
  const target = targetOf(call.clientConfig, call.timeoutSeconds, call.resolver);
  const caPem = call.clientConfig.caBundle ? Buffer.from(call.clientConfig.caBundle, 'base64').toString('utf8') : undefined;
  const deadline = Date.now() + call.timeoutSeconds * 1000;
  try {
    return await post(call, target, caPem, deadline);
  } catch (e) {
    // A kept-alive connection the server closed while idle fails before the request is sent:
    // send it once more on a new one, as Go's transport does (errServerClosedIdle).
    if (!(e instanceof StaleConnection)) throw e;
    return post(call, target, caPem, deadline);
  }
}

class StaleConnection extends Error {}

function post(call: WebhookCall, { shown, connectTo, serverName }: Target, caPem: string | undefined, deadline: number): Promise<unknown> {
  const post = `Post "${shown}"`;
  return new Promise((resolve, reject) => {
    let settled = false;
    const fail = (why: string) => { if (!settled) { settled = true; reject(new CallError(`failed to call webhook: ${post}: ${why}`)); } };
    const req = https.request(connectTo, {
      method: 'POST', agent: agentFor(caPem, serverName), servername: serverName,
      checkServerIdentity: (_host: string, cert: PeerCertificate) => checkServerIdentity(serverName, cert),
      headers: { 'Content-Type': 'application/json', Accept: 'application/json, */*', 'Content-Length': Buffer.byteLength(call.body) },
    }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('error', (e) => fail(goError(e, connectTo)));
      res.on('end', () => {
        clearTimeout(timer);
        if (settled) return;
        settled = true;
        const text = Buffer.concat(chunks).toString('utf8');
        const code = res.statusCode ?? 0;
        if (code < 200 || code > 299) {
          reject(new CallError(`failed to call webhook: an error on the server (${JSON.stringify(text.trim().slice(0, 1024))}) has prevented the request from succeeding`));
          return;
        }
        try { resolve(JSON.parse(text)); } catch (e) { reject(new CallError(`received invalid webhook response: ${(e as Error).message}`)); }
      });
    });
    const timer = setTimeout(() => { fail('context deadline exceeded'); req.destroy(); }, Math.max(0, deadline - Date.now()));
    req.on('error', (e: NodeJS.ErrnoException) => {
      clearTimeout(timer);
      if (req.reusedSocket && !settled && (e.code === 'ECONNRESET' || e.code === 'EPIPE')) { settled = true; reject(new StaleConnection()); return; }
      fail(goError(e, connectTo));
    });
    req.end(call.body);
  });
}
