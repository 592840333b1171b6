/**
 * Requests Node's HTTP parser refuses before any handler sees them. Node's
 * default answer is a bare status line; clients of the API expect a Status.
 *
 * Go's net/http accepts any method token and kube-apiserver answers an
 * unknown one with a 405 MethodNotAllowed Status; llhttp knows a fixed list
 * of methods only (HPE_INVALID_METHOD), so that is answered here the same
 * way. Oversized headers get 431 and timeouts 408, as Node would answer;
 * anything else the parser cannot read is a 400 BadRequest.
 */
import type { Duplex } from 'node:stream';
import { badRequest, methodNotAllowed, Status } from '../api/status.js';

const reasons: Record<number, string> = { 400: 'Bad Request', 405: 'Method Not Allowed', 408: 'Request Timeout', 413: 'Request Entity Too Large', 431: 'Request Header Fields Too Large' };

function statusFor(code: string | undefined): Status {
  const failure = (c: number, reason: string, message: string): Status => ({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, reason, code: c });
  switch (code) {
    case 'HPE_INVALID_METHOD': return methodNotAllowed().status;
    case 'HPE_HEADER_OVERFLOW': return failure(431, 'RequestHeaderFieldsTooLarge', 'Request Header Fields Too Large');
    case 'ERR_HTTP_REQUEST_TIMEOUT': return failure(408, 'Timeout', 'Request Timeout');
    case 'HPE_CHUNK_EXTENSIONS_OVERFLOW': return failure(413, 'RequestEntityTooLarge', 'Request Entity Too Large');
    default: return badRequest('Bad Request').status;
  }
}

/** The server's 'clientError' listener: one Status, then the connection closes (its parser state is lost). */
export function answerClientError(err: Error & { code?: string }, socket: Duplex): void {
  // A response already under way on this connection cannot be followed by another.
  const inFlight = (socket as Duplex & { _httpMessage?: { headersSent?: boolean } })._httpMessage?.headersSent;
  // A TLS failure (a handshake past its deadline, one the client broke off) has no HTTP to
  // answer in: the connection is closed, as Go's server closes it.
  const tlsFailure = err.code?.startsWith('ERR_TLS_') || err.code?.startsWith('ERR_SSL_');
  if (err.code === 'ECONNRESET' || tlsFailure || !socket.writable || inFlight) {
    socket.destroy();
    return;
  }
  const status = statusFor(err.code);
  const body = JSON.stringify(status);
  socket.end(`HTTP/1.1 ${status.code} ${reasons[status.code]}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`);
}
