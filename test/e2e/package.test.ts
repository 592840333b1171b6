/**
 * The package as a user installs it (issue "A newcomer's k8ts": Package):
 * `npm pack` holds the built CLI and its run-time files, no tests or
 * sources; `npm install -g` of that tarball gives a `k8ts` that a non-root
 * user runs in an empty directory: `k8ts up` reaches /readyz and the real
 * kubectl lists its nodes with the kubeconfig it wrote.
 *
 * The install reads the registry through npm's cache (`--prefer-offline`:
 * `npm ci` filled it) and builds better-sqlite3's native module, the one
 * install script k8ts needs (npm 11 runs none unless allowed).
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { eventually, repoRoot } from './harness.js';
import { freePort } from './kubeadm-node.js';

const run = promisify(execFile);

describe('npm pack, npm install -g, k8ts up as a non-root user', () => {
  const dir = mkdtempSync(join(tmpdir(), 'k8ts-package-'));
  const prefix = join(dir, 'global');
  let tarball: string;
  let up: ChildProcess | undefined;

  before(async () => {
    chmodSync(dir, 0o755);
    // --ignore-scripts: pack the tree `npm run build` made; prepare would rebuild dist under the running suite.
    const { stdout } = await run('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', dir], { cwd: repoRoot, maxBuffer: 16 << 20 });
    tarball = join(dir, (JSON.parse(stdout) as { filename: string }[])[0]!.filename);
  });

  after(() => {
    up?.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  });

  it('the tarball holds the bundle and its run-time files, no tests or sources', async () => {
    const { stdout } = await run('tar', ['tzf', tarball], { maxBuffer: 16 << 20 });
    const files = stdout.split('\n').filter(Boolean).map((f) => f.replace(/^package\//, ''));
    for (const need of ['package.json', 'README.md', 'dist/bundle/main.js', 'dist/bundle/main.cjs', 'dist/bundle/cli.js', 'dist/bundle/worker.js', 'dist/bundle/control-loops-worker.js', 'dist/bundle/api.proto', 'dist/web/app.js', 'dist/web/index.html', 'dist/web/style.css', 'generated/openapi-defs.json']) {
      assert.ok(files.includes(need), `${need} missing from the package`);
    }
    const unwanted = files.filter((f) => /^(test|src|bench|dist\/test|dist\/src)\//.test(f) || /\.ts$/.test(f));
    assert.deepEqual(unwanted, []);
  });

  it('installs globally and runs `k8ts up` as nobody in an empty directory', async () => {
    await run('npm', ['install', '-g', '--prefix', prefix, '--prefer-offline', '--no-audit', '--no-fund', '--allow-scripts=better-sqlite3', tarball],
      // build_from_source: prebuild-install would first try GitHub for a prebuilt binary, which these machines cannot reach.
      // JOBS=max: node-gyp compiles SQLite and the addon side by side (on a loaded 2-core machine the
      // compile alone took 17 min one at a time, past the former 15-min guard; a quarter less side by side).
      { cwd: dir, timeout: 40 * 60_000, maxBuffer: 64 << 20, env: { ...process.env, npm_config_build_from_source: 'true', JOBS: 'max' } });
    const bin = join(prefix, 'bin', 'k8ts');
    assert.ok(existsSync(bin), 'npm install -g made no k8ts on the PATH');

    const work = mkdtempSync(join(dir, 'empty-'));
    chmodSync(work, 0o777);
    const port = await freePort();
    up = spawn('setpriv', ['--reuid=nobody', '--regid=nogroup', '--clear-groups', 'env', `HOME=${work}`, `PATH=${join(prefix, 'bin')}:/usr/bin:/bin`, 'k8ts', 'up', '--port', String(port)],
      { cwd: work, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    up.stdout!.on('data', (b: Buffer) => { output += b; });
    up.stderr!.on('data', (b: Buffer) => { output += b; });
    const kubeconfig = join(work, '.k8ts', 'admin.conf');
    // curl, as the hardening tests use: the server's certificate is the cluster CA's, not a public one.
    await eventually(async () => {
      if (up!.exitCode !== null) assert.fail(`k8ts up exited ${up!.exitCode}: ${output}`);
      return (await run('curl', ['-sk', `https://127.0.0.1:${port}/readyz`]).catch(() => ({ stdout: '' }))).stdout === 'ok' || undefined;
    }, 60_000, '/readyz of the installed k8ts');
    assert.ok(readdirSync(join(work, '.k8ts')).length > 0, 'no data directory in the working directory');
    const nodes = await eventually(async () => {
      const { stdout } = await run('kubectl', ['--kubeconfig', kubeconfig, 'get', 'nodes', '-o', 'name']).catch(() => ({ stdout: '' }));
      return stdout.trim().split('\n').filter(Boolean).length >= 2 ? stdout : undefined;
    }, 60_000, 'nodes listed by kubectl');
    assert.match(nodes, /^node\//m);
    up.kill('SIGTERM');
    const code = await new Promise<number | null>((resolve) => up!.once('exit', (c) => resolve(c)));
    assert.equal(code, 0, output);
    up = undefined;
  });
});
