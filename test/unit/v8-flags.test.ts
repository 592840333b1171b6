/**
 * cli/v8-flags.ts: the commands that run an API server (up, server) set V8's heap growing factor
 * when K8TS_HEAP_GROWING_PERCENT asks for one and node was given none (V8's own otherwise); other
 * commands get no flags of ours but up's --optimize-for-size and server's smaller inlining budget; a
 * flag node itself was given wins over ours.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { adaptsHeapGrowing, suggestedHeapGrowingPercent, v8FlagsFor } from '../../src/cli/v8-flags.js';

test('V8 flags by command, environment and node options', () => {
  const d = `--heap-growing-percent=${suggestedHeapGrowingPercent}`;
  const inl = '--max-inlined-bytecode-size-cumulative=460';
  const asked = { K8TS_HEAP_GROWING_PERCENT: String(suggestedHeapGrowingPercent) };
  const cases: { what: string; command: string | undefined; env?: Record<string, string>; node?: string[]; want: string | undefined }[] = [
    { what: 'server: V8\'s own factor by default, a smaller inlining budget', command: 'server', want: inl },
    { what: 'up: small footprint, V8\'s own factor', command: 'up', want: '--optimize-for-size' },
    { what: 'server: the factor asked for', command: 'server', env: asked, want: `${inl} ${d}` },
    { what: 'up: small footprint and the factor asked for', command: 'up', env: asked, want: `--optimize-for-size ${d}` },
    { what: 'another command: nothing', command: 'get', want: undefined },
    { what: 'no command', command: undefined, want: undefined },
    { what: 'an override', command: 'server', env: { K8TS_HEAP_GROWING_PERCENT: '100' }, want: `${inl} --heap-growing-percent=100` },
    { what: '0: V8\'s own factor', command: 'server', env: { K8TS_HEAP_GROWING_PERCENT: '0' }, want: inl },
    { what: '0 on up keeps its other flag', command: 'up', env: { K8TS_HEAP_GROWING_PERCENT: '0' }, want: '--optimize-for-size' },
    { what: 'not a percentage: V8\'s own', command: 'server', env: { K8TS_HEAP_GROWING_PERCENT: 'lots' }, want: inl },
    { what: 'empty: V8\'s own', command: 'server', env: { K8TS_HEAP_GROWING_PERCENT: '' }, want: inl },
    { what: 'node was given one on its command line', command: 'server', env: asked, node: ['--heap-growing-percent=30'], want: inl },
    { what: 'node was given one in NODE_OPTIONS (underscores)', command: 'server', env: asked, node: ['--max-old-space-size=4096 --heap_growing_percent=30'], want: inl },
    { what: 'other node options do not count', command: 'server', env: asked, node: ['--max-old-space-size=4096'], want: `${inl} ${d}` },
    { what: 'node was given an inlining budget: its own', command: 'server', node: ['--max_inlined_bytecode_size_cumulative=920'], want: undefined },
    { what: 'up given --no-optimize-for-size: node\'s wins', command: 'up', node: ['--no-optimize-for-size'], want: undefined },
  ];
  for (const c of cases) assert.equal(v8FlagsFor(c.command, c.env ?? {}, c.node ?? []), c.want, c.what);
});

test('the server adapts the factor to its heap only when nobody set one', () => {
  const cases: { what: string; env: Record<string, string>; node?: string[]; want: boolean }[] = [
    { what: 'unset: adapts', env: {}, want: true },
    { what: 'empty: adapts', env: { K8TS_HEAP_GROWING_PERCENT: ' ' }, want: true },
    { what: 'a factor asked for: fixed', env: { K8TS_HEAP_GROWING_PERCENT: '50' }, want: false },
    { what: '0: V8\'s own, not adapted', env: { K8TS_HEAP_GROWING_PERCENT: '0' }, want: false },
    { what: 'node was given one', env: {}, node: ['--heap_growing_percent=30'], want: false },
    { what: 'other node options do not count', env: {}, node: ['--max-old-space-size=4096'], want: true },
  ];
  for (const c of cases) assert.equal(adaptsHeapGrowing(c.env, c.node ?? []), c.want, c.what);
});
