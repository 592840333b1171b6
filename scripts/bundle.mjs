// The CLI as users run it: k8ts's TypeScript sources (src/) bundled by
// esbuild into dist/bundle, one file per entry plus shared chunks, so that
// start-up reads a few files instead of ~700 (module loading was most of
// `k8ts up`'s start-up; see bench/RESULTS.md "Start-up"). Packages stay in
// node_modules (better-sqlite3 is native; the others load lazily already), except the
// @bufbuild packages (CEL, RE2, protobuf-es): pure ESM spread over some 200 files whose
// resolution alone (package.json lookups per file) cost the API server's start ~100 ms;
// bundled, they are a few chunks.
// esbuild strips the types itself (it reads tsconfig.json), so the bundle needs no tsc run:
// `npm install`'s prepare builds only this, gen-openapi and the dashboard (a few seconds of CPU),
// while `npm run build` and `npm test` still type-check everything with tsc first.
// The worker threads are entries too: their code finds them beside itself
// (`new URL('./worker.js', import.meta.url)`), in either layout.
// `k8ts` itself (main.js) is a launcher (src/cli/launcher.ts): `k8ts up` and `k8ts server` run a
// CommonJS build of the same CLI (main.cjs, one script, @peculiar/x509 bundled into it too) with a V8
// code cache that a training start made (scripts/train-code-cache.mjs, run at the end of this build);
// main.cjs holds only those two commands' code (src/cli/main-cached.ts);
// every other command runs the ES module bundle's entry, cli.js.
import { build } from 'esbuild';
import { createHash } from 'node:crypto';
import { copyFileSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { asciiOnly, asciiOnlyFiles } from './ascii-only.mjs';
import { trainCodeCache } from './train-code-cache.mjs';

// src/api/apiextensions/cel-runtime-cost.ts meters CEL by patching @bufbuild/cel's Planner, which
// the package does not export: it imports planner.js by URL beside the package's entry. Bundled,
// that URL would be node_modules' copy, not the bundle's, and the patch would miss; so the bundle
// imports the same file by path, statically (a CommonJS build has no top-level await), which esbuild
// resolves to the bundled module itself.
const celPlanner = join(dirname(createRequire(import.meta.url).resolve('@bufbuild/cel')), '..', 'esm', 'planner.js');
const plannerUrlLine = /^const plannerUrl = new URL\('\.\/planner\.js', import\.meta\.resolve\('@bufbuild\/cel'\)\);$/m;
const plannerImport = '(await import(plannerUrl.href))';
const promRequire = /^const require = createRequire\(import\.meta\.url\);$/m;

/**
 * Packages stay in node_modules, except the @bufbuild ones (CEL, RE2, protobuf-es: pure ESM spread
 * over some 200 files) and, with `alsoBundle`, the packages named there.
 */
const packages = (alsoBundle = /^$/) => ({
  name: 'packages-external-but-bufbuild',
  setup(b) {
    b.onResolve({ filter: /^[^./]/ }, (args) => (args.path.startsWith('@bufbuild/') || alsoBundle.test(args.path) ? undefined : { path: args.path, external: true }));
    // src/util/prom.ts requires prom-client's files through createRequire (from ESM, a static import of a CommonJS
    // package runs Node's export lexer over it); where prom-client is bundled, its requires are left to esbuild.
    if (alsoBundle.test('prom-client')) {
      b.onLoad({ filter: /[\\/]util[\\/]prom\.ts$/ }, (args) => {
        const text = readFileSync(args.path, 'utf8');
        if (!promRequire.test(text)) throw new Error(`${args.path}: "${promRequire.source}" not found; update scripts/bundle.mjs`);
        return { contents: text.replace(promRequire, ''), loader: 'ts', resolveDir: dirname(args.path) };
      });
    }
    b.onLoad({ filter: /[\\/]apiextensions[\\/]cel-runtime-cost\.ts$/ }, (args) => {
      const text = readFileSync(args.path, 'utf8');
      if (!plannerUrlLine.test(text) || !text.includes(plannerImport)) throw new Error(`${args.path}: the planner's import not found; update scripts/bundle.mjs`);
      const contents = `import * as plannerModule from ${JSON.stringify(celPlanner)};\n${text.replace(plannerUrlLine, '').replace(plannerImport, 'plannerModule')}`;
      return { contents, loader: 'ts', resolveDir: dirname(args.path) };
    });
  },
});
const common = { bundle: true, platform: 'node', target: 'node20', logLevel: 'warning' };

rmSync('dist/bundle', { recursive: true, force: true });
await build({
  ...common,
  entryPoints: { cli: 'src/cli/main.ts', 'control-loops-worker': 'src/cli/control-loops-worker.ts', worker: 'src/apiserver/heavy/worker.ts', 'checkpoint-worker': 'src/storage/sqlite/checkpoint-worker.ts', 'etcd-client-worker': 'src/storage/etcd/etcd-client-worker.ts' },
  outdir: 'dist/bundle',
  entryNames: '[name]',
  splitting: true,
  format: 'esm',
  plugins: [packages()],
});
// The chunks the control loops' thread loads stay in its heap too (ascii-only.mjs).
asciiOnlyFiles('dist/bundle');

// The CommonJS build, of up and server only (src/cli/main-cached.ts): dynamic imports become requires (esbuild keeps a module's evaluation lazy), import.meta.url
// the script's own URL, and the file is one function expression, CommonJS's module wrapper, that the launcher
// compiles with vm.Script (the only way to hand V8 a code cache on Node 20). @peculiar/x509 and the packages under
// it are bundled in: a fresh data directory's start loads them (~150 ms through node_modules, most of it resolving
// and compiling some 40 files), and bundled they are compiled from the cache too; so is prom-client (the API
// server's metrics, loaded by every start).
const cjs = await build({
  ...common,
  entryPoints: ['src/cli/main-cached.ts'],
  write: false,
  outfile: 'dist/bundle/main.cjs',
  format: 'cjs',
  supported: { 'dynamic-import': false },
  define: { 'import.meta.url': '__k8tsImportMetaUrl' },
  plugins: [packages(/^(@peculiar\/|asn1js$|pvtsutils$|pvutils$|tslib$|tsyringe$|reflect-metadata$|prom-client(\/|$)|tdigest$|bintrees$)/)],
});
if (cjs.warnings.length) throw new Error('the CommonJS build must build without warnings (import.meta left in it?)');
const body = asciiOnly(cjs.outputFiles[0].text.replace(/^#!.*\n/, ''));
const script = `(function (exports, require, module, __filename, __dirname) {"use strict"; const __k8tsImportMetaUrl = require("node:url").pathToFileURL(__filename).href;\n${body}\n})\n`;
writeFileSync('dist/bundle/main.cjs', script);
const cjsHash = createHash('sha256').update(script).digest('hex');

await build({
  ...common,
  entryPoints: { main: 'src/cli/launcher.ts' },
  outdir: 'dist/bundle',
  format: 'esm',
  define: { K8TS_CJS_HASH: JSON.stringify(cjsHash) },
});

// The CRI client's protocol, read at run time (src/kubelet/runtime/cri/client.ts
// looks beside itself first), so the packed package needs no sources.
copyFileSync('src/kubelet/runtime/cri/api.proto', 'dist/bundle/api.proto');

await trainCodeCache();
