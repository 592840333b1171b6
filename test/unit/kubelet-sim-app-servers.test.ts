/**
 * The application servers of the probes, Guestbook and WordPress pages on
 * simulated nodes (runtime/simulated/app-servers.ts and the files it
 * names), asked over in-memory connections as port-forward asks them, and
 * httpGet/tcpSocket probes answered by them (server-probe.ts) under the
 * agent's prober on a FakeTimers clock.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import type { Duplex } from 'node:stream';
import type { Container, Pod, Probe } from 'kubernetes-types/core/v1.js';
import { containerListener } from '../../src/kubelet/runtime/simulated/app-servers.js';
import { connectListener, type ListenerContext } from '../../src/kubelet/runtime/simulated/listeners.js';
import { goDuration } from '../../src/kubelet/runtime/simulated/agnhost.js';
import { goNow } from '../../src/kubelet/runtime/simulated/agnhost-netexec.js';
import { encodeCommand, parseValue, redisCall, redisStartLog } from '../../src/kubelet/runtime/simulated/redis.js';
import { normalizeImage } from '../../src/kubelet/runtime/simulated/images.js';
import { SimulatedRuntime } from '../../src/kubelet/runtime/simulated/runtime.js';
import { FakeTimers } from '../../src/kubelet/timers.js';
import { ProbeManager } from '../../src/kubelet/prober/manager.js';
import { silentLogger } from '../../src/util/log.js';
import type { EventRecorder } from '../../src/client/index.js';

const t0 = new Date('2026-01-01T00:00:00Z');
const ctx = (over: Partial<ListenerContext> = {}): ListenerContext => ({ hostname: 'pod', env: new Map(), remoteAddress: '127.0.0.1', startedAt: t0, now: () => t0, memory: new Map(), ...over });

function connect(spec: Container, c: ListenerContext): Duplex {
  const listener = containerListener(spec);
  assert.ok(listener, `a listener for ${spec.image}`);
  return connectListener(listener, c)!;
}

function get(spec: Container, c: ListenerContext, path: string): Promise<{ code: number; headers: http.IncomingHttpHeaders; body: string }> {
  return new Promise((resolve, reject) => {
    http.get({ path, host: 'pod', createConnection: () => connect(spec, c) } as http.RequestOptions, (res) => {
      let body = '';
      res.on('data', (d: Buffer) => { body += d.toString(); });
      res.on('end', () => resolve({ code: res.statusCode!, headers: res.headers, body }));
    }).on('error', reject);
  });
}

describe('agnhost netexec (the Hello Minikube server)', () => {
  // The tutorial's command: kubectl create deployment hello-node --image=...agnhost:2.53 -- /agnhost netexec --http-port=8080
  const netexec: Container = { name: 'agnhost', image: 'registry.k8s.io/e2e-test-images/agnhost:2.53', command: ['/agnhost', 'netexec', '--http-port=8080'] };

  it('listens on --http-port, in either flag form, and logs its start as klog renders Go\'s log', () => {
    assert.deepEqual(containerListener(netexec)?.ports(new Map()), [8080]);
    assert.deepEqual(containerListener({ ...netexec, command: ['/agnhost', 'netexec', '--http-port', '9090'] })?.ports(new Map()), [9090]);
    assert.deepEqual(containerListener({ name: 'a', image: netexec.image, args: ['netexec'] })?.ports(new Map()), [8080]);
    const log = containerListener(netexec)!.startLog!(new Date('2026-09-11T09:19:26.677Z'));
    assert.equal(log, 'I0911 09:19:26.677397       1 log.go:195] Started HTTP server on port 8080\n'
      + 'I0911 09:19:26.677586       1 log.go:195] Started UDP server on port  8081\n');
    const noUdp = containerListener({ ...netexec, command: [...netexec.command!, '--udp-port=-1'] })!.startLog!(t0);
    assert.equal(noUdp.split('\n').filter(Boolean).length, 1);
  });

  it('answers /hostname, /echo, /clientip, /healthz, /redirect and / as the Go server, and logs each request', async () => {
    const lines: string[] = [];
    const stdout = { startedAt: t0, now: () => t0, nextRequest: () => 1, write: (t: string) => { lines.push(t); } };
    const c = ctx({ hostname: 'hello-node-5f76cf6ccf-br9b5', stdout });
    assert.deepEqual(await get(netexec, c, '/hostname').then((r) => [r.code, r.body]), [200, 'hello-node-5f76cf6ccf-br9b5']);
    assert.deepEqual(await get(netexec, c, '/echo?msg=hello&code=418').then((r) => [r.code, r.body]), [418, 'hello']);
    assert.match((await get(netexec, c, '/clientip')).body, /^127\.0\.0\.1:\d+$/);
    assert.deepEqual(await get(netexec, c, '/healthz').then((r) => [r.code, r.body]), [200, '']);
    const off = await get({ ...netexec, command: [...netexec.command!, '--udp-port=-1'] }, c, '/healthz');
    assert.equal(off.code, 412);
    const r = await get(netexec, c, '/redirect?location=/echo%3Fmsg%3Dfoobar&code=307');
    assert.deepEqual([r.code, r.headers.location], [307, '/echo?msg=foobar']);
    for (const path of ['/', '/anything']) assert.match((await get(netexec, c, path)).body, /^NOW: 2026-01-01 00:00:00(\.\d+)? \+0000 UTC m=\+0\.\d{9}$/);
    assert.equal((await get(netexec, c, '/shell?cmd=ls')).code, 501);
    assert.equal(lines[0], 'I0101 00:00:00.000000       1 log.go:195] GET /hostname\n');
    assert.ok(lines.includes('I0101 00:00:00.000000       1 log.go:195] GET /echo?msg=hello&code=418\n'));
    assert.equal(lines.filter((l) => l.endsWith('] GET /\n')).length, 2);
  });

  it('prints time.Now() as Go\'s %v: trailing zeros of the nanoseconds dropped, and the monotonic reading', () => {
    assert.equal(goNow(new Date('2026-12-06T20:02:37.270Z'), new Date('2026-12-06T20:02:25.000Z'), 0), '2026-12-06 20:02:37.27 +0000 UTC m=+12.270000000');
    assert.equal(goNow(new Date('2026-12-06T20:02:37.000Z'), new Date('2026-12-06T20:02:37.000Z'), 0), '2026-12-06 20:02:37 +0000 UTC m=+0.000000000');
    assert.equal(goNow(new Date('2026-12-06T20:02:37.274Z'), new Date('2026-12-06T20:02:37.000Z'), 778123), '2026-12-06 20:02:37.274778123 +0000 UTC m=+0.274778123');
  });
});

describe('agnhost liveness and goproxy', () => {
  const agnhost: Container = { name: 'liveness', image: 'registry.k8s.io/e2e-test-images/agnhost:2.40', args: ['liveness'] };
  const at = (ms: number) => ctx({ now: () => new Date(t0.getTime() + ms) });

  it('/healthz answers 200 ok up to 10 s of uptime, then 500 with the seconds', async () => {
    const table: [number, number, string][] = [[0, 200, 'ok'], [9_999, 200, 'ok'], [10_000, 200, 'ok'], [10_500, 500, 'error: 10.5'], [61_250, 500, 'error: 61.25']];
    for (const [ms, code, body] of table) assert.deepEqual(await get(agnhost, at(ms), '/healthz').then((r) => [r.code, r.body]), [code, body], `${ms} ms`);
  });

  it('/started is the uptime as Go prints a Duration; /redirect redirects; other paths are Go\'s 404', async () => {
    assert.equal((await get(agnhost, at(3_250), '/started')).body, '3.25s');
    const r = await get(agnhost, at(0), '/redirect?loc=%2Fhealthz');
    assert.deepEqual([r.code, r.headers.location], [302, '/healthz']);
    assert.deepEqual(await get(agnhost, at(0), '/nope').then((x) => [x.code, x.body]), [404, '404 page not found\n']);
  });

  it('runs as the liveness and netexec subcommands only; goproxy answers a non-proxy request with its 500', async () => {
    assert.equal(containerListener({ name: 'x', image: 'registry.k8s.io/e2e-test-images/agnhost:2.40', args: ['porter'] }), undefined);
    assert.equal(containerListener({ name: 'x', image: 'registry.k8s.io/e2e-test-images/agnhost:2.40', args: ['netexec', '--http-port=eighty'] }), undefined);
    assert.equal(containerListener({ name: 'x', image: 'registry.k8s.io/e2e-test-images/agnhost:2.40', command: ['/agnhost', 'liveness'] })?.ports(new Map())[0], 8080);
    const r = await get({ name: 'goproxy', image: 'registry.k8s.io/goproxy:0.1' }, ctx(), '/');
    assert.deepEqual([r.code, r.body], [500, 'This is a proxy server. Does not respond to non-proxy requests.\n']);
  });

  it('goDuration prints as Go\'s time.Duration.String', () => {
    const table: [number, string][] = [[0, '0s'], [0.5, '500µs'], [850, '850ms'], [5_250, '5.25s'], [90_000, '1m30s'], [7_201_000, '2h0m1s']];
    for (const [ms, want] of table) assert.equal(goDuration(ms), want);
  });
});

describe('redis, the guestbook frontend and WordPress', () => {
  it('parses RESP arrays and inline commands, and waits for the rest of a partial one', () => {
    assert.deepEqual(parseValue(Buffer.from(encodeCommand(['SET', 'k', 'v'])))?.value, { array: [{ bulk: 'SET' }, { bulk: 'k' }, { bulk: 'v' }] });
    assert.deepEqual(parseValue(Buffer.from('PING\r\n'))?.value, { array: [{ bulk: 'PING' }] });
    assert.equal(parseValue(Buffer.from('*2\r\n$3\r\nGET\r\n$1\r\n')), undefined);
  });

  const leader: Container = { name: 'leader', image: 'docker.io/redis:6.0.5' };
  const follower: Container = { name: 'follower', image: 'us-docker.pkg.dev/google-samples/containers/gke/gb-redis-follower:v2' };

  it('a leader keeps keys in its instance\'s memory; a follower refuses writes and reads the leader\'s', async () => {
    const leaderCtx = ctx();
    const call = (spec: Container, c: ListenerContext, args: string[]) => redisCall(connect(spec, c), args);
    assert.deepEqual(await call(leader, leaderCtx, ['PING']), { simple: 'PONG' });
    assert.deepEqual(await call(leader, leaderCtx, ['SET', 'messages', ',a']), { simple: 'OK' });
    assert.deepEqual(await call(leader, leaderCtx, ['APPEND', 'messages', ',b']), { integer: 4 });
    assert.deepEqual(await call(leader, leaderCtx, ['GET', 'messages']), { bulk: ',a,b' });
    assert.deepEqual(await call(leader, ctx(), ['GET', 'messages']), { bulk: null }, 'another instance starts empty');
    assert.deepEqual(await call(leader, leaderCtx, ['FLY', 'x']), { error: 'ERR unknown command `FLY`, with args beginning with: `x`, ' });
    const followerCtx = ctx({ connect: async (host, port) => (host === 'redis-leader' && port === 6379 ? connect(leader, leaderCtx) : undefined) });
    assert.deepEqual(await call(follower, followerCtx, ['GET', 'messages']), { bulk: ',a,b' });
    assert.deepEqual(await call(follower, followerCtx, ['SET', 'messages', 'x']), { error: "READONLY You can't write against a read only replica." });
    assert.deepEqual(await call(follower, ctx(), ['GET', 'messages']), { bulk: null }, 'no leader reached: no keys');
  });

  it('redis-server\'s start log', () => {
    const log = redisStartLog('6.0.5', new Date('2026-12-05T05:21:18.884Z'));
    assert.match(log, /^1:C 05 Dec 2026 05:21:18\.884 # oO0OoO0OoO0Oo Redis is starting oO0OoO0OoO0Oo\n/);
    assert.match(log, /\n1:M 05 Dec 2026 05:21:18\.884 \* Ready to accept connections\n$/);
    assert.equal(normalizeImage('docker.io/redis:6.0.5'), 'docker.io/library/redis:6.0.5');
  });

  it('gb-frontend: the page, guestbook.php set through redis-leader and get through redis-follower, and a redis not reached', async () => {
    const frontend: Container = { name: 'php-redis', image: 'us-docker.pkg.dev/google-samples/containers/gke/gb-frontend:v5', env: [{ name: 'GET_HOSTS_FROM', value: 'dns' }] };
    const leaderCtx = ctx();
    const followerCtx = ctx({ connect: async () => connect(leader, leaderCtx) });
    const dialed: string[] = [];
    const c = ctx({
      env: new Map([['GET_HOSTS_FROM', 'dns']]),
      connect: async (host) => { dialed.push(host); return host === 'redis-leader' ? connect(leader, leaderCtx) : host === 'redis-follower' ? connect(follower, followerCtx) : undefined; },
    });
    assert.match((await get(frontend, c, '/')).body, /<title>Guestbook<\/title>/);
    assert.equal((await get(frontend, c, '/guestbook.php?cmd=set&key=messages&value=,hi')).body, '{"message": "Updated"}');
    assert.equal((await get(frontend, c, '/guestbook.php?cmd=get&key=messages')).body, '{"data": ",hi"}');
    assert.deepEqual(dialed, ['redis-leader', 'redis-follower']);
    const alone = await get(frontend, ctx({ connect: async () => undefined }), '/guestbook.php?cmd=get&key=messages');
    assert.match(alone.body, /Uncaught Predis\\Connection\\ConnectionException: php_network_getaddresses: getaddrinfo failed: Name or service not known \[tcp:\/\/redis-follower:6379\]/);
    assert.equal((await get(frontend, c, '/nope')).code, 404);
  });

  it('WordPress redirects to its installer while its database greets, else says the connection failed', async () => {
    const wordpress: Container = { name: 'wordpress', image: 'wordpress:6.2.1-apache' };
    const mysql: Container = { name: 'mysql', image: 'mysql:8.0' };
    const dbHosts: string[] = [];
    const withDB = ctx({ env: new Map([['WORDPRESS_DB_HOST', 'wordpress-mysql']]), connect: async (host, port) => { dbHosts.push(`${host}:${port}`); return connect(mysql, ctx()); } });
    const r = await get(wordpress, withDB, '/');
    assert.deepEqual([r.code, r.headers.location], [302, 'http://pod:80/wp-admin/install.php'], 'the Host the request named');
    assert.match((await get(wordpress, withDB, '/wp-admin/install.php')).body, /<title>WordPress &rsaquo; Installation<\/title>/);
    assert.deepEqual(dbHosts, ['wordpress-mysql:3306', 'wordpress-mysql:3306']);
    const noDB = await get(wordpress, ctx({ connect: async () => undefined }), '/');
    assert.equal(noDB.code, 500);
    assert.match(noDB.body, /Error establishing a database connection/);
  });
});

let seq = 0;
function pod(containers: Container[], annotations: Record<string, string> = {}): Pod {
  seq++;
  return { metadata: { name: `app-${seq}`, namespace: 'default', uid: `app-uid-${seq}`, annotations }, spec: { nodeName: 'n', containers }, status: { phase: 'Pending' } };
}

function probed() {
  const timers = new FakeTimers();
  const rt = new SimulatedRuntime({ podCIDR: '10.244.9.0/24', hostIP: '172.16.0.19', timers });
  const events: string[] = [];
  const recorder = { event: (_ref: unknown, _type: string, reason: string, message: string) => { events.push(`${reason}: ${message}`); } } as unknown as EventRecorder;
  const prober = new ProbeManager({ runtime: rt, timers, logger: silentLogger, recorder, onChange: () => undefined });
  const flush = async () => { for (let i = 0; i < 10; i++) await new Promise((r) => setImmediate(r)); };
  return {
    events,
    run(p: Pod) { rt.syncPod(p); prober.sync(p); },
    async advance(ms: number) { await flush(); for (let left = ms; left > 0; left -= 100) { timers.advance(Math.min(100, left)); await flush(); } },
    container: (p: Pod) => prober.apply(p.metadata!.uid!, rt.status(p.metadata!.uid!))!.containers[0]!,
    ip: (p: Pod) => rt.status(p.metadata!.uid!)!.sandbox!.ip!,
    close() { prober.close(); void rt.close(); },
  };
}

describe('httpGet and tcpSocket probes reach the simulated servers', () => {
  it('http-liveness: 200 until 10 s, then three 500s, Killing, and the new instance is healthy again', async () => {
    const h = probed();
    const livenessProbe: Probe = { httpGet: { path: '/healthz', port: 8080, httpHeaders: [{ name: 'Custom-Header', value: 'Awesome' }] }, initialDelaySeconds: 3, periodSeconds: 3 };
    const p = pod([{ name: 'liveness', image: 'registry.k8s.io/e2e-test-images/agnhost:2.40', args: ['liveness'], livenessProbe }]);
    h.run(p);
    await h.advance(11_000);
    assert.deepEqual(h.events, [], 'probes at 3, 6 and 9 s succeed');
    await h.advance(7_500);
    const failed = 'Unhealthy: Liveness probe failed: HTTP probe failed with statuscode: 500';
    assert.deepEqual(h.events, [failed, failed, failed, 'Killing: Container liveness failed liveness probe, will be restarted']);
    assert.equal(h.container(p).restartCount, 1);
    h.close();
  });

  it('a port nothing listens on is refused with the kubelet\'s words; a named port and a pod the simulator does not know keep working', async () => {
    const h = probed();
    const readiness = (handler: Partial<Probe>): Probe => ({ ...handler, periodSeconds: 1, failureThreshold: 1 });
    const nginx = pod([{ name: 'nginx', image: 'nginx:1.27', readinessProbe: readiness({ httpGet: { path: '/', port: 8080 } }) }]);
    const goproxy = pod([{ name: 'goproxy', image: 'registry.k8s.io/goproxy:0.1', readinessProbe: readiness({ tcpSocket: { port: 8081 } }) }]);
    const named = pod([{ name: 'web', image: 'nginx', ports: [{ name: 'http', containerPort: 80 }], readinessProbe: readiness({ httpGet: { path: '/', port: 'http' } }) }]);
    const unknown = pod([{ name: 'app', image: 'example.com/app:1', readinessProbe: readiness({ httpGet: { path: '/healthz', port: 8080 } }) }]);
    const steered = pod([{ name: 'nginx', image: 'nginx', readinessProbe: readiness({ httpGet: { path: '/', port: 8080 } }) }], { 'k8ts.io/sim-liveness-fail': '1h' });
    // A sidecar the simulator cannot see into might listen on 8080: the probe keeps the simulated outcome.
    const sidecar = pod([{ name: 'nginx', image: 'nginx', readinessProbe: readiness({ httpGet: { path: '/', port: 8080 } }) }]);
    sidecar.spec!.initContainers = [{ name: 'proxy', image: 'example.com/proxy:1', restartPolicy: 'Always' }];
    for (const p of [nginx, goproxy, named, unknown, steered, sidecar]) h.run(p);
    await h.advance(2_000);
    assert.ok(h.events.includes(`Unhealthy: Readiness probe failed: Get "http://${h.ip(nginx)}:8080/": dial tcp ${h.ip(nginx)}:8080: connect: connection refused`), h.events.join('\n'));
    assert.ok(h.events.includes(`Unhealthy: Readiness probe failed: dial tcp ${h.ip(goproxy)}:8081: connect: connection refused`), h.events.join('\n'));
    assert.deepEqual([nginx, goproxy, named, unknown, steered, sidecar].map((p) => h.container(p).ready), [false, false, true, true, true, true]);
    h.close();
  });
});
