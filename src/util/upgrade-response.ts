/**
 * Answers an upgrade request that will not be upgraded: a plain HTTP
 * response written on the raw socket (Node hands 'upgrade' requests over
 * without a ServerResponse), then the connection ends.
 */
import { STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';

export function rejectUpgrade(socket: Duplex, code: number, body: string, contentType = 'text/plain; charset=utf-8'): void {
  if (!socket.writable) { socket.destroy(); return; }
  socket.end(`HTTP/1.1 ${code} ${STATUS_CODES[code] ?? 'Error'}\r\nContent-Type: ${contentType}\r\nContent-Length: ${Buffer.byteLength(body)}\r\nX-Content-Type-Options: nosniff\r\nConnection: close\r\n\r\n${body}`);
}
