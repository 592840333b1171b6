/**
 * Downward API values (upstream pkg/api/v1/resource ExtractResourceValueByContainerName,
 * pkg/volume/downwardapi and pkg/fieldpath), v1.32:
 *
 *  1. metadata.name, .namespace, .uid; metadata.labels and metadata.annotations
 *     as whole maps are `key="value"` lines sorted by key (values quoted as Go's
 *     strconv.Quote does); one label or annotation by `metadata.labels['k']`.
 *  2. resourceFieldRef: limits.cpu / requests.cpu in units of the divisor
 *     (default 1), rounded up; memory and ephemeral-storage likewise. A
 *     limit the container does not set is the node's allocatable; a request
 *     it does not set is 0.
 */
import type { Container, Pod } from 'kubernetes-types/core/v1.js';
import { milliValue, integerValue, parseQuantity } from '../../api/quantity.js';

/** Go's strconv.Quote for the characters labels and annotations hold (JSON's escapes agree on them). */
const goQuote = (s: string) => JSON.stringify(s);

function formatMap(m: Record<string, string> | undefined): string {
  return Object.keys(m ?? {}).sort().map((k) => `${k}=${goQuote(m![k])}`).join('\n');
}

/** A metadata field a downward API volume or env var names; undefined when the path is not one upstream serves. */
export function podFieldValue(pod: Pod, path: string): string | undefined {
  const m = pod.metadata ?? {};
  switch (path) {
    case 'metadata.name': return m.name ?? '';
    case 'metadata.namespace': return m.namespace ?? '';
    case 'metadata.uid': return m.uid ?? '';
    case 'metadata.labels': return formatMap(m.labels);
    case 'metadata.annotations': return formatMap(m.annotations);
  }
  const one = /^metadata\.(labels|annotations)\['(.+)'\]$/.exec(path);
  if (one) return (one[1] === 'labels' ? m.labels : m.annotations)?.[one[2]] ?? '';
  return undefined;
}

export interface NodeAllocatable { cpu: string; memory: string; 'ephemeral-storage'?: string }

/** The value of `resource` (e.g. limits.memory) of `container`, in units of `divisor`. */
export function resourceFieldValue(c: Container, resource: string, divisor: string | number | undefined, node: NodeAllocatable): string {
  const [kind, name] = resource.split('.', 2) as ['limits' | 'requests', string];
  const set = kind === 'limits' ? c.resources?.limits?.[name] : c.resources?.requests?.[name];
  const allocatable = name === 'cpu' ? node.cpu : name === 'memory' ? node.memory : node['ephemeral-storage'] ?? '0';
  const raw = set ?? (kind === 'limits' ? allocatable : '0');
  const value = parseQuantity(raw);
  const div = parseQuantity(divisor ?? '1');
  if (!value || !div) return '0';
  if (name === 'cpu') {
    const d = milliValue(div) || 1n;
    return String(ceilDiv(milliValue(value), d));
  }
  const d = integerValue(div) || 1n;
  return String(ceilDiv(integerValue(value), d));
}

const ceilDiv = (a: bigint, b: bigint) => (a + b - 1n) / b;
