// The training starts behind the launcher's code cache (src/cli/launcher.ts): `k8ts up` and
// `k8ts server` started once each on a fresh data directory (so creating the PKI, @peculiar/x509
// included, is in the cache too), until the launcher has written its cache into dist/bundle/code-cache
// (it does so when the API server is first ready), then stopped; then started again on that directory
// with the cache, which the launcher saves once more (K8TS_CODE_CACHE_RETRAIN) when that restart is
// ready: a restart runs code a fresh start does not (the stored objects read back and compared rather
// than created), and the cache then holds both. Run at the end of scripts/bundle.mjs, so `npm install`'s
// prepare and every build leave a cache beside the bundle: a user's very first start has it. A training
// start that fails costs only the cache: the first real start writes one instead.
import { spawn } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const bundleDir = resolve('dist/bundle');
const cacheDir = join(bundleDir, 'code-cache');

const freePort = () => new Promise((done, fail) => {
  const s = createServer();
  s.once('error', fail);
  s.listen(0, '127.0.0.1', () => { const { port } = s.address(); s.close(() => done(port)); });
});
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
/** The command's cache file and its inode (the launcher writes a new file and renames it over the old), or undefined. */
function cacheOf(command) {
  if (!existsSync(cacheDir)) return undefined;
  const file = readdirSync(cacheDir).find((f) => f.startsWith(`${command}-`) && f.endsWith('.v8cache'));
  return file && `${file}:${statSync(join(cacheDir, file)).ino}`;
}

/** One start of `command` on dataDir, stopped once the launcher has written a cache other than `before`. */
async function startUntilSaved(command, dataDir, before, env) {
  // The environment's node options stay: the cache is keyed by them, as a user's start with the same ones.
  const proc = spawn(process.execPath, [join(bundleDir, 'main.js'), command, '--data-dir', dataDir, '--port', String(await freePort())], {
    stdio: ['ignore', 'ignore', 'pipe'], env: { ...process.env, K8TS_LOG_LEVEL: 'error', ...env },
  });
  let stderr = '';
  proc.stderr.on('data', (d) => { stderr = (stderr + d).slice(-4000); });
  const exited = new Promise((r) => proc.once('exit', r));
  try {
    for (const started = Date.now(); [undefined, before].includes(cacheOf(command)); await sleep(20)) {
      if (proc.exitCode !== null || proc.signalCode !== null) throw new Error(`exited (${proc.exitCode ?? proc.signalCode}): ${stderr}`);
      if (Date.now() - started > 120_000) throw new Error(`no cache after 120 s: ${stderr}`);
    }
  } finally {
    proc.kill('SIGTERM');
    await Promise.race([exited, sleep(10_000)]);
    if (proc.exitCode === null && proc.signalCode === null) { proc.kill('SIGKILL'); await exited; }
  }
}

/** A fresh start writes the cache; a restart on its data directory writes it again with what a restart runs besides. */
async function trainOne(command) {
  const dataDir = mkdtempSync(join(tmpdir(), 'k8ts-train-'));
  try {
    await startUntilSaved(command, dataDir, undefined, {});
    try {
      await startUntilSaved(command, dataDir, cacheOf(command), { K8TS_CODE_CACHE_RETRAIN: '1' });
    } catch (err) {
      console.warn(`train-code-cache: \`k8ts ${command}\`'s cache holds a fresh start's functions only (its training restart failed): ${err.message}`);
    }
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}

export async function trainCodeCache() {
  // Made here, readable by all: the launcher writes with the umask of `k8ts up` (077).
  mkdirSync(cacheDir, { recursive: true });
  chmodSync(cacheDir, 0o755);
  for (const command of ['up', 'server']) {
    try {
      await trainOne(command);
    } catch (err) {
      console.warn(`train-code-cache: no code cache for \`k8ts ${command}\` (its first start will write one): ${err.message}`);
    }
  }
}
