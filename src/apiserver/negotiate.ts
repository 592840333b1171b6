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
export function negotiateMedia(accept: string | undefined): Readonly<{ rendering: Rendering; protobuf: boolean }> {
  if (!accept) return jsonMedia;
  if (accept.length > maxNegotiatedLength) return negotiateAccept(accept);
  // Clients send the same few Accept headers again and again: each is parsed once (a bounded memo).
  let media = negotiated.get(accept);
  if (!media) {
    if (negotiated.size >= maxNegotiated) negotiated.clear();
    negotiated.set(accept, (media = Object.freeze(negotiateAccept(accept))));
  }
  return media;
}

const jsonMedia = Object.freeze({ rendering: 'json' as Rendering, protobuf: false });
/** At most this many headers of at most this many characters are remembered. */
const maxNegotiated = 256;
const maxNegotiatedLength = 1024;
const negotiated = new Map<string, Readonly<{ rendering: Rendering; protobuf: boolean }>>();

function negotiateAccept(accept: string): { rendering: Rendering; protobuf: boolean } {
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

/**
 * The Accept header without its Table ranges, for an endpoint that has no
 * table convertor (upstream's RequestScope.AllowsMediaTypeTransform refuses
 * Table there, so only the other ranges can match); undefined when nothing is
 * left, which upstream answers 406.
 */
export function acceptWithoutTable(accept: string | undefined): string | undefined {
  if (!accept) return accept;
  const kept = accept.split(',').filter((part) => {
    const [{ params }] = parseAccept(part);
    return params.as !== 'Table';
  });
  return kept.length ? kept.join(',') : undefined;
}

/** Upstream's NotAcceptable message for the built-in kinds' serializers. */
export const builtinMediaTypesNotAcceptable = 'only the following media types are accepted: application/json, application/yaml, application/vnd.kubernetes.protobuf';

/** The content type kube-openapi answers a request for gnostic's protobuf form with (the undeprecated spelling). */
export const openapiV2ProtobufType = 'application/com.github.proto-openapi.spec.v2.v1.0+protobuf';
const openapiV2Forms: [string, 'json' | 'protobuf'][] = [
  ['application/json', 'json'],
  ['application/com.github.proto-openapi.spec.v2@v1.0+protobuf', 'protobuf'],
  [openapiV2ProtobufType, 'protobuf'],
];

/**
 * /openapi/v2's form as kube-openapi picks it: the Accept's ranges sorted as
 * goautoneg sorts them (by q, then exact types before wildcards), the first
 * range either form matches wins, JSON first; no Accept accepts anything;
 * undefined when nothing is acceptable (406). A range with q=0 refuses.
 */
export function negotiateOpenAPIV2(accept: string | undefined): 'json' | 'protobuf' | undefined {
  const specificity = (t: string) => (t === '*/*' ? 0 : t.endsWith('/*') ? 1 : 2);
  const ranges = parseAccept(accept || '*/*')
    .map((m, i) => ({ type: m.type, q: m.params.q === undefined ? 1 : Number(m.params.q), i }))
    .filter((m) => m.q > 0)
    .sort((a, b) => b.q - a.q || specificity(b.type) - specificity(a.type) || a.i - b.i);
  for (const { type } of ranges) {
    const [major, minor] = type.split('/');
    const form = openapiV2Forms.find(([t]) => (major === '*' || t.startsWith(`${major}/`)) && (minor === '*' || t.endsWith(`/${minor}`)));
    if (form) return form[1];
  }
  return undefined;
}
