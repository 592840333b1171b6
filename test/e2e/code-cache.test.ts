/**
 * The launcher's V8 code cache (src/cli/launcher.ts, docs/design-notes.md
 * "Start-up, fifth pass"): `k8ts server` started from a copy of the bundle
 * with no cache writes one once the API server is ready, a cache V8 rejects is
 * replaced by the next start, the other commands run the ES module bundle
 * and write none, and a cache that cannot go beside the bundle goes to the
 * user's cache directory. A start whose cache V8 accepted leaves it as it is, unless
 * K8TS_CODE_CACHE_RETRAIN asks it to save it again (the build's training restart,
 * scripts/train-code-cache.mjs). A copy, so the cache beside the build under test stays the
 * one its build made.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFile, spawn } from 'node:child_process';
import { copyFileSync, cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { eventually, repoRoot } from './harness.js';
import { v8FlagsFor } from '../../src/cli/v8-flags.js';

const run = promisify(execFile);

describe('k8ts server from the launcher: its V8 code cache', () => {
  const root = mkdtempSync(join(tmpdir(), 'k8ts-code-cache-'));
  const copy = join(root, 'dist', 'bundle');
  const cacheDir = join(copy, 'code-cache');
  // The user's cache directory of the started commands: the test's own, never the runner's ~/.cache.
  const env = { ...process.env, XDG_CACHE_HOME: join(root, 'xdg-cache') };
  const caches = () => (existsSync(cacheDir) ? readdirSync(cacheDir).filter((f) => f.endsWith('.v8cache')) : []);

  before(() => {
    const bundle = join(repoRoot, 'dist', 'bundle');
    assert.ok(existsSync(join(bundle, 'main.cjs')), 'no dist/bundle/main.cjs: run `node scripts/bundle.mjs` (part of npm run build)');
    cpSync(bundle, copy, { recursive: true });
    rmSync(cacheDir, { recursive: true, force: true });
    // What the bundle finds above itself in an installation: its packages, the OpenAPI definitions, package.json.
    symlinkSync(join(repoRoot, 'node_modules'), join(root, 'node_modules'));
    symlinkSync(join(repoRoot, 'generated'), join(root, 'generated'));
    copyFileSync(join(repoRoot, 'package.json'), join(root, 'package.json'));
  });
  after(() => rmSync(root, { recursive: true, force: true }));

  /** Starts `k8ts server` on a data directory (a new one unless given), waits for its first readiness, and returns how to stop it. */
  async function startServer(moreEnv: Record<string, string> = {}, dataDir = mkdtempSync(join(root, 'data-'))): Promise<() => Promise<void>> {
    const proc = spawn(process.execPath, [join(copy, 'main.js'), 'server', '--data-dir', dataDir, '--port', '0', '--controllers', 'none'], { stdio: ['ignore', 'ignore', 'pipe'], env: { ...env, ...moreEnv } });
    let log = '';
    await new Promise<void>((resolve, reject) => {
      proc.stderr!.on('data', (d: Buffer) => {
        log += d.toString();
        if (log.includes('"msg":"API server ready"')) resolve();
      });
      proc.once('exit', (code) => reject(new Error(`k8ts server exited with ${code} before ready: ${log.slice(-2000)}`)));
    });
    return async () => {
      const exited = new Promise((r) => proc.once('exit', r));
      if (proc.exitCode === null && proc.signalCode === null) proc.kill('SIGTERM');
      await exited;
    };
  }

  it('with no cache, the first start writes one beside the bundle once ready, named by command, build, node and options', async () => {
    const stop = await startServer();
    try {
      const [file] = await eventually(async () => (caches().length ? caches() : undefined), undefined, 'a code cache written');
      assert.match(file!, new RegExp(`^server-[0-9a-f]{16}-${process.version.replace(/\./g, '\\.')}-${process.arch}-[0-9a-z]+\\.v8cache$`));
      assert.deepEqual(caches(), [file]);
    } finally {
      await stop();
    }
  });

  it('a restart with K8TS_CODE_CACHE_RETRAIN saves the accepted cache again, with what the restart ran besides, and V8 accepts it', async () => {
    const [file] = caches();
    const path = join(cacheDir, file!);
    const fresh = statSync(path);
    const dataDir = mkdtempSync(join(root, 'data-'));
    await (await startServer({}, dataDir))();
    // The restart on the same data directory, as the build's training makes it: a new file renamed over the old.
    const stop = await startServer({ K8TS_CODE_CACHE_RETRAIN: '1' }, dataDir);
    try {
      await eventually(async () => statSync(path).ino !== fresh.ino, undefined, 'the accepted cache saved again');
    } finally {
      await stop();
    }
    assert.ok(statSync(path).size > fresh.size, `the fresh start's functions and the restart's: ${statSync(path).size} bytes against ${fresh.size}`);
    // V8 checks a cache against the script's source and the flags in force: compiled as the launcher does.
    const check = `const { Script } = require('node:vm'); const { readFileSync } = require('node:fs');
      const s = new Script(readFileSync(process.argv[1], 'latin1'), { filename: process.argv[1], cachedData: readFileSync(process.argv[2]) });
      process.stdout.write(String(s.cachedDataRejected));`;
    const { stdout } = await run(process.execPath, [...v8FlagsFor('server')!.split(' '), '-e', check, join(copy, 'main.cjs'), path], { env });
    assert.equal(stdout, 'false', 'V8 accepts the saved-again cache');
  });

  it('a cache V8 rejects is replaced by the next start', async () => {
    const [file] = caches();
    const garbage = Buffer.alloc(4096, 7);
    writeFileSync(join(cacheDir, file!), garbage);
    const stop = await startServer();
    try {
      await eventually(async () => !readFileSync(join(cacheDir, file!)).equals(garbage), undefined, 'the rejected cache rewritten');
      assert.ok(readFileSync(join(cacheDir, file!)).length > garbage.length);
      assert.deepEqual(caches(), [file]);
    } finally {
      await stop();
    }
  });

  it('a start with other V8 flags (K8TS_HEAP_GROWING_PERCENT) keeps its own cache beside the default one', async () => {
    const [file] = caches();
    const before = readFileSync(join(cacheDir, file!));
    const stop = await startServer({ K8TS_HEAP_GROWING_PERCENT: '50' });
    try {
      const other = await eventually(async () => caches().find((f) => f !== file), undefined, 'a second code cache written');
      assert.match(other!, /^server-[0-9a-f]{16}-.*-[0-9a-f]{8}\.v8cache$/, 'named by its options');
      assert.ok(readFileSync(join(cacheDir, file!)).equals(before), 'the default start\'s cache left as it was');
    } finally {
      await stop();
    }
    for (const f of caches()) if (f !== file) rmSync(join(cacheDir, f));
  });

  it('other commands and --help run the ES module bundle and write no cache', async () => {
    const version = await run(process.execPath, [join(copy, 'main.js'), 'version'], { env });
    assert.match(version.stdout, /^k8ts \S+ \(Kubernetes API v1\.\d+/);
    const help = await run(process.execPath, [join(copy, 'main.js'), 'server', '--help'], { env });
    assert.match(help.stdout, /--data-dir/);
    assert.equal(caches().filter((f) => !f.startsWith('server-')).length, 0);
    mkdirSync(env.XDG_CACHE_HOME, { recursive: true });
    assert.deepEqual(readdirSync(env.XDG_CACHE_HOME), [], 'nothing in the user cache directory while the bundle\'s is writable');
  });

  it('where nothing can be written beside the bundle, the cache goes to the user\'s cache directory', async () => {
    // A file where the directory would be: no user, root included, can write a cache there.
    rmSync(cacheDir, { recursive: true, force: true });
    writeFileSync(cacheDir, '');
    const userCaches = join(env.XDG_CACHE_HOME, 'k8ts', 'code-cache');
    const stop = await startServer();
    try {
      const [file] = await eventually(async () => (existsSync(userCaches) && readdirSync(userCaches).length ? readdirSync(userCaches) : undefined), undefined, 'a code cache in the user cache directory');
      assert.match(file!, /^server-.*\.v8cache$/);
    } finally {
      await stop();
    }
  });
});
