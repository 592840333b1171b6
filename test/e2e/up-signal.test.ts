/**
 * `k8ts up` stopped by SIGTERM while it is still adding its simulated nodes
 * (what a script does that waits for the first node and then stops the
 * cluster): the process must exit 0, not keep running because a node that
 * finished registering after the stop left its kubelet port and timers open,
 * nor because a watch or a retry timer started after the shutdown ran.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cliPath, eventually } from './harness.js';
import { freePort } from './free-port.js';
import { kubectl } from './kubeadm-node.js';

describe('k8ts up and SIGTERM while nodes register', { timeout: 240_000 }, () => {
  for (const nodesSeen of [1, 2]) {
    it(`exits 0 when stopped as soon as ${nodesSeen} node(s) are listed`, async () => {
      const dir = mkdtempSync(join(tmpdir(), 'k8ts-up-signal-'));
      const port = await freePort();
      const up = spawn(process.execPath, [cliPath, 'up', '--data-dir', join(dir, 'd'), '--port', String(port)], { stdio: ['ignore', 'pipe', 'pipe'] });
      let output = '';
      up.stdout!.on('data', (b: Buffer) => { output += b; });
      up.stderr!.on('data', (b: Buffer) => { output += b; });
      const exited = new Promise<number | null>((resolve) => up.once('exit', (code) => resolve(code)));
      try {
        await eventually(async () => {
          if (up.exitCode !== null) assert.fail(`k8ts up exited ${up.exitCode}: ${output}`);
          const r = await kubectl(join(dir, 'd', 'admin.conf'), ['--request-timeout=2s', 'get', 'nodes', '-o', 'name']).catch(() => ({ stdout: '' }));
          return r.stdout.trim().split('\n').filter(Boolean).length >= nodesSeen || undefined;
        }, 60_000, `${nodesSeen} node(s) listed`);
        up.kill('SIGTERM');
        const code = await Promise.race([exited, new Promise<'hung'>((r) => setTimeout(() => r('hung'), 60_000))]);
        assert.equal(code, 0, `k8ts up after SIGTERM: ${code}\n${output.slice(-3000)}`);
        // It exits anyway 2 s after its shutdown (shutdown-signal.ts), but nothing may be left running to make it.
        assert.doesNotMatch(output, /handles are still open/, output.slice(-3000));
      } finally {
        if (up.exitCode === null) up.kill('SIGKILL');
        rmSync(dir, { recursive: true, force: true });
      }
    });
  }
});
