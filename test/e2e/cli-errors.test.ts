/**
 * k8ts's command line answers bad flags as kubeadm and cobra do. The first
 * case is the seed notes' own typo (`--discovery-token-cash`), pasted as the
 * notes have it; kubeadm 1.32 prints `unknown flag: --discovery-token-cash`
 * and its stack-trace hint, and exits 1.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { cliPath } from './harness.js';

function k8ts(...args: string[]): { code: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [cliPath, ...args], { encoding: 'utf8', timeout: 30_000 });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe('flag errors in upstream\'s words', () => {
  test('the seed\'s join with --discovery-token-cash: kubeadm\'s unknown flag, nothing done', () => {
    const r = k8ts('join', '211.183.3.10:6443', '--token', 'avm5pd.fx2h6gdxbo14sln4', '--discovery-token-cash',
      'sha256:2cf79d30deb17c3d128127dd8fe73796225dc60a462b9b5bb7cc324ed59b22f8');
    assert.equal(r.code, 1);
    assert.equal(r.stderr, 'unknown flag: --discovery-token-cash\nTo see the stack trace of this error execute with --v=5 or higher\n');
    assert.equal(r.stdout, '');
  });

  test('kubeadm verbs: a flag without its value, an unknown subcommand', () => {
    assert.equal(k8ts('token', 'create', '--ttl').stderr, 'flag needs an argument: --ttl\nTo see the stack trace of this error execute with --v=5 or higher\n');
    assert.match(k8ts('token', 'lst').stderr, /^unknown command "lst" for "k8ts token"/);
  });

  test('other commands answer as cobra commands: the error, then the command\'s usage', () => {
    // cobra prints UsageString (from "Usage:" on, ending in a newline) with Println: a blank line closes it.
    const usage = (command: string) => {
      const help = k8ts(command, '--help').stdout;
      return `${help.slice(help.indexOf('Usage:'))}\n`;
    };
    const unknown = k8ts('agent', '--no-such-flag');
    assert.equal(unknown.code, 1);
    assert.equal(unknown.stderr, `Error: unknown flag: --no-such-flag\n${usage('agent')}`);
    assert.equal(unknown.stdout, '');
    assert.equal(k8ts('up', '-z').stderr, `Error: unknown shorthand flag: 'z' in -z\n${usage('up')}`);
    assert.equal(k8ts('server', '--port').stderr, `Error: flag needs an argument: --port\n${usage('server')}`);
    assert.match(usage('server'), /^Usage:\n  k8ts server --data-dir DIR \[flags\]\n/);
    assert.equal(k8ts('frobnicate').stderr, 'Error: unknown command "frobnicate" for "k8ts"\nRun \'k8ts --help\' for usage.\n');
  });

  test('required flags in cobra\'s words: one, several, one of a group', () => {
    const server = k8ts('server');
    assert.equal(server.code, 1);
    assert.equal(server.stderr, `Error: required flag(s) "data-dir" not set\n${k8ts('server', '--help').stdout.replace(/^[^]*?(?=Usage:)/, '')}\n`);
    assert.match(k8ts('sim').stderr, /^Error: required flag\(s\) "kubeconfig", "nodes" not set\nUsage:\n  k8ts sim /);
    assert.match(k8ts('sim', '--kubeconfig', '/nonexistent').stderr, /^Error: required flag\(s\) "nodes" not set\n/);
    assert.match(k8ts('controller-manager').stderr, /^Error: required flag\(s\) "kubeconfig" not set\nUsage:\n  k8ts controller-manager /);
    const agent = k8ts('agent');
    assert.equal(agent.code, 1);
    assert.match(agent.stderr, /^Error: at least one of the flags in the group \[kubeconfig pod-manifest-path\] is required\nUsage:\n  k8ts agent /);
  });

  test('k8ts version names k8ts and the API version it serves', () => {
    const r = k8ts('version');
    assert.equal(r.code, 0);
    assert.match(r.stdout, /^k8ts \d+\.\d+\.\d+ \(Kubernetes API v1\.32\.\d+, node\d+\.\d+\.\d+, linux\/\w+\)\n$/);
  });
});
