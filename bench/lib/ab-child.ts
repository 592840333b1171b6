/**
 * One run of a build's own benchmark script in a child process, for the interleaved A/B drivers
 * (daemonset-ab.ts, scheduler-ab.ts): `dist/bench/SCRIPT` of the build at `root`, run from that
 * root, so its server, its clients and the benchmark's code are all that build's. Its stdout is
 * passed through, each line tagged with the build's label, and returned whole for the caller to
 * read its result lines; stderr goes to ours.
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';

export interface Build { label: string; root: string }

export function runBenchChild(build: Build, script: string, args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [join(build.root, 'dist', 'bench', script), ...args], { cwd: build.root, stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (s: string) => {
      out += s;
      process.stdout.write(s.replace(/^(?=.)/gm, `  [${build.label}] `));
    });
    child.on('error', reject);
    child.on('exit', (code) => (code === 0 ? resolve(out) : reject(new Error(`${build.label}: bench exited ${code}`))));
  });
}
