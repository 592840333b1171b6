/**
 * Every benchmark entry point (bench/*.ts, built) answers `--help` and an
 * unknown flag without running: exit 0 with a `usage:` line, or exit 2 with
 * the error and the usage on stderr, and in both cases no process started,
 * no file written or directory made (strace of the whole run), nothing left
 * in its working directory, HOME or TMPDIR (a fresh temp dir), and
 * bench/RESULTS.md unchanged. bench/kubeadm.ts once ran in full on `--help`
 * and rewrote its section with that command.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const repoRoot = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
const entryPoints = readdirSync(join(repoRoot, 'bench')).filter((f) => f.endsWith('.ts')).map((f) => f.replace(/\.ts$/, '.js')).sort();
const results = join(repoRoot, 'bench', 'RESULTS.md');
const digest = () => createHash('sha256').update(readFileSync(results)).digest('hex');

interface Run { code: number | null; stdout: string; stderr: string; effects: string[]; left: string[] }

/** Runs one entry point under strace in a fresh directory; `effects` are its execs and writes. */
function run(entry: string, flag: string): Promise<Run> {
  const dir = mkdtempSync(join(tmpdir(), 'k8ts-bench-help-'));
  const home = join(dir, 'home');
  const trace = join(dir, 'trace');
  return new Promise((resolve, reject) => {
    // The traced run's cwd, HOME and TMPDIR: `home`, empty, beside the trace file.
    execFile('sh', ['-c', 'mkdir "$1" && cd "$1" && exec strace -f -qq -o "$2" -e trace=execve,execveat,openat,open,creat,mkdir,mkdirat,unlink,unlinkat,rename,renameat,renameat2 -- "$3" "$4" "$5"',
      'sh', home, trace, process.execPath, join(repoRoot, 'dist', 'bench', entry), flag],
    { env: { ...process.env, HOME: home, TMPDIR: home }, timeout: 60_000, killSignal: 'SIGKILL' }, (err, stdout, stderr) => {
      if (err && typeof err.code !== 'number') return reject(err);
      try {
        // The first line is strace's exec of the benchmark itself; any other exec is a process it started.
        const lines = readFileSync(trace, 'utf8').split('\n').filter(Boolean);
        const effects = lines.slice(1).filter((l) => /\bexecve(at)?\(|O_CREAT|O_WRONLY|O_RDWR|\bmkdir|\bunlink|\brename|\bcreat\(/.test(l));
        if (!/\bexecve\(/.test(lines[0] ?? '')) effects.unshift(`trace starts with ${lines[0]}`);
        resolve({ code: err ? (err.code as number) : 0, stdout, stderr, effects, left: readdirSync(home) });
      } catch (e) { reject(e); } finally { rmSync(dir, { recursive: true, force: true }); }
    });
  });
}

test('every benchmark entry point answers --help and an unknown flag without running', { timeout: 30 * 60_000 }, async () => {
  assert.ok(entryPoints.length > 50, `found ${entryPoints.length} entry points`);
  const before = digest();
  const failures: string[] = [];
  const check = async (entry: string) => {
    const help = await run(entry, '--help');
    const usage = `usage: node dist/bench/${entry} [options]`;
    if (help.code !== 0) failures.push(`${entry} --help: exit ${help.code}: ${help.stderr.slice(0, 300)}`);
    if (!help.stdout.startsWith(usage)) failures.push(`${entry} --help: stdout does not start with "${usage}": ${help.stdout.slice(0, 200)}`);
    const bad = await run(entry, '--no-such-flag');
    if (bad.code !== 2) failures.push(`${entry} --no-such-flag: exit ${bad.code}`);
    if (!/^error: Unknown option '--no-such-flag'/.test(bad.stderr) || !bad.stderr.includes(usage)) failures.push(`${entry} --no-such-flag: stderr ${bad.stderr.slice(0, 300)}`);
    if (bad.stdout !== '') failures.push(`${entry} --no-such-flag: wrote to stdout: ${bad.stdout.slice(0, 200)}`);
    for (const [flag, r] of [['--help', help], ['--no-such-flag', bad]] as const) {
      if (r.effects.length) failures.push(`${entry} ${flag} started a process or wrote: ${r.effects.slice(0, 3).join(' | ')}`);
      if (r.left.length) failures.push(`${entry} ${flag} left ${r.left.join(', ')} in its cwd/HOME/TMPDIR`);
    }
  };
  // Two at a time: the machine has two cores.
  const queue = [...entryPoints];
  await Promise.all([0, 1].map(async () => { for (let e = queue.shift(); e; e = queue.shift()) await check(e); }));
  assert.equal(digest(), before, 'bench/RESULTS.md changed');
  assert.deepEqual(failures, []);
});
