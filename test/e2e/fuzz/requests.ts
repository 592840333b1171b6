/**
 * The request-line and header parts of fuzzed requests: API and
 * non-resource paths, mutated segment by segment; query strings with label
 * and field selectors from their grammars (then damaged), paging, resource
 * versions, watch with a short timeout, write options and booleans in every
 * spelling Go's strconv.ParseBool knows; Accept and Content-Type variants.
 */
import fc from 'fast-check';
import { fuzzNamespace } from './seeds.js';
import { stringValue } from './values.js';
import { encode } from './wire.js';

// ---- paths

const resources = ['pods', 'services', 'configmaps', 'secrets', 'endpoints', 'events', 'serviceaccounts', 'persistentvolumeclaims', 'bindings', 'nosuchthings'];
const appsResources = ['daemonsets', 'statefulsets', 'deployments', 'replicasets', 'controllerrevisions'];
const clusterResources = ['nodes', 'namespaces', 'persistentvolumes'];
const subresources = ['status', 'scale', 'binding', 'eviction', 'log', 'exec', 'attach', 'portforward', 'proxy', 'finalize', 'approval', 'ephemeralcontainers', 'resize', 'bogus'];
const names = ['x', 'fz', 'default', 'kube-system', fuzzNamespace, 'node', 'UPPER', 'a.b', '-a', 'a'.repeat(254)];

const basePaths = fc.oneof(
  fc.constantFrom('/', '/api', '/api/v1', '/apis', '/apis/apps', '/apis/apps/v1', '/apis/apps/v2', '/apis/nosuch.group/v1', '/api/v2',
    '/healthz', '/livez', '/readyz', '/healthz/ping', '/readyz/etcd', '/version', '/metrics', '/openapi/v2', '/openapi/v3', '/openapi/v3/api/v1',
    '/openapi/v3/apis/apps/v1', '/openapi/v3/nosuch', '/.well-known/openid-configuration', '/logs', '/debug/pprof', '/apis/coordination.k8s.io/v1',
    '/apis/certificates.k8s.io/v1/certificatesigningrequests', '/apis/storage.k8s.io/v1/storageclasses', '/apis/events.k8s.io/v1/events'),
  fc.tuple(fc.constantFrom('', '/watch'), fc.constantFrom(...resources), fc.constantFrom(...names), fc.option(fc.constantFrom(...names), { nil: undefined }), fc.option(fc.constantFrom(...subresources), { nil: undefined }))
    .map(([w, r, ns, n, s]) => `/api/v1${w}/namespaces/${ns}/${r}${n ? `/${n}` : ''}${n && s ? `/${s}` : ''}`),
  fc.tuple(fc.constantFrom('', '/watch'), fc.constantFrom(...appsResources), fc.constantFrom(...names), fc.option(fc.constantFrom(...names), { nil: undefined }), fc.option(fc.constantFrom(...subresources), { nil: undefined }))
    .map(([w, r, ns, n, s]) => `/apis/apps/v1${w}/namespaces/${ns}/${r}${n ? `/${n}` : ''}${n && s ? `/${s}` : ''}`),
  fc.tuple(fc.constantFrom('', '/watch'), fc.constantFrom(...clusterResources, ...resources), fc.option(fc.constantFrom(...names), { nil: undefined }), fc.option(fc.constantFrom(...subresources), { nil: undefined }))
    .map(([w, r, n, s]) => `/api/v1${w}/${r}${n ? `/${n}` : ''}${n && s ? `/${s}` : ''}`),
);

/** Damage done to one segment of a path, or to the path as a whole. */
type PathDamage = { at: number; how: string; text: string };

const pathDamage: fc.Arbitrary<PathDamage> = fc.record({
  at: fc.nat(),
  how: fc.constantFrom('insert', 'replace', 'drop', 'double-slash', 'append', 'prefix'),
  text: fc.oneof(
    fc.constantFrom('', '.', '..', '%', '%2', '%zz', '%00', '%2F', '%2f', '%2e%2e', '%252F', '[', ']', ':99999', '@', '?', '#', ';', ';x=y', '~',
      '*', '\\', 'a'.repeat(10_000), 'ü', '😀', '%C0%AF', '%ff', ' ', 'API', 'watch', 'namespaces', 'v1'),
    stringValue.map((s) => s.slice(0, 300)),
  ),
});

