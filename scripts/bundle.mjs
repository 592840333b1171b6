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
import { build } from 'esbuild';
import { copyFileSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

// src/api/apiextensions/cel-runtime-cost.ts meters CEL by patching @bufbuild/cel's Planner, which
// the package does not export: it imports planner.js by URL beside the package's entry. Bundled,
// that URL would be node_modules' copy, not the bundle's, and the patch would miss; so the bundle
// imports the same file by path, which esbuild resolves to the bundled module itself.
const celPlanner = join(dirname(createRequire(import.meta.url).resolve('@bufbuild/cel')), '..', 'esm', 'planner.js');
const plannerImport = 'await import(plannerUrl.href)';

rmSync('dist/bundle', { recursive: true, force: true });
await build({
  entryPoints: ['src/cli/main.ts', 'src/cli/control-loops-worker.ts', 'src/apiserver/heavy/worker.ts', 'src/storage/sqlite/checkpoint-worker.ts'],
  outdir: 'dist/bundle',
  entryNames: '[name]',
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  plugins: [{
    name: 'packages-external-but-bufbuild',
    setup(b) {
      b.onResolve({ filter: /^[^./]/ }, (args) => (args.path.startsWith('@bufbuild/') ? undefined : { path: args.path, external: true }));
      b.onLoad({ filter: /[\\/]apiextensions[\\/]cel-runtime-cost\.ts$/ }, (args) => {
        const text = readFileSync(args.path, 'utf8');
        if (!text.includes(plannerImport)) throw new Error(`${args.path}: "${plannerImport}" not found; update scripts/bundle.mjs`);
        return { contents: text.replace(plannerImport, `await import(${JSON.stringify(celPlanner)})`), loader: 'ts', resolveDir: dirname(args.path) };
      });
    },
  }],
  logLevel: 'warning',
});
// The CRI client's protocol, read at run time (src/kubelet/runtime/cri/client.ts
// looks beside itself first), so the packed package needs no sources.
copyFileSync('src/kubelet/runtime/cri/api.proto', 'dist/bundle/api.proto');
