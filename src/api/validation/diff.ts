/**
 * A short, cmp.Diff-like listing of the top-level fields two specs differ in,
 * appended to "may not change" messages the way upstream appends its diff
 * (upstream itself calls its diff unstable; only the first line is contractual).
 */
import { deepEqual, obj } from './util.js';

const goName = (f: string) => f.charAt(0).toUpperCase() + f.slice(1);
const show = (v: unknown) => (v === undefined ? 'nil' : JSON.stringify(v));

export function specDiff(type: string, oldSpec: unknown, newSpec: unknown): string {
  const a = obj(oldSpec);
  const b = obj(newSpec);
  const lines = [`  ${type}{`];
  for (const f of [...new Set([...Object.keys(a), ...Object.keys(b)])].sort()) {
    if (deepEqual(a[f], b[f])) continue;
    lines.push(`- \t${goName(f)}: ${show(a[f])},`, `+ \t${goName(f)}: ${show(b[f])},`);
  }
  lines.push('  }');
  return `${lines.join('\n')}\n`;
}
