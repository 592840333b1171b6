/**
 * pods/proxy and services/proxy, the pure parts: the `[scheme:]name[:port]`
 * id, the path below `proxy`, where a pod's and a Service's proxy goes
 * (upstream's pod.ResourceLocation and service ResourceLocation), the
 * rewriting of a redirect's Location and of a page's links, and the headers
 * that stay behind.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Endpoints, Pod, Service } from 'kubernetes-types/core/v1.js';
import type { EndpointSlice } from 'kubernetes-types/discovery/v1.js';
import { splitSchemeNamePort } from '../../src/api/scheme-name-port.js';
import { splitProxyPath } from '../../src/apiserver/proxy/path.js';
import { podProxyTarget } from '../../src/apiserver/proxy/pod-location.js';
import { isGlobalUnicast } from '../../src/api/ip-address.js';
import { serviceProxyTarget } from '../../src/apiserver/proxy/service-location.js';
import { dialError, proxiedHeaders, rewriteLocation } from '../../src/apiserver/proxy/transport.js';
import { simulatedNodeRefusal } from '../../src/apiserver/proxy/simulated.js';
import { rewriteHTML } from '../../src/apiserver/proxy/html-rewrite.js';
import { StatusError } from '../../src/api/status.js';
import { resources } from '../../src/api/resources.js';

describe('splitSchemeNamePort (utilnet.SplitSchemeNamePort)', () => {
  const cases: [string, ReturnType<typeof splitSchemeNamePort>][] = [
    ['web', { scheme: '', name: 'web', port: '' }],
    ['web:8080', { scheme: '', name: 'web', port: '8080' }],
    ['web:http', { scheme: '', name: 'web', port: 'http' }],
    ['https:web:443', { scheme: 'https', name: 'web', port: '443' }],
    ['http:web:', { scheme: 'http', name: 'web', port: '' }],
    ['https:web:metrics', { scheme: 'https', name: 'web', port: 'metrics' }],
    ['ftp:web:21', undefined],
    [':8080', undefined],
    ['', undefined],
    ['a:b:c:d', undefined],
  ];
  for (const [id, want] of cases) it(JSON.stringify(id), () => assert.deepEqual(splitSchemeNamePort(id), want));
});

describe('splitProxyPath', () => {
  const cases: [string, ReturnType<typeof splitProxyPath>][] = [
    ['/api/v1/namespaces/default/pods/web:8080/proxy', { prefix: '/api/v1/namespaces/default/pods/web:8080/proxy', path: '' }],
    ['/api/v1/namespaces/default/pods/web:8080/proxy/', { prefix: '/api/v1/namespaces/default/pods/web:8080/proxy', path: '/' }],
    ['/api/v1/namespaces/default/services/https:web:443/proxy/a/b%2Fc/', { prefix: '/api/v1/namespaces/default/services/https:web:443/proxy', path: '/a/b%2Fc/' }],
    ['/api/v1/namespaces/default/pods/web/log', undefined],
  ];
  for (const [p, want] of cases) it(p, () => assert.deepEqual(splitProxyPath(p, 'api'), want));
});

const pod = (over: { ip?: string; nodeName?: string; ports?: { name?: string; containerPort: number }[][] } = {}): Pod => ({
  metadata: { name: 'web', namespace: 'default' },
  spec: {
    nodeName: over.nodeName ?? 'n1',
    containers: (over.ports ?? [[], [{ name: 'http', containerPort: 8080 }, { name: 'admin', containerPort: 9090 }]]).map((ports, i) => ({ name: `c${i}`, image: 'x', ports })),
  },
  status: over.ip === '' ? {} : { podIP: over.ip ?? '10.244.1.5', podIPs: [{ ip: over.ip ?? '10.244.1.5' }] },
});

const statusOf = (fn: () => unknown): { code: number; message: string } => {
  try { fn(); } catch (e) {
    assert.ok(e instanceof StatusError, String(e));
    return { code: e.status.code!, message: e.status.message! };
  }
  assert.fail('no error');
};

describe('podProxyTarget (pod.ResourceLocation)', () => {
  const id = (s: string) => splitSchemeNamePort(s)!;
  it('a port number is used as given, http by default', () => assert.deepEqual(podProxyTarget(pod(), id('web:8000')), { scheme: 'http', host: '10.244.1.5', port: 8000 }));
  it('no port: the first port of the first container that has one', () => assert.deepEqual(podProxyTarget(pod(), id('web')), { scheme: 'http', host: '10.244.1.5', port: 8080 }));
  it('no port and no container port: the scheme\'s default', () => assert.deepEqual(podProxyTarget(pod({ ports: [[]] }), id('https:web:')), { scheme: 'https', host: '10.244.1.5', port: undefined }));
  it('a port name is the container port of that name', () => assert.deepEqual(podProxyTarget(pod(), id('https:web:admin')), { scheme: 'https', host: '10.244.1.5', port: 9090 }));
  it('an unknown port name fails as Go\'s dialer does', () => assert.deepEqual(statusOf(() => podProxyTarget(pod(), id('web:nope'))),
    { code: 503, message: 'error trying to reach service: dial tcp: lookup tcp/nope: unknown port' }));
  it('no pod IP yet: 400 address not allowed', () => assert.deepEqual(statusOf(() => podProxyTarget(pod({ ip: '' }), id('web:80'))), { code: 400, message: 'address not allowed' }));
  it('a loopback pod IP: 400 address not allowed', () => assert.deepEqual(statusOf(() => podProxyTarget(pod({ ip: '127.0.0.1' }), id('web:80'))), { code: 400, message: 'address not allowed' }));
  it('an IPv6 pod', () => assert.deepEqual(podProxyTarget(pod({ ip: 'fd00::5' }), id('web:80')), { scheme: 'http', host: 'fd00::5', port: 80 }));
});

describe('isGlobalUnicast (Go net.IP)', () => {
  const cases: [string, boolean][] = [
    ['10.0.0.1', true], ['192.168.1.1', true], ['0.0.0.0', false], ['127.0.0.1', false], ['169.254.1.1', false], ['224.0.0.1', false],
    ['255.255.255.255', false], ['fd00::1', true], ['2001:db8::1', true], ['::1', false], ['::', false], ['fe80::1', false], ['ff02::1', false],
    ['::ffff:127.0.0.1', false], ['', false], ['web', false],
    // The same addresses spelled otherwise: Go parses them to the same bytes (issue #19).
    ['0::1', false], ['0:0:0:0:0:0:0:1', false], ['::ffff:7f00:1', false], ['::ffff:a9fe:1', false], ['0::', false], ['FE80::1', false],
    ['::ffff:a00:1', true], ['0177.0.0.1', false], ['127.000.000.001', false],
  ];
  for (const [ip, want] of cases) it(ip || '(empty)', () => assert.equal(isGlobalUnicast(ip), want));
});

describe('serviceProxyTarget (service ResourceLocation)', () => {
  const service: Service = {
    metadata: { name: 'web', namespace: 'default' },
    spec: { ports: [{ name: 'http', port: 80, targetPort: 'http' }, { name: 'admin', port: 9000, targetPort: 9090 }] },
  };
  const slice = (ready: boolean | undefined, ip: string): EndpointSlice => ({
    addressType: 'IPv4', metadata: { name: `web-${ip}`, labels: { 'kubernetes.io/service-name': 'web' } },
    ports: [{ name: 'http', port: 8080 }, { name: 'admin', port: 9090 }],
    endpoints: [{ addresses: [ip], conditions: ready === undefined ? {} : { ready }, nodeName: 'n1' }],
  });
  const sources = (slices: EndpointSlice[], endpoints?: Endpoints) => ({
    service: (ns: string, name: string) => (ns === 'default' && name === 'web' ? service : undefined),
    endpointSlices: () => slices,
    endpoints: () => endpoints,
  });
  const at = (s: ReturnType<typeof sources>, raw: string, random = () => 0) => serviceProxyTarget(s, 'default', splitSchemeNamePort(raw)!, raw, random);

  it('a port number maps to its port name, then to the endpoint\'s port', () =>
    assert.deepEqual(at(sources([slice(true, '10.244.1.5')]), 'web:80'), { scheme: 'http', host: '10.244.1.5', port: 8080, nodeName: 'n1', podName: undefined }));
  it('a port name, with a scheme', () =>
    assert.deepEqual(at(sources([slice(true, '10.244.1.5')]), 'https:web:admin'), { scheme: 'https', host: '10.244.1.5', port: 9090, nodeName: 'n1', podName: undefined }));
  it('one of the ready endpoints at random; unknown readiness counts as ready', () => {
    const s = sources([slice(false, '10.244.1.4'), slice(true, '10.244.1.5'), slice(undefined, '10.244.1.6')]);
    assert.equal(at(s, 'web:http', () => 0).host, '10.244.1.5');
    assert.equal(at(s, 'web:http', () => 0.99).host, '10.244.1.6');
  });
  it('the Endpoints object when there is no slice', () => {
    const eps: Endpoints = { metadata: { name: 'web' }, subsets: [{ addresses: [{ ip: '10.244.2.2', targetRef: { kind: 'Pod', name: 'web-1' } }], ports: [{ name: 'http', port: 8081 }] }] };
    assert.deepEqual(at(sources([], eps), 'web:http'), { scheme: 'http', host: '10.244.2.2', port: 8081, nodeName: undefined, podName: 'web-1' });
  });
  it('no such Service: 404', () => assert.deepEqual(statusOf(() => at(sources([]), 'nope:80')), { code: 404, message: 'services "nope" not found' }));
  it('a port number the Service does not have: 503', () =>
    assert.deepEqual(statusOf(() => at(sources([slice(true, '10.244.1.5')]), 'web:81')), { code: 503, message: 'no service port 81 found for service "web"' }));
  it('no ready endpoints: 503', () =>
    assert.deepEqual(statusOf(() => at(sources([slice(false, '10.244.1.5')]), 'web:80')), { code: 503, message: 'no endpoints available for service "web"' }));
  it('an endpoint on loopback or link-local is skipped, however it is spelled (issue #19)', () => {
    for (const ip of ['127.0.0.1', '169.254.169.254']) {
      assert.deepEqual(statusOf(() => at(sources([slice(true, ip)]), 'web:80')), { code: 503, message: 'no endpoints available for service "web:80"' });
    }
    const eps: Endpoints = { metadata: { name: 'web' }, subsets: [{ addresses: [{ ip: '0::1' }, { ip: '10.244.2.2' }], ports: [{ name: 'http', port: 8081 }] }] };
    assert.equal(at(sources([], eps), 'web:http', () => 0).host, '10.244.2.2');
  });
  it('no endpoint serves the port name: 503 naming the whole id', () =>
    assert.deepEqual(statusOf(() => at(sources([slice(true, '10.244.1.5')]), 'http:web:metrics')), { code: 503, message: 'no endpoints available for service "http:web:metrics"' }));
});

describe('the answer and the request headers', () => {
  const target = { scheme: 'http' as const, host: '10.244.1.5', port: 8080 };
  const prefix = '/api/v1/namespaces/default/pods/web:8080/proxy';
  const cases: [string, string][] = [
    ['/login', `${prefix}/login`],
    ['/login?next=/', `${prefix}/login?next=/`],
    ['http://10.244.1.5:8080/a/', `${prefix}/a/`],
    [`${prefix}/b`, `${prefix}/b`],
    ['https://example.com/x', 'https://example.com/x'],
    ['relative/path', 'relative/path'],
  ];
  for (const [loc, want] of cases) it(`Location ${loc}`, () => assert.equal(rewriteLocation(loc, target, prefix, '127.0.0.1:6443'), want));

  it('hop-by-hop headers, those Connection names, credentials and impersonation stay behind', () => {
    const out = proxiedHeaders({ connection: 'keep-alive, x-hop', 'x-hop': '1', 'keep-alive': 'timeout=5', authorization: 'Bearer t', 'impersonate-user': 'bob', accept: 'text/plain', host: 'h' },
      new Set(['connection', 'keep-alive', 'authorization']));
    assert.deepEqual(out, { accept: 'text/plain', host: 'h' });
  });
  it('dial errors in Go\'s words', () => {
    assert.equal(dialError('10.244.1.5', 8080, Object.assign(new Error('x'), { code: 'ECONNREFUSED' })), 'dial tcp 10.244.1.5:8080: connect: connection refused');
    assert.equal(dialError('10.244.1.5', 8080, Object.assign(new Error('x'), { code: 'ETIMEDOUT' })), 'dial tcp 10.244.1.5:8080: i/o timeout');
  });
});

describe('simulated nodes and discovery', () => {
  it('a simulated node: 503 naming the node and the way to a real one', () => {
    const refusal = simulatedNodeRefusal({ metadata: { name: 'worker-1', annotations: { 'k8ts.io/simulated': 'true' } } }, '10.244.1.5:8080');
    assert.equal(refusal?.status.code, 503);
    assert.match(refusal!.status.message!, /^error trying to reach service: node "worker-1" is simulated by k8ts and runs no processes, so nothing listens on 10\.244\.1\.5:8080; for a node that runs containers start k8ts with "sudo npm start -- --runtime cri"$/);
  });
  it('a real node: no refusal', () => assert.equal(simulatedNodeRefusal({ metadata: { name: 'n1' } }, '10.244.1.5:8080'), undefined));
  it('pods/proxy and services/proxy in discovery with upstream\'s verbs', () => {
    for (const plural of ['pods', 'services', 'nodes']) {
      const sub = resources.find((r) => r.group === '' && r.plural === plural)!.subresources.find((s) => s.name === 'proxy');
      assert.deepEqual(sub?.verbs, ['create', 'delete', 'get', 'patch', 'update'], plural);
    }
  });
});

describe('rewriteHTML (upstream\'s link rewriting of pages through the proxy)', () => {
  const prefix = '/api/v1/namespaces/default/services/web:http/proxy';
  const target = { scheme: 'http' as const, host: '10.244.1.5', port: 8080 };
  const rw = (html: string) => rewriteHTML(html, (u) => rewriteLocation(u, target, prefix, '127.0.0.1:8001'));
  const cases: [string, string, string][] = [
    ['a root path', '<a href="/docs/">docs</a>', `<a href="${prefix}/docs/">docs</a>`],
    ['single quotes, unquoted, odd case', `<IMG SRC='/i.png' alt=x><link rel=stylesheet href=/s.css>`, `<IMG SRC='${prefix}/i.png' alt=x><link rel=stylesheet href=${prefix}/s.css>`],
    ['a URL on the pod itself', '<form action="http://10.244.1.5:8080/post" method=post>', `<form action="${prefix}/post" method=post>`],
    ['relative paths, fragments, other hosts and schemes stay', '<a href="x/y">1</a><a href="#top">2</a><a href="https://example.com/">3</a><a href="mailto:a@b">4</a>',
      '<a href="x/y">1</a><a href="#top">2</a><a href="https://example.com/">3</a><a href="mailto:a@b">4</a>'],
    ['attributes not listed stay', '<a title="/t" href="/h" data-x="/d">', `<a title="/t" href="${prefix}/h" data-x="/d">`],
    ['comments, script and style text stay', '<!-- <a href="/c"> --><script src="/app.js">var s = "<a href=\'/s\'>";</script><style>a{background:url(/b.png)}</style>',
      `<!-- <a href="/c"> --><script src="${prefix}/app.js">var s = "<a href='/s'>";</script><style>a{background:url(/b.png)}</style>`],
    ['a lone < and text', 'a < b and <3 <p>x</p>', 'a < b and <3 <p>x</p>'],
    ['a path already below the proxy stays', `<a href="${prefix}/x">`, `<a href="${prefix}/x">`],
  ];
  for (const [what, html, want] of cases) it(what, () => assert.equal(rw(html), want));
});
