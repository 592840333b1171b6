/**
 * Where bearer tokens travel: the Authorization header
 * (authenticator/request/bearertoken) and, for browsers that cannot set
 * headers on a websocket, a subprotocol `base64url.bearer.authorization.k8s.io.<token>`
 * (authenticator/request/websocket/protocol.go).
 */
import type { IncomingMessage } from 'node:http';

/** `Authorization: Bearer <token>`; undefined when absent or not a bearer token. */
export function bearerTokenFromHeader(req: IncomingMessage): string | undefined {
  const auth = (req.headers.authorization ?? '').trim();
  const parts = auth.split(' ');
  if (parts.length < 2 || parts[0]!.toLowerCase() !== 'bearer') return undefined;
  return parts[1] || undefined;
}

export const BEARER_PROTOCOL_PREFIX = 'base64url.bearer.authorization.k8s.io.';

/** wsstream.IsWebSocketRequest: `Connection` lists "upgrade" and `Upgrade` is "websocket". */
export function isWebSocketRequest(req: IncomingMessage): boolean {
  const connection = (req.headers.connection ?? '').toLowerCase().split(',').map((s) => s.trim());
  return connection.includes('upgrade') && (req.headers.upgrade ?? '').toLowerCase() === 'websocket';
}

export type WebSocketToken =
  | { kind: 'none' }
  | { kind: 'invalid'; message: string }
  /** `accept()` removes the token's subprotocol from the request, as upstream does once the token authenticates. */
  | { kind: 'token'; token: string; accept: () => void };

const utf8 = new TextDecoder('utf-8', { fatal: true });

function decodeToken(encoded: string): string | undefined {
  if (!/^[A-Za-z0-9_-]*$/.test(encoded) || encoded.length % 4 === 1) return undefined;
  try {
    return utf8.decode(Buffer.from(encoded, 'base64url'));
  } catch {
    return undefined;
  }
}

/** The token carried in Sec-WebSocket-Protocol of a websocket request, following upstream's rules. */
export function webSocketBearerToken(req: IncomingMessage): WebSocketToken {
  if (!isWebSocketRequest(req)) return { kind: 'none' };
  const header = req.headers['sec-websocket-protocol'];
  const offered = (Array.isArray(header) ? header.join(',') : header ?? '').split(',').map((p) => p.trim()).filter((p) => p);
  const others = offered.filter((p) => !p.startsWith(BEARER_PROTOCOL_PREFIX));
  const carrying = offered.filter((p) => p.startsWith(BEARER_PROTOCOL_PREFIX));
  if (carrying.length === 0) return { kind: 'none' };
  if (carrying.length > 1) return { kind: 'invalid', message: 'multiple base64.bearer.authorization tokens specified' };
  const token = decodeToken(carrying[0]!.slice(BEARER_PROTOCOL_PREFIX.length));
  if (token === undefined) return { kind: 'invalid', message: 'invalid base64.bearer.authorization token encoding' };
  if (token === '') return { kind: 'none' };
  // Another subprotocol must remain to be echoed back once the token's is removed.
  if (others.length === 0) return { kind: 'invalid', message: 'missing additional subprotocol' };
  return { kind: 'token', token, accept: () => { req.headers['sec-websocket-protocol'] = others.join(','); } };
}