/** Paths the brief lists by name: each broke a real server once somewhere. */
const notorious = fc.constantFrom('//', '//[', '//:99999/healthz', '///', '//api', '//api/v1/pods', '/%', '/..', '/../healthz', '/./api', '/api/..', '/api/v1/../v1/pods',
  '/api/v1/namespaces//pods', '/api/v1/namespaces/%2F/pods', '/api/v1/namespaces/default/pods/%', '/apis//v1', '/apis/apps//deployments', '*', '/?', '/#');

export const path: fc.Arbitrary<string> = fc.oneof(
  { weight: 6, arbitrary: fc.tuple(basePaths, fc.array(pathDamage, { maxLength: 2 })).map(([p, ds]) => ds.reduce(damagePath, p)) },
  { weight: 1, arbitrary: notorious },
);

function damagePath(p: string, d: PathDamage): string {
  const segs = p.split('/');
  const i = 1 + (d.at % Math.max(segs.length - 1, 1));
  switch (d.how) {
    case 'insert': segs.splice(i, 0, d.text); break;
    case 'replace': segs[i] = d.text; break;
    case 'drop': segs.splice(i, 1); break;
    case 'double-slash': segs.splice(i, 0, ''); break;
    case 'append': return `${p}${d.text}`;
    case 'prefix': return `/${d.text}${p}`;
  }
  return segs.join('/') || '/';
}

// ---- query strings

/** Every spelling strconv.ParseBool accepts, and some it does not. */
export const goBool = fc.constantFrom('1', 't', 'T', 'TRUE', 'true', 'True', '0', 'f', 'F', 'FALSE', 'false', 'False', 'yes', 'on', '', 'tRuE', '2');

const labelKey = fc.oneof(
  fc.constantFrom('app', 'tier', 'kubernetes.io/hostname', 'example.com/a-b_c.d', 'a', 'A', 'x'.repeat(63), 'x'.repeat(64), 'p/', '/n', 'a/b/c', '-a', 'a-'),
  fc.stringMatching(/^[a-z0-9]([-a-z0-9_.]{0,6}[a-z0-9])?$/),
);
const labelValue = fc.oneof(fc.constantFrom('', 'fz', 'fz-ds', 'a.b', '1', 'x'.repeat(63), 'x'.repeat(64), '-x', 'ü'), fc.stringMatching(/^[a-z0-9]{0,8}$/));

/** Upstream's label selector grammar: requirements joined by commas. */
const labelRequirement = fc.oneof(
  fc.tuple(labelKey, fc.constantFrom('=', '==', '!='), labelValue).map(([k, op, v]) => `${k}${op}${v}`),
  fc.tuple(labelKey, fc.constantFrom(' in ', ' notin ', 'in', ' IN '), fc.array(labelValue, { maxLength: 3 })).map(([k, op, vs]) => `${k}${op}(${vs.join(',')})`),
  labelKey, labelKey.map((k) => `!${k}`),
  fc.tuple(labelKey, fc.constantFrom('>', '<', ' > ', '>='), fc.constantFrom('1', '-1', '1.5', 'a', '99999999999999999999')).map(([k, op, v]) => `${k}${op}${v}`),
);

const selectorDamage = fc.record({ at: fc.nat(), text: fc.constantFrom('', ',', '(', ')', '!', '=', '!=', ' ', '\\', 'in', '\u0000', '%', ',,', '((', '=(') });

const labelSelector = fc.tuple(fc.array(labelRequirement, { minLength: 1, maxLength: 4 }), fc.array(selectorDamage, { maxLength: 2 }))
  .map(([rs, ds]) => ds.reduce((s, d) => { const i = d.at % (s.length + 1); return s.slice(0, i) + d.text + s.slice(i); }, rs.join(',')));

const fieldKey = fc.constantFrom('metadata.name', 'metadata.namespace', 'spec.nodeName', 'status.phase', 'spec.schedulerName', 'spec.unschedulable', 'type',
  'involvedObject.name', 'spec.serviceAccountName', 'status.podIP', 'spec.restartPolicy', 'metadata.labels', 'nosuch', '', 'metadata.name.x');
const fieldValue = fc.oneof(fc.constantFrom('', 'x', 'fz', 'Running', 'a\\,b', 'a\\=b', 'a\\\\', '\\', 'a=b', 'ü'), fc.stringMatching(/^[a-z0-9.-]{0,8}$/));
const fieldSelector = fc.tuple(fc.array(fc.tuple(fieldKey, fc.constantFrom('=', '==', '!=', '', ' = ', '!'), fieldValue).map(([k, op, v]) => `${k}${op}${v}`), { minLength: 1, maxLength: 3 }), fc.array(selectorDamage, { maxLength: 1 }))
  .map(([rs, ds]) => ds.reduce((s, d) => { const i = d.at % (s.length + 1); return s.slice(0, i) + d.text + s.slice(i); }, rs.join(',')));

