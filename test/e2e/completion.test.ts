/**
 * `k8ts completion bash|zsh` (cobra's completion command): the script is
 * sourced by a real bash and asked for completions as bash's programmable
 * completion asks (COMP_WORDS, COMP_CWORD, then the function), so what a
 * user gets on Tab is what is asserted.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { cliPath } from './harness.js';

const run = promisify(execFile);

async function complete(words: string[]): Promise<string[]> {
  const script = `source <(node ${JSON.stringify(cliPath)} completion bash)
COMP_WORDS=(${words.map((w) => `'${w}'`).join(' ')}); COMP_CWORD=${words.length - 1}
_k8ts; printf '%s\\n' "\${COMPREPLY[@]}"`;
  const { stdout } = await run('bash', ['-c', script]);
  return stdout.split('\n').filter(Boolean);
}

describe('k8ts completion', () => {
  it('bash: completes command names, then the flags of the command typed', async () => {
    assert.deepEqual(await complete(['k8ts', 'to']), ['token']);
    assert.ok((await complete(['k8ts', ''])).includes('up'));
    assert.deepEqual(await complete(['k8ts', 'up', '--data']), ['--data-dir']);
    assert.deepEqual(await complete(['k8ts', 'join', '--discovery-token-ca']), ['--discovery-token-ca-cert-hash']);
    // Flags of one command are not offered for another.
    assert.deepEqual(await complete(['k8ts', 'up', '--discovery']), []);
    assert.deepEqual(await complete(['k8ts', 'version', '--']), ['--help']);
  });

  it('zsh: the same completion through bashcompinit, loadable as a #compdef file', async () => {
    const { stdout } = await run('node', [cliPath, 'completion', 'zsh']);
    assert.match(stdout, /^#compdef k8ts\n/);
    assert.match(stdout, /bashcompinit/);
    assert.match(stdout, /complete -F _k8ts k8ts/);
  });

  it('errors as kubectl completion words them', async () => {
    const fail = async (args: string[]) => run('node', [cliPath, 'completion', ...args]).then(() => assert.fail('exit 0'), (e: { code: number; stderr: string }) => e);
    const none = await fail([]);
    assert.equal(none.code, 1);
    assert.equal(none.stderr, "Error: Shell not specified.\nSee 'k8ts completion -h' for help and examples\n");
    assert.equal((await fail(['fish'])).stderr, "Error: Unsupported shell type \"fish\".\nSee 'k8ts completion -h' for help and examples\n");
    assert.equal((await fail(['bash', 'zsh'])).stderr, "error: Too many arguments. Expected only the shell type.\nSee 'k8ts completion -h' for help and examples\n");
  });
});
