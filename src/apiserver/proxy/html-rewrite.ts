/**
 * The links of an HTML page served through pods/proxy or services/proxy,
 * rewritten so they lead through the proxy again (upstream's rewriteHTML
 * and rewriteResponse, apimachinery util/proxy transport.go):
 *
 *  1. Only the attributes upstream lists hold URLs (a href, img src, form
 *     action, script src, link href ... atomsToAttrs); each is rewritten as
 *     a redirect's Location is (transport.ts rewriteLocation: a path from the
 *     root, or a URL on the pod itself, goes below the proxy path; relative
 *     paths and other hosts stay).
 *  2. Comments, doctypes, end tags and the text inside script, style,
 *     textarea and title are copied unchanged; so is everything but the
 *     values rewritten (upstream re-serializes each tag; k8ts keeps the
 *     page's own spelling).
 *  3. A gzip or deflate body is decoded, rewritten and encoded again; any
 *     other Content-Encoding is passed on untouched. The page is read whole
 *     (as upstream does) and sent with its new Content-Length; one past
 *     16 MiB is passed on unchanged instead (k8ts's bound; upstream has none).
 */
import type { IncomingMessage, OutgoingHttpHeaders, ServerResponse } from 'node:http';
import { isUtf8 } from 'node:buffer';
import { deflateRawSync, gunzipSync, gzipSync, inflateRawSync } from 'node:zlib';

const urlAttrs: Record<string, readonly string[]> = {
  a: ['href'], applet: ['codebase'], area: ['href'], audio: ['src'], base: ['href'], blockquote: ['cite'], body: ['background'],
  button: ['formaction'], command: ['icon'], del: ['cite'], embed: ['src'], form: ['action'], frame: ['longdesc', 'src'], head: ['profile'],
  html: ['manifest'], iframe: ['longdesc', 'src'], img: ['longdesc', 'src', 'usemap'], input: ['src', 'usemap', 'formaction'], ins: ['cite'],
  link: ['href'], object: ['classid', 'codebase', 'data', 'usemap'], q: ['cite'], script: ['src'], source: ['src'], video: ['poster', 'src'],
};
const rawText = new Set(['script', 'style', 'textarea', 'title']);

/** Whether an answer is a page to rewrite: text/html, with a body. */
export function isRewritableHTML(method: string | undefined, status: number, headers: IncomingMessage['headers']): boolean {
  const type = String(headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
  return type === 'text/html' && method !== 'HEAD' && status !== 204 && status !== 304 && headers.location === undefined;
}

export function rewriteHTML(html: string, rewrite: (url: string) => string): string {
  let out = '';
  let i = 0;
  while (i < html.length) {
    const lt = html.indexOf('<', i);
    if (lt < 0) break;
    out += html.slice(i, lt);
    const end = skipMarkup(html, lt);
    if (end !== undefined) { out += html.slice(lt, end); i = end; continue; }
    const tag = startTag(html, lt, rewrite);
    if (!tag) { out += '<'; i = lt + 1; continue; }
    out += tag.text;
    i = tag.end;
    if (rawText.has(tag.name)) {
      const close = html.toLowerCase().indexOf(`</${tag.name}`, i);
      const stop = close < 0 ? html.length : close;
      out += html.slice(i, stop);
      i = stop;
    }
  }
  return out + html.slice(i);
}

/** Comments, <!doctype>, <?...?> and end tags: where they end, copied as they are. */
function skipMarkup(html: string, at: number): number | undefined {
  if (html.startsWith('<!--', at)) { const e = html.indexOf('-->', at + 4); return e < 0 ? html.length : e + 3; }
  if (html[at + 1] === '!' || html[at + 1] === '?' || html[at + 1] === '/') { const e = html.indexOf('>', at); return e < 0 ? html.length : e + 1; }
  return undefined;
}

const attrPattern = /([^\s"'>/=]+)(\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'=<>`]+)))?/y;

/** A start tag at `at`, its URL attributes rewritten; undefined when `<` starts no tag. */
function startTag(html: string, at: number, rewrite: (url: string) => string): { name: string; text: string; end: number } | undefined {
  const m = /^<([a-zA-Z][a-zA-Z0-9-]*)/.exec(html.slice(at, at + 64));
  if (!m) return undefined;
  const name = m[1]!.toLowerCase();
  const attrs = urlAttrs[name] ?? [];
  let i = at + m[0].length;
  let text = m[0];
  while (i < html.length && html[i] !== '>') {
    if (/[\s/]/.test(html[i]!)) { text += html[i]; i++; continue; }
    attrPattern.lastIndex = i;
    const a = attrPattern.exec(html);
    if (!a) { text += html[i]; i++; continue; }
    const value = a[3] ?? a[4] ?? a[5];
    if (value !== undefined && attrs.includes(a[1]!.toLowerCase())) {
      const at2 = a[0].lastIndexOf(value);
      text += a[0].slice(0, at2) + rewrite(value) + a[0].slice(at2 + value.length);
    } else {
      text += a[0];
    }
    i += a[0].length;
  }
  return { name, text: text + (i < html.length ? '>' : ''), end: Math.min(i + 1, html.length) };
}

/** UTF-8 pages as text; any other bytes one char each (latin1), so what is not rewritten comes back byte for byte. */
function rewriteBytes(page: Buffer, rewrite: (url: string) => string): Buffer {
  const charset = isUtf8(page) ? 'utf8' : 'latin1';
  return Buffer.from(rewriteHTML(page.toString(charset), rewrite), charset);
}

/** A page larger than this is passed on unchanged rather than held in memory whole (upstream has no bound). */
export const maxRewrittenPage = 16 * 1024 * 1024;

/**
 * Reads the page whole, rewrites its links and answers it; other encodings,
 * and pages past maxRewrittenPage, pass through as they are.
 */
export async function answerRewrittenHTML(upstream: IncomingMessage, res: ServerResponse, status: number, headers: OutgoingHttpHeaders, rewrite: (url: string) => string): Promise<void> {
  const chunks: Buffer[] = [];
  let size = 0;
  let passing = false;
  for await (const c of upstream) {
    if (passing) {
      if (res.destroyed) { upstream.destroy(); return; }
      if (!res.write(c)) await new Promise((r) => { res.once('drain', r); res.once('close', r); });
      continue;
    }
    chunks.push(c as Buffer);
    size += (c as Buffer).length;
    if (size > maxRewrittenPage) {
      passing = true;
      res.writeHead(status, headers);
      for (const b of chunks.splice(0)) res.write(b);
    }
  }
  if (passing) { res.end(); return; }
  const raw = Buffer.concat(chunks);
  const encoding = String(upstream.headers['content-encoding'] ?? '').trim().toLowerCase();
  const codec = encoding === 'gzip' ? { decode: gunzipSync, encode: gzipSync } : encoding === 'deflate' ? { decode: inflateRawSync, encode: deflateRawSync }
    : encoding === '' ? { decode: (b: Buffer) => b, encode: (b: Buffer) => b } : undefined;
  const body = codec ? codec.encode(rewriteBytes(codec.decode(raw), rewrite)) : raw;
  res.writeHead(status, { ...headers, 'content-length': body.length });
  res.end(body);
}