const intText = fc.oneof(fc.constantFrom('0', '1', '-1', '2', '500', '01', '1.5', '1e3', 'abc', '', ' 1', '+1', '0x10', '2147483648', '9223372036854775807', '9223372036854775808', '99999999999999999999'), fc.integer().map(String));
const resourceVersion = fc.oneof(fc.constantFrom('', '0', '1', '-1', 'abc', '1.5', '999999999', '9223372036854775807', '18446744073709551616', '99999999999999999999999'), fc.nat({ max: 200 }).map(String));
const continueToken = fc.oneof(
  fc.constantFrom('', 'abc', '%%%', '=', 'eyJ2IjoibWV0YS5rOHMuaW8vdjEiLCJydiI6MSwic3RhcnQiOiJ4In0', 'eyJ2IjoibWV0YS5rOHMuaW8vdjEiLCJydiI6LTEsInN0YXJ0IjoiIn0', 'e30', 'bnVsbA', 'W10'),
  fc.jsonValue({ maxDepth: 2 }).map((v) => Buffer.from(JSON.stringify(v) ?? 'null').toString('base64url')),
  fc.record({ v: fc.constantFrom('meta.k8s.io/v1', 'x'), rv: fc.oneof(fc.integer(), fc.constant(1e300)), start: stringValue.map((s) => s.slice(0, 50)) }).map((v) => Buffer.from(JSON.stringify(v)).toString('base64url')),
);

/** Short watch timeouts in spellings that are, or are not, integers: none of them may leave a watch open. */
export const watchTimeout = fc.constantFrom('1', '0.5', '01', '1.0', '+1', '2');

const param: fc.Arbitrary<[string, string]> = fc.oneof(
  { weight: 3, arbitrary: labelSelector.map((v) => ['labelSelector', v] as [string, string]) },
  { weight: 2, arbitrary: fieldSelector.map((v) => ['fieldSelector', v] as [string, string]) },
  { weight: 2, arbitrary: intText.map((v) => ['limit', v] as [string, string]) },
  { weight: 1, arbitrary: continueToken.map((v) => ['continue', v] as [string, string]) },
  { weight: 2, arbitrary: resourceVersion.map((v) => ['resourceVersion', v] as [string, string]) },
  { weight: 1, arbitrary: fc.constantFrom('NotOlderThan', 'Exact', '', 'bogus', 'exact').map((v) => ['resourceVersionMatch', v] as [string, string]) },
  { weight: 1, arbitrary: intText.map((v) => ['timeoutSeconds', v] as [string, string]) },
  { weight: 1, arbitrary: fc.constantFrom('All', 'all', '', 'bogus').map((v) => ['dryRun', v] as [string, string]) },
  { weight: 1, arbitrary: fc.constantFrom('Strict', 'Warn', 'Ignore', 'strict', '', 'bogus').map((v) => ['fieldValidation', v] as [string, string]) },
  { weight: 1, arbitrary: fc.constantFrom('Orphan', 'Background', 'Foreground', 'orphan', '', 'bogus').map((v) => ['propagationPolicy', v] as [string, string]) },
  { weight: 1, arbitrary: intText.map((v) => ['gracePeriodSeconds', v] as [string, string]) },
  { weight: 2, arbitrary: fc.tuple(fc.constantFrom('watch', 'orphanDependents', 'allowWatchBookmarks', 'sendInitialEvents', 'pretty', 'export', 'exact', 'force'), goBool) },
  { weight: 1, arbitrary: fc.constantFrom('Object', 'Metadata', 'None', '', 'bogus').map((v) => ['includeObject', v] as [string, string]) },
  { weight: 1, arbitrary: stringValue.map((v) => ['fieldManager', v.slice(0, 200)] as [string, string]) },
  { weight: 1, arbitrary: fc.tuple(fc.constantFrom('container', 'follow', 'tailLines', 'sinceSeconds', 'command', 'stdin', 'x', ''), stringValue.map((s) => s.slice(0, 50))) },
);

export interface Query { params: [string, string][]; raw: string }

