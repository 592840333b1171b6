// The CLI as users run it: k8ts's compiled modules (dist/src) bundled by
// esbuild into dist/bundle, one file per entry plus shared chunks, so that
// start-up reads a few files instead of ~700 (module loading was most of
// `k8ts up`'s start-up; see bench/RESULTS.md "Start-up"). Packages stay in
// node_modules (better-sqlite3 is native; the others load lazily already).
// The worker threads are entries too: their code finds them beside itself
// (`new URL('./worker.js', import.meta.url)`), in either layout.
import { build } from 'esbuild';
import { copyFileSync, rmSync } from 'node:fs';

rmSync('dist/bundle', { recursive: true, force: true });
await build({
  entryPoints: ['dist/src/cli/main.js', 'dist/src/cli/control-loops-worker.js', 'dist/src/apiserver/heavy/worker.js'],
  outdir: 'dist/bundle',
  entryNames: '[name]',
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  packages: 'external',
  logLevel: 'warning',
});
// The CRI client's protocol, read at run time (src/kubelet/runtime/cri/client.ts
// looks beside itself first), so the packed package needs no sources.
copyFileSync('src/kubelet/runtime/cri/api.proto', 'dist/bundle/api.proto');
