/**
 * cli/v8-flags.ts: the commands that run an API server (up, server) fix V8's heap growing factor
 * unless node was given one or K8TS_HEAP_GROWING_PERCENT overrides it (0: V8's own); other
 * commands get no flags of ours but up's --optimize-for-size.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { defaultHeapGrowingPercent, v8FlagsFor } from '../../src/cli/v8-flags.js';

test('V8 flags by command, environment and node options', () => {
  const d = `--heap-growing-percent=${defaultHeapGrowingPercent}`;
  const cases: { what: string; command: string | undefined; env?: Record<string, string>; node?: string[]; want: string | undefined }[] = [
    { what: 'server: the default factor', command: 'server', want: d },
    { what: 'up: small footprint and the default factor', command: 'up', want: `--optimize-for-size ${d}` },
    { what: 'another command: nothing', command: 'get', want: undefined },
    { what: 'no command', command: undefined, want: undefined },
    { what: 'an override', command: 'server', env: { K8TS_HEAP_GROWING_PERCENT: '100' }, want: '--heap-growing-percent=100' },
    { what: '0: V8\'s own factor', command: 'server', env: { K8TS_HEAP_GROWING_PERCENT: '0' }, want: undefined },
    { what: '0 on up keeps its other flag', command: 'up', env: { K8TS_HEAP_GROWING_PERCENT: '0' }, want: '--optimize-for-size' },
    { what: 'not a percentage: the default', command: 'server', env: { K8TS_HEAP_GROWING_PERCENT: 'lots' }, want: d },
    { what: 'empty: the default', command: 'server', env: { K8TS_HEAP_GROWING_PERCENT: '' }, want: d },
    { what: 'node was given one on its command line', command: 'server', node: ['--heap-growing-percent=30'], want: undefined },
    { what: 'node was given one in NODE_OPTIONS (underscores)', command: 'server', node: ['--max-old-space-size=4096 --heap_growing_percent=30'], want: undefined },
    { what: 'other node options do not count', command: 'server', node: ['--max-old-space-size=4096'], want: d },
  ];
  for (const c of cases) assert.equal(v8FlagsFor(c.command, c.env ?? {}, c.node ?? []), c.want, c.what);
});