/** Pairs, encoded; sometimes with raw damage (stray `&`, `=`, bad escapes) appended. */
export const query: fc.Arbitrary<Query> = fc.tuple(fc.array(param, { maxLength: 4 }), fc.oneof({ weight: 6, arbitrary: fc.constant('') }, { weight: 1, arbitrary: fc.constantFrom('&', '&&', '=', '==x', '%', '%zz', '&a', 'a=%', '+', '&watch', '#frag', '?') }))
  .map(([params, raw]) => ({ params, raw }));

/** The query text; a watch (by parameter or /watch/ path) always carries a short timeoutSeconds first, so it ends. */
export function queryText(q: Query, opts: { watch?: boolean } = {}, timeout = '1'): string {
  const params = [...q.params];
  if (opts.watch) params.unshift(['timeoutSeconds', timeout]);
  // The raw damage goes after its own `&`, so it cannot run into (and void) the watch's timeout.
  const text = [...params.map(([k, v]) => `${encode(k)}=${encode(v)}`), ...(q.raw ? [q.raw] : [])].join('&');
  return text ? `?${text}` : '';
}

/** Would the server, or upstream, read this as a watch? Then the request needs a timeout. */
export const isWatch = (p: string, q: Query) => /\/watch(\/|$)/.test(p) || q.params.some(([k]) => k === 'watch') || /watch/.test(q.raw);

// ---- headers

export const accept = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom('application/json') },
  {
    weight: 3, arbitrary: fc.constantFrom(
      'application/json;as=Table;v=v1;g=meta.k8s.io', 'application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json',
      'application/json;as=Table;v=v1beta1;g=meta.k8s.io', 'application/json;as=Table;g=other.io;v=v1', 'application/json; as=Table; v=v1; g=meta.k8s.io',
      'application/json;as=PartialObjectMetadata;v=v1;g=meta.k8s.io', 'application/json;as=PartialObjectMetadataList;v=v1;g=meta.k8s.io',
      'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json', 'application/yaml', 'application/vnd.kubernetes.protobuf',
      'application/vnd.kubernetes.protobuf,application/json', 'application/cbor', '*/*', 'application/*', 'text/html', 'text/plain', '', ';;;', 'application/json;as=',
      'application/json;=x', 'application/json;as=Table;as=Table', ',,,', 'application/json;q=0', 'application/json;q=abc'),
  },
  { weight: 1, arbitrary: stringValue.map((s) => s.slice(0, 200)) },
);

export const bodyContentType = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom('application/json', 'application/yaml') },
  {
    weight: 2, arbitrary: fc.constantFrom('application/json; charset=utf-8', 'application/JSON', 'application/x-yaml', 'text/yaml', 'application/yaml; charset=utf-8',
      'application/vnd.kubernetes.protobuf', 'application/cbor', 'text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data', '', ';', 'application/json-patch+json',
      'application/merge-patch+json', 'application/strategic-merge-patch+json', 'application/apply-patch+yaml', '*/*', 'application/jsonx', 'json'),
  },
  { weight: 1, arbitrary: stringValue.map((s) => s.slice(0, 100)) },
);

/** Headers beyond Accept and Content-Type: impersonation, bogus credentials, encodings, oversize values. */
const headerSets: Record<string, string>[] = [
  { 'Impersonate-User': 'system:anonymous' }, { 'Impersonate-Group': 'system:masters' }, { Authorization: 'Bearer garbage' }, { Authorization: 'Basic Og==' },
  { Authorization: 'Bearer abcdef.0123456789abcdef' }, { 'Content-Encoding': 'gzip' }, { 'Accept-Encoding': 'gzip' }, { 'X-Remote-User': 'admin' },
  { 'If-None-Match': '"x"' }, { 'X-Long': 'x'.repeat(8000) }, { Host: 'evil.example:1' }, { Range: 'bytes=0-1' }, { 'X-Forwarded-For': '::1' },
  { 'User-Agent': '' }, { 'Audit-ID': 'x'.repeat(1000) },
];

export const extraHeaders: fc.Arbitrary<Record<string, string>> = fc.oneof(
  { weight: 6, arbitrary: fc.constant({}) },
  { weight: 1, arbitrary: fc.constantFrom(...headerSets) },
);

export const method = fc.oneof(
  { weight: 10, arbitrary: fc.constantFrom('GET', 'POST', 'PUT', 'PATCH', 'DELETE') },
  { weight: 2, arbitrary: fc.constantFrom('HEAD', 'OPTIONS', 'TRACE', 'PROPFIND', 'FOO', 'LIST', 'WATCH') },
);
