/**
 * The dashboard's static files (dist/web, built by scripts/bundle-web.mjs),
 * read once into memory with their gzip forms, off the event loop (async reads, gzip
 * on libuv's thread pool) and not before the server is ready: the API server's start
 * does not wait for them (bench/startup.ts). They carry no data and need no
 * credentials; the page they make asks the API for everything, with the token
 * the user pastes.
 */
import { readdir, readFile } from 'node:fs/promises';
import { extname, join } from 'node:path';
import { promisify } from 'node:util';
import { gzip as gzipCallback } from 'node:zlib';

const gzip = promisify(gzipCallback);

export interface StaticFile { readonly body: Buffer; readonly gzip: Buffer; readonly type: string; readonly etag: string }

const types: Record<string, string> = {
  '.html': 'text/html; charset=utf-8', '.js': 'text/javascript; charset=utf-8', '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml', '.png': 'image/png', '.json': 'application/json',
};

/** name ("index.html", "app.js") → file; empty when the web part was not built. */
export async function loadStaticFiles(dir: string): Promise<Map<string, StaticFile>> {
  const files = new Map<string, StaticFile>();
  let names: string[];
  try {
    names = await readdir(dir);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return files;
    throw err;
  }
  await Promise.all(names.map(async (name) => {
    const type = types[extname(name)];
    if (!type) return;
    const body = await readFile(join(dir, name));
    files.set(name, { body, gzip: await gzip(body, { level: 9 }), type, etag: `"${body.length.toString(16)}-${hash(body)}"` });
  }));
  return files;
}

/** FNV-1a over the bytes: enough to tell two builds apart in an ETag. */
function hash(b: Buffer): string {
  let h = 0x811c9dc5;
  for (let i = 0; i < b.length; i++) { h ^= b[i]; h = Math.imul(h, 0x01000193); }
  return (h >>> 0).toString(16);
}
