/**
 * Accept-header negotiation. kubectl asks for server-side Tables, controllers
 * may ask for PartialObjectMetadata, discovery asks for the aggregated form;
 * everything else gets JSON (including protobuf-first typed clients).
 */
export type Rendering = 'json' | 'table' | 'partial' | 'aggregated-discovery';

interface MediaRange { type: string; params: Record<string, string> }

function parseAccept(header: string | undefined): MediaRange[] {
  if (!header) return [];
  return header.split(',').map((part) => {
    const [type, ...ps] = part.split(';').map((s) => s.trim());
    const params: Record<string, string> = {};
    for (const p of ps) {
      const i = p.indexOf('=');
      if (i > 0) params[p.slice(0, i).trim().toLowerCase()] = p.slice(i + 1).trim();
    }
    return { type: type.toLowerCase(), params };
  });
}

export function negotiate(accept: string | undefined): Rendering {
  for (const m of parseAccept(accept)) {
    const as = m.params.as;
    if (as === 'Table' && (m.params.g ?? 'meta.k8s.io') === 'meta.k8s.io') return 'table';
    if ((as === 'PartialObjectMetadata' || as === 'PartialObjectMetadataList') && (m.params.g ?? 'meta.k8s.io') === 'meta.k8s.io') return 'partial';
    if (as === 'APIGroupDiscoveryList' && m.params.g === 'apidiscovery.k8s.io' && m.params.v === 'v2') return 'aggregated-discovery';
    if (as) continue;
    if (m.type === 'application/json' || m.type === '*/*' || m.type === 'application/*') return 'json';
  }
  return 'json';
}
