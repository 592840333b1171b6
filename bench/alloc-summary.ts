/**
 * Bytes allocated per operation by function, from a sampled allocation profile of a server's
 * measured phase (bench/lib/alloc-sampling.ts; side-by-side.ts `--alloc-profile FILE` writes one):
 * self (allocated in the function itself) and inclusive (in it and what it called; a function
 * counted once per stack). `--ops` is the number of operations the phase ran.
 *
 *   node dist/bench/alloc-summary.js FILE --ops 4000 [--top 30] [--under functionName]
 *
 * `--under NAME` keeps only the allocations made inside functions whose name starts with NAME.
 * A function V8 inlined into its caller allocates in the caller's name.
 */
import { readFileSync } from 'node:fs';
import { benchArgs } from './lib/args.js';

interface CallFrame { functionName: string; url: string; lineNumber: number }
interface ProfileNode { callFrame: CallFrame; selfSize: number; children: ProfileNode[] }

const frameName = (f: CallFrame) => `${f.functionName || '(anonymous)'} ${f.url.replace(/^.*\/dist\/src\//, '').replace(/^.*\/node_modules\//, '')}:${f.lineNumber + 1}`;

function main(): void {
  const { values, positionals } = benchArgs('Bytes allocated per operation by function, from a sampled allocation profile FILE.', { allowPositionals: true, options: { ops: { type: 'string' }, top: { type: 'string', default: '30' }, under: { type: 'string' } } });
  if (!positionals[0] || !values.ops) throw new Error('usage: alloc-summary.js FILE --ops N [--top 30] [--under NAME]');
  const head = (JSON.parse(readFileSync(positionals[0], 'utf8')) as { head: ProfileNode }).head;
  const ops = Number(values.ops);
  const self = new Map<string, number>();
  const inclusive = new Map<string, number>();
  let total = 0;
  // Iterative: a deep stack must not be this script's recursion limit.
  const stack: Array<{ node: ProfileNode; above: ReadonlySet<string>; inside: boolean }> = [{ node: head, above: new Set(), inside: values.under === undefined }];
  while (stack.length) {
    const { node, above, inside: wasInside } = stack.pop()!;
    const name = frameName(node.callFrame);
    const inside = wasInside || name.startsWith(values.under ?? '\u0000');
    const here = new Set(above).add(name);
    if (inside) {
      total += node.selfSize;
      self.set(name, (self.get(name) ?? 0) + node.selfSize);
      for (const n of here) inclusive.set(n, (inclusive.get(n) ?? 0) + node.selfSize);
    }
    for (const c of node.children) stack.push({ node: c, above: here, inside });
  }
  const kib = (b: number) => (b / ops / 1024).toFixed(2).padStart(7);
  console.log(`${kib(total)} KiB per operation in all${values.under ? ` under ${values.under}` : ''}`);
  const top = Number(values.top);
  console.log('-- self (KiB per operation)');
  for (const [n, b] of [...self].sort((a, b) => b[1] - a[1]).slice(0, top)) console.log(kib(b), n);
  console.log('-- inclusive (KiB per operation)');
  for (const [n, b] of [...inclusive].sort((a, b) => b[1] - a[1]).slice(0, top)) console.log(kib(b), n);
}

main();
