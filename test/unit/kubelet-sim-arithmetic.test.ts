/**
 * `$((...))` in the simulated shell: values and errors compared with the
 * machine's busybox ash, dash and bash where they are installed (the
 * recorded texts otherwise), and the Logging Architecture page's counter.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { parseExecLine, runProgram, type ShellContext } from '../../src/kubelet/runtime/simulated/shell.js';
import { evaluateArithmetic } from '../../src/kubelet/runtime/simulated/arithmetic.js';
import type { ShellDialect } from '../../src/kubelet/runtime/simulated/shell-dialect.js';

const shells: Record<ShellDialect, { bin: string[]; argv0: string; image: string }> = {
  ash: { bin: ['/usr/bin/busybox'], argv0: 'sh', image: 'busybox' },
  dash: { bin: ['/usr/bin/dash'], argv0: 'sh', image: 'nginx' },
  bash: { bin: ['/usr/bin/bash'], argv0: 'bash', image: 'nginx' },
};

async function simulated(d: ShellDialect, script: string) {
  let stdout = '';
  let stderr = '';
  const parsed = parseExecLine(script);
  assert.ok('program' in parsed, script);
  const ctx: ShellContext = {
    env: new Map(), hostname: 'h', image: shells[d].image, readFile: () => undefined, listDir: () => undefined, now: () => new Date(0),
    sleep: async () => true, write: (s, t) => { if (s === 'stdout') stdout += t; else stderr += t; },
    dialect: { name: d, argv0: shells[d].argv0, interactive: false, line: () => 1 },
  };
  const code = await runProgram(parsed.program, ctx);
  return { stdout, stderr, code };
}

const scripts = [
  'i=5; echo $((i*2+010)) $((0x10)) $((i>3?1:0)) $((i+=1)) $i $((-7/2)) $((-7%2)) $(( 2 << 3 ))',
  'a=3; b=4; echo "$((a*a + b*b))" $(( (a+b) * 2 )) $((!a)) $((~a)) $((a==3 && b!=4)) $((a||0)) $((a&6)) $((a|4)) $((a^1))',
  'n=0; for x in a b c; do n=$((n+1)); done; echo $n; echo $((unset_var + 1)) $((n-=1)),$n',
  'echo before; echo $((1/0)); echo after',
  'echo $((1+)); echo not reached',
];

describe('simulated shell: arithmetic expansion', () => {
  for (const d of ['ash', 'dash', 'bash'] as const) {
    it(`${d}: what the machine's ${d} prints, and its status`, async () => {
      // The comparison needs the real shell: npm test's set-up installs busybox-static; dash and bash are Debian's own.
      assert.ok(existsSync(shells[d].bin[0]!), `${shells[d].bin[0]} is not installed (apt-get install busybox-static dash bash)`);
      for (const script of scripts) {
        const [bin, ...pre] = shells[d].bin;
        const real = spawnSync(bin!, [...pre, '-c', script], { encoding: 'utf8', argv0: shells[d].argv0 });
        assert.deepEqual(await simulated(d, script), { stdout: real.stdout, stderr: real.stderr, code: real.status }, script);
      }
    });
  }

  it('the recorded texts of dash (nginx\'s sh), whatever the machine has', async () => {
    assert.deepEqual(await simulated('dash', scripts[3]!), { stdout: 'before\n', stderr: 'sh: 1: arithmetic expression: division by zero: "1/0"\n', code: 2 });
    assert.deepEqual(await simulated('ash', scripts[4]!), { stdout: '', stderr: 'sh: arithmetic syntax error\n', code: 2 });
    assert.deepEqual(await simulated('bash', scripts[3]!), { stdout: 'before\n', stderr: 'bash: line 1: 1/0: division by 0 (error token is "0")\n', code: 1 });
  });

  it('evaluates by precedence, reads variables as expressions, and assigns', () => {
    const env = new Map([['x', '2'], ['e', 'x*3']]);
    assert.equal(evaluateArithmetic('1 + 2 * 3 - 4 / 2', env), 5);
    assert.equal(evaluateArithmetic('e + 1', env), 7);
    assert.equal(evaluateArithmetic('x <<= 2', env), 8);
    assert.equal(env.get('x'), '8');
    assert.equal(evaluateArithmetic('$x % 3', env), 2);
    assert.throws(() => evaluateArithmetic('(1', env), /syntax error/);
  });
});
