/**
 * The dashboard's static files (dist/web, built by scripts/bundle-web.mjs),
 * read once into memory with their gzip forms. They carry no data and need no
 * credentials; the page they make asks the API for everything, with the token
 * the user pastes.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { extname, join } from 'node:path';
import { gzipSync } from 'node:zlib';

export interface StaticFile { readonly body: Buffer; readonly gzip: Buffer; readonly type: string; readonly etag: string }

const types: Record<string, string> = {
  '.html': 'text/html; charset=utf-8', '.js': 'text/javascript; charset=utf-8', '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml', '.png': 'image/png', '.json': 'application/json',
};

/** name ("index.html", "app.js") → file; empty when the web part was not built. */
export function loadStaticFiles(dir: string): Map<string, StaticFile> {
  const files = new Map<string, StaticFile>();
  if (!existsSync(dir)) return files;
  for (const name of readdirSync(dir)) {
    const type = types[extname(name)];
    if (!type) continue;
    const body = readFileSync(join(dir, name));
    const gzip = gzipSync(body, { level: 9 });
    files.set(name, { body, gzip, type, etag: `"${body.length.toString(16)}-${hash(body)}"` });
  }
  return files;
}

/** FNV-1a over the bytes: enough to tell two builds apart in an ETag. */
function hash(b: Buffer): string {
  let h = 0x811c9dc5;
  for (let i = 0; i < b.length; i++) { h ^= b[i]; h = Math.imul(h, 0x01000193); }
  return (h >>> 0).toString(16);
}
