/**
 * The YAML text gnostic stores in an Any: yaml.v3's Marshal of the JSON
 * value, which indents by four, indents a sequence under its key, pads a
 * mapping that is a sequence item to the same four (`-   group: ""`), and
 * does not fold long lines. Readers parse it (kubectl's openapi proto
 * package unmarshals it), so what matters is valid YAML of the same value;
 * the layout follows yaml.v3 to keep the bytes close to upstream's.
 * Scalars are quoted as the yaml package decides; a multi-line string is
 * written double-quoted, which needs no indentation of its own.
 */
import { lazyRequire } from '../../util/lazy-require.js';

const yaml = lazyRequire<typeof import('yaml')>('yaml');

const pad = (n: number) => ' '.repeat(n);
const isBlock = (v: unknown): v is Record<string, unknown> | unknown[] =>
  !!v && typeof v === 'object' && (Array.isArray(v) ? v.length > 0 : Object.keys(v).length > 0);

function scalar(v: unknown): string {
  if (typeof v === 'string' && v.includes('\n')) return JSON.stringify(v);
  return yaml().stringify(v, { lineWidth: 0 }).replace(/\n$/, '');
}

function lines(v: Record<string, unknown> | unknown[], indent: number): string[] {
  const out: string[] = [];
  if (Array.isArray(v)) {
    for (const item of v) {
      if (!isBlock(item)) { out.push(`${pad(indent)}- ${scalar(item)}`); continue; }
      const nested = lines(item, indent + 4);
      out.push(`${pad(indent)}-${nested[0].slice(indent + 1)}`, ...nested.slice(1));
    }
    return out;
  }
  for (const [k, val] of Object.entries(v)) {
    if (isBlock(val)) out.push(`${pad(indent)}${scalar(k)}:`, ...lines(val, indent + 4));
    else out.push(`${pad(indent)}${scalar(k)}: ${scalar(val)}`);
  }
  return out;
}

/** The YAML text of a JSON value, as gnostic's Any.yaml holds it. */
export function gnosticYAML(v: unknown): string {
  return `${isBlock(v) ? lines(v, 0).join('\n') : scalar(v)}\n`;
}
