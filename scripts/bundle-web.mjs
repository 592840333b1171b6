// The dashboard (web/) as k8ts serves it at /dashboard/: web/src/main.tsx and its
// imports (Preact included) bundled and minified by esbuild into dist/web/app.js
// (the exec terminal's xterm.js in a chunk loaded on first use), beside
// index.html, style.css and xterm.css. Nothing is fetched from elsewhere at run time.
// The page is type-checked separately (its own tsconfig: DOM, JSX for Preact) by
// `npm run build`, not here: esbuild only strips types, so `npm install`'s prepare
// builds the page without running tsc.
import { build } from 'esbuild';
import { copyFileSync, mkdirSync, rmSync } from 'node:fs';

rmSync('dist/web', { recursive: true, force: true });
mkdirSync('dist/web', { recursive: true });
await build({
  entryPoints: { app: 'web/src/main.tsx' },
  outdir: 'dist/web',
  bundle: true,
  // A dynamic import() (the exec terminal's xterm.js) becomes a chunk of its own, fetched when first used.
  splitting: true,
  chunkNames: 'chunk-[hash]',
  minify: true,
  format: 'esm',
  platform: 'browser',
  target: 'es2022',
  jsx: 'automatic',
  jsxImportSource: 'preact',
  legalComments: 'none',
  logLevel: 'warning',
});
for (const f of ['index.html', 'style.css']) copyFileSync(`web/${f}`, `dist/web/${f}`);
copyFileSync('node_modules/@xterm/xterm/css/xterm.css', 'dist/web/xterm.css');
