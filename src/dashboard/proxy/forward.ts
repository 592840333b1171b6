/**
 * Forwards one request, or one HTTP Upgrade (exec, attach, port-forward over
 * WebSocket or SPDY), to the API server with the kubeconfig's credentials,
 * as `kubectl proxy` does: the client certificate on the TLS connection, or
 * the token as `Authorization: Bearer`. Whatever credentials the caller sent
 * are dropped first, so every request acts as the kubeconfig's user and no
 * one else. Bodies stream both ways (watches and `logs -f` stay open for as
 * long as the caller keeps them); a caller that goes away ends the request
 * to the API server too.
 */
import https from 'node:https';
import { STATUS_CODES, type IncomingMessage, type OutgoingHttpHeaders, type ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import type { ClientConfig } from '../../client/index.js';
import { dialUpgrade, spliceUpgrade } from '../../util/upgrade-proxy.js';

/** Hop-by-hop headers (RFC 9110 §7.6.1) and the caller's own credentials: never passed on. */
const dropped = new Set(['connection', 'keep-alive', 'proxy-connection', 'proxy-authorization', 'te', 'trailer', 'transfer-encoding',
  'upgrade', 'host', 'authorization', 'cookie']);

/** A page's WebSocket sends its bearer token as this subprotocol (browsers cannot set Authorization on a WebSocket). */
const bearerProtocol = /^base64url\.bearer\.authorization\.k8s\.io\./;

export interface Forwarder {
  forward(req: IncomingMessage, res: ServerResponse): void;
  forwardUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer): Promise<void>;
  close(): void;
}

export function createForwarder(config: ClientConfig, onError: (err: Error, req: IncomingMessage) => void): Forwarder {
  const tls = {
    ca: config.caPem, cert: config.certPem, key: config.keyPem, rejectUnauthorized: !config.insecureSkipTLSVerify,
  };
  const agent = new https.Agent({ ...tls, keepAlive: true });
  const target = (req: IncomingMessage) => `${config.server}${req.url ?? '/'}`;
  const headersFor = (req: IncomingMessage, keep: string[] = []): OutgoingHttpHeaders => {
    const out: OutgoingHttpHeaders = {};
    for (const [k, v] of Object.entries(req.headers)) if (v !== undefined && (!dropped.has(k) || keep.includes(k))) out[k] = v;
    if (config.token) out.authorization = `Bearer ${config.token}`;
    return out;
  };
  return {
    forward(req, res) {
      const upstream = https.request(target(req), { method: req.method, headers: headersFor(req), agent }, (answer) => {
        const headers: OutgoingHttpHeaders = {};
        for (const [k, v] of Object.entries(answer.headers)) if (v !== undefined && !dropped.has(k)) headers[k] = v;
        res.writeHead(answer.statusCode ?? 502, headers);
        // A watch's events reach the page as they come: no buffering of the head or the body.
        res.flushHeaders();
        answer.pipe(res);
        answer.on('error', () => res.destroy());
      });
      upstream.on('error', (err) => {
        onError(err, req);
        if (!res.headersSent) writeUnavailable(res, err); else res.destroy();
      });
      // The page closed the watch (or the tab): the API server's side ends as well.
      res.on('close', () => { if (!res.writableFinished) upstream.destroy(); });
      req.pipe(upstream);
    },
    async forwardUpgrade(req, socket, head) {
      const headers = headersFor(req, ['connection', 'upgrade']);
      const protocols = String(req.headers['sec-websocket-protocol'] ?? '').split(',').map((p) => p.trim()).filter((p) => p && !bearerProtocol.test(p));
      if (protocols.length) headers['sec-websocket-protocol'] = protocols.join(', '); else delete headers['sec-websocket-protocol'];
      try {
        const answer = await dialUpgrade(target(req), { method: req.method, headers, tls });
        if (answer.upgraded) { spliceUpgrade(socket, head, answer); return; }
        const body = answer.body;
        socket.end(`HTTP/1.1 ${answer.statusCode} ${STATUS_CODES[answer.statusCode] ?? ''}\r\nContent-Type: ${answer.headers['content-type'] ?? 'text/plain'}\r\n`
          + `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`);
      } catch (err) {
        onError(err as Error, req);
        socket.destroy();
      }
    },
    close: () => agent.destroy(),
  };
}

/** The API server could not be reached: a Status, as kubectl proxy's error responder answers. */
export function writeUnavailable(res: ServerResponse, err: Error): void {
  const body = JSON.stringify({
    kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', reason: 'ServiceUnavailable', code: 503,
    message: `error trying to reach the API server: ${err.message}`,
  });
  res.writeHead(503, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body) });
  res.end(body);
}
