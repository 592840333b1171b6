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

const yaml = lazyRequire<typeof import('yaml')>('yaml');

export function yamlDuplicateKeysError(text: string): string | undefined {
  const lineCounter = new (yaml().LineCounter)();
  let doc;
  try {
    doc = yaml().parseDocument(text, { uniqueKeys: false, lineCounter });
  } catch {
    return undefined;
  }
  const lines: string[] = [];
  collect(doc.contents, lineCounter, lines);
  return lines.length ? `yaml: unmarshal errors:\n  ${lines.join('\n  ')}` : undefined;
}

/** Depth first in document order: a value's own duplicates come before its key's, as go-yaml decodes. Depth is bounded by the decoder's nesting limit. */
function collect(node: unknown, counter: LineCounter, out: string[]): void {
  const { isMap, isScalar, isSeq } = yaml();
  if (isSeq(node)) { for (const item of node.items) collect(item, counter, out); return; }
  if (!isMap(node)) return;
  const seen = new Set<unknown>();
  for (const pair of node.items) {
    collect(pair.value, counter, out);
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
