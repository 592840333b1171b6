/**
 * bench/lib/args.ts: a benchmark's flags. `--help` and a flag the benchmark
 * does not know must stop it before it starts servers or rewrites its
 * bench/RESULTS.md section (bench/kubeadm.ts once ran in full on `--help`).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseBenchArgs, usage } from '../../bench/lib/args.js';

const config = (args: string[]) => ({
  args,
  options: {
    runs: { type: 'string', default: '3', help: 'runs per row' },
    'no-write': { type: 'boolean', default: false, help: 'leave bench/RESULTS.md alone' },
    baseline: { type: 'string' },
    cli: { type: 'string', multiple: true },
  },
} as const);

test('defaults and given values come through as parseArgs gives them', () => {
  const none = parseBenchArgs('x.js', 'About x.', config([]));
  assert.equal(none.kind, 'run');
  if (none.kind !== 'run') return;
  assert.deepEqual({ ...none.parsed.values }, { runs: '3', 'no-write': false });
  const some = parseBenchArgs('x.js', 'About x.', config(['--runs', '7', '--no-write', '--baseline=/tmp/b', '--cli', 'a', '--cli', 'b']));
  assert.equal(some.kind, 'run');
  if (some.kind !== 'run') return;
  assert.deepEqual({ ...some.parsed.values }, { runs: '7', 'no-write': true, baseline: '/tmp/b', cli: ['a', 'b'] });
  assert.equal('help' in some.parsed.values, false, 'the added --help is not one of the benchmark\'s values');
});

test('--help and -h print the usage with every option and its default', () => {
  for (const flag of ['--help', '-h']) {
    const out = parseBenchArgs('x.js', 'About x.', config(['--runs', '2', flag]));
    assert.equal(out.kind, 'help', flag);
    if (out.kind !== 'help') return;
    const lines = out.text.split('\n');
    assert.equal(lines[0], 'usage: node dist/bench/x.js [options]');
    assert.ok(lines.includes('About x.'));
    assert.match(out.text, /^ {6}--runs VALUE +runs per row \(default "3"\)$/m);
    assert.match(out.text, /^ {6}--no-write +leave bench\/RESULTS\.md alone$/m);
    assert.match(out.text, /^ {6}--baseline VALUE$/m);
    assert.match(out.text, /^ {6}--cli VALUE +\(repeatable\)$/m);
    assert.match(out.text, /^ {2}-h, --help +print this help and exit$/m);
  }
});

test('--help wins over a bad flag beside it, but not after --', () => {
  assert.equal(parseBenchArgs('x.js', 'About x.', config(['--bogus', '--help'])).kind, 'help');
  assert.equal(parseBenchArgs('x.js', 'About x.', config(['--', '--help'])).kind, 'error');
});

test('an unknown flag, a missing value and a stray positional are errors with the usage', () => {
  for (const [args, message] of [
    [['--bogus'], /Unknown option '--bogus'/],
    [['--runs'], /Option '--runs <value>' argument missing/],
    [['--no-write=yes'], /does not take an argument/],
    [['extra'], /Unexpected argument 'extra'/],
  ] as const) {
    const out = parseBenchArgs('x.js', 'About x.', config([...args]));
    assert.equal(out.kind, 'error', args.join(' '));
    if (out.kind !== 'error') return;
    assert.match(out.text, /^error: /);
    assert.match(out.text, message);
    assert.match(out.text, /^usage: node dist\/bench\/x\.js \[options\]$/m);
  }
});

test('positionals when the benchmark takes them', () => {
  const out = parseBenchArgs('y.js', 'About y.', { args: ['1', '500'], allowPositionals: true, positionals: '[ROUNDS [KEYS]]' });
  assert.equal(out.kind, 'run');
  if (out.kind === 'run') assert.deepEqual(out.parsed.positionals, ['1', '500']);
  assert.equal(usage('y.js', 'About y.', { positionals: '[ROUNDS [KEYS]]' }).split('\n')[0], 'usage: node dist/bench/y.js [options] [ROUNDS [KEYS]]');
});
