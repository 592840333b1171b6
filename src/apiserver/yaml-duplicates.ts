/**
 * Duplicate keys in a YAML body, as upstream finds them under
 * fieldValidation=Strict or Warn: the body goes once more through
 * sigs.k8s.io/yaml's YAMLToJSONStrict (go-yaml v2 UnmarshalStrict), whose error
 * is one strict decoding error before the unknown fields:
 * `yaml: unmarshal errors:\n  line 6: key "replicas" already set in map`
 * (the line of the repeated key's value, as go-yaml's setMapIndex reports it).
 */
import type { LineCounter, Node } from 'yaml';
import { lazyRequire } from '../util/lazy-require.js';
import type { ParsedYAML } from './yaml-body.js';

const yaml = lazyRequire<typeof import('yaml')>('yaml');

/**
 * The body's duplicate keys as go-yaml's error, or undefined. `body` is the
 * document its decoding already parsed (yaml-body.ts), or the text, parsed
 * here when that document is not at hand (a body decoded in a worker).
 */
export function yamlDuplicateKeysError(body: ParsedYAML | string): string | undefined {
  const parsed = typeof body === 'string' ? parse(body) : body;
  if (!parsed) return undefined;
  const { document, lineCounter } = parsed;
  const lines: string[] = [];
  collect(document.contents, lineCounter, lines);
  return lines.length ? `yaml: unmarshal errors:\n  ${lines.join('\n  ')}` : undefined;
}

function parse(text: string): { document: { contents: unknown }; lineCounter: LineCounter } | undefined {
  const lineCounter = new (yaml().LineCounter)();
  try {
    return { document: yaml().parseDocument(text, { uniqueKeys: false, lineCounter }), lineCounter };
  } catch {
    return undefined;
  }
}

/** Depth first in document order: a value's own duplicates come before its key's, as go-yaml decodes. Depth is bounded by the decoder's nesting limit. */
function collect(node: unknown, counter: LineCounter, out: string[]): void {
  const { isMap, isScalar, isSeq } = yaml();
  if (isSeq(node)) { for (const item of node.items) collect(item, counter, out); return; }
  if (!isMap(node)) return;
  const seen = new Set<unknown>();
  for (const pair of node.items) {
    // Only collections can hold duplicates: a map of 200,000 scalars takes no call per value.
    if (isMap(pair.value) || isSeq(pair.value)) collect(pair.value, counter, out);
    if (!isScalar(pair.key)) continue;
    const key = pair.key.value;
    if (seen.has(key)) out.push(`line ${lineOf(counter, (pair.value ?? pair.key) as Node)}: key ${goQuote(key)} already set in map`);
    seen.add(key);
  }
}

function lineOf(counter: LineCounter, node: Node): number {
  return counter.linePos(node.range?.[0] ?? 0).line;
}

/** Go's %#v of a decoded YAML key: strings quoted, numbers and booleans bare. */
const goQuote = (key: unknown) => (typeof key === 'string' ? JSON.stringify(key) : String(key));
