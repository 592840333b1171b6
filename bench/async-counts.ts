/**
 * The async resources a server made per HTTP request over the middle of a run, from the totals
 * bench/lib/async-resources.ts appended (one JSON line every 2 s): the lines from `--from` to
 * `--to` of the way through the file (by default 40% to 85%, past the warm-up, before the end).
 *
 *   node dist/bench/async-counts.js /tmp/k8ts-async-counts-PID.jsonl [--from 0.4] [--to 0.85]
 */
import { readFileSync } from 'node:fs';
import { benchArgs } from './lib/args.js';

function main(): void {
  const { values, positionals } = benchArgs('Async resources per HTTP request, from the totals bench/lib/async-resources.ts wrote.', {
    allowPositionals: true,
    positionals: 'COUNTS.jsonl',
    options: {
      from: { type: 'string', default: '0.4', help: 'first line, as a fraction of the file' },
      to: { type: 'string', default: '0.85', help: 'last line, as a fraction of the file' },
    },
  });
  if (positionals.length !== 1) {
    console.error('need one counts file');
    process.exit(2);
  }
  const lines = readFileSync(positionals[0]!, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Record<string, number>);
  const a = lines[Math.floor((lines.length - 1) * Number(values.from))]!;
  const b = lines[Math.floor((lines.length - 1) * Number(values.to))]!;
  const requests = b.requests! - a.requests!;
  if (requests <= 0) {
    console.error('no requests between the lines chosen');
    process.exit(1);
  }
  console.log(`${requests} requests`);
  for (const type of Object.keys(b).filter((k) => k !== 't' && k !== 'requests').sort()) {
    const per = (b[type]! - (a[type] ?? 0)) / requests;
    if (per >= 0.01) console.log(`${type.padEnd(24)}${per.toFixed(2).padStart(8)} per request`);
  }
}

main();
