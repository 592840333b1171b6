/**
 * How Go's net/http writes the answers of the test servers simulated here
 * (agnhost's subcommands, goproxy), so their headers are the real images'.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';

/** A body written by Go's ResponseWriter: Content-Type sniffed as text when there is a body, none for an empty one. */
export function goWrite(res: ServerResponse, status: number, body: string): void {
  const headers: Record<string, string | number> = { 'Content-Length': Buffer.byteLength(body) };
  if (body) headers['Content-Type'] = 'text/plain; charset=utf-8';
  res.writeHead(status, headers);
  res.end(body);
}

/** Go's http.Error: the message and a newline, text/plain, nosniff. */
export function goError(res: ServerResponse, status: number, message: string): void {
  const body = `${message}\n`;
  res.writeHead(status, { 'Content-Type': 'text/plain; charset=utf-8', 'X-Content-Type-Options': 'nosniff', 'Content-Length': Buffer.byteLength(body) });
  res.end(body);
}

/** Go's http.Redirect for a GET or HEAD: the Location, and a short HTML body naming the status. */
export function goRedirect(req: IncomingMessage, res: ServerResponse, location: string, code: number): void {
  const statusText: Record<number, string> = { 301: 'Moved Permanently', 302: 'Found', 303: 'See Other', 307: 'Temporary Redirect', 308: 'Permanent Redirect' };
  const escaped = location.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&#34;').replace(/'/g, '&#39;');
  const body = (req.method === 'GET' || req.method === 'HEAD') && statusText[code] ? `<a href="${escaped}">${statusText[code]}</a>.\n\n` : '';
  const headers: Record<string, string | number> = { Location: location, 'Content-Length': Buffer.byteLength(body) };
  if (body) headers['Content-Type'] = 'text/html; charset=utf-8';
  res.writeHead(code, headers);
  res.end(req.method === 'HEAD' ? undefined : body);
}
