/**
 * docs/getting-started.md cannot rot: every `sh` block in it runs, in order,
 * with bash (`-e -o pipefail`) in the repository's root, against a fresh
 * `k8ts up` (what `npm start` runs) with the real kubectl, and must exit 0.
 * `console` blocks are shown only (installing, root, or running for ever).
 */
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { repoRoot, eventually } from './harness.js';
import { startUp, type UpCluster } from './up-cluster.js';

/** The fenced blocks of a Markdown text whose info string is exactly `sh`. */
export function shellBlocks(markdown: string): string[] {
  const blocks: string[] = [];
  const fence = /^```sh\n([\s\S]*?)^```$/gm;
  for (let m = fence.exec(markdown); m; m = fence.exec(markdown)) blocks.push(m[1]!);
  return blocks;
}

function bash(script: string, kubeconfig: string): Promise<{ code: number; out: string }> {
  return new Promise((resolve) => {
    execFile('bash', ['-e', '-o', 'pipefail', '-c', script], {
      cwd: repoRoot, timeout: 300_000, maxBuffer: 16 * 1024 * 1024, env: { ...process.env, KUBECONFIG: kubeconfig },
    }, (err, stdout, stderr) => resolve({ code: err ? (typeof (err as { code?: unknown }).code === 'number' ? (err as { code: number }).code : 1) : 0, out: stdout + stderr }));
  });
}

const guide = readFileSync(join(repoRoot, 'docs', 'getting-started.md'), 'utf8');
const blocks = shellBlocks(guide);

describe('docs/getting-started.md on npm start', () => {
  let up: UpCluster;
  before(async () => {
    up = await startUp('k8ts-guide-');
    // The guide is read by a person who waits for the nodes; the test waits the same way.
    await eventually(async () => {
      const r = await up.kubectl(['get', 'nodes', '--no-headers'], undefined, true);
      return r.stdout.split('\n').filter((l) => / Ready /.test(l)).length === 3;
    }, 60_000, 'three Ready nodes');
  });
  after(async () => { await up?.close(); });

  test('the guide has shell blocks to run', () => {
    assert.ok(blocks.length >= 5, `only ${blocks.length} sh blocks found`);
  });

  blocks.forEach((block, i) => {
    test(`block ${i + 1}: ${block.split('\n')[0]}`, async () => {
      const { code, out } = await bash(block, up.kubeconfig);
      assert.equal(code, 0, `the block exited ${code}:\n${block}\n--- output ---\n${out}`);
    });
  });
});
