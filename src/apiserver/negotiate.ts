/**
 * Accept-header negotiation. kubectl asks for server-side Tables, controllers
 * may ask for PartialObjectMetadata, discovery asks for the aggregated form;
 * typed clients (client-go, kubectl's typed paths, Helm) ask for
 * application/vnd.kubernetes.protobuf first, which built-in kinds get (see
 * `negotiateMedia`); everything else gets JSON.
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
  return negotiateMedia(accept).rendering;
}

const protobufType = 'application/vnd.kubernetes.protobuf';

/**
 * The rendering, and whether the client's first acceptable media range is
 * protobuf. Tables and aggregated discovery have no protobuf form upstream,
 * so such a range asking for protobuf is passed over; PartialObjectMetadata
 * has one. Whether the answer really is protobuf also depends on the kind
 * (custom resources have none): the writers fall back to JSON.
 */
export function negotiateMedia(accept: string | undefined): { rendering: Rendering; protobuf: boolean } {
  for (const m of parseAccept(accept)) {
    const as = m.params.as;
    const protobuf = m.type === protobufType;
    if (!protobuf && m.type !== 'application/json' && m.type !== '*/*' && m.type !== 'application/*') continue;
    if (as === 'Table' && (m.params.g ?? 'meta.k8s.io') === 'meta.k8s.io' && !protobuf) return { rendering: 'table', protobuf };
    if ((as === 'PartialObjectMetadata' || as === 'PartialObjectMetadataList') && (m.params.g ?? 'meta.k8s.io') === 'meta.k8s.io') return { rendering: 'partial', protobuf };
    if (as === 'APIGroupDiscoveryList' && m.params.g === 'apidiscovery.k8s.io' && m.params.v === 'v2' && !protobuf) return { rendering: 'aggregated-discovery', protobuf };
    if (as) continue;
    return { rendering: 'json', protobuf };
  }
  return { rendering: 'json', protobuf: false };
}
