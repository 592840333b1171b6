import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { once } from 'node:events';
import type { IncomingMessage } from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import tls, { type TLSSocket } from 'node:tls';
import { promisify } from 'node:util';
import {
  createAuthenticator, parseCSV, parseTokenFile, serverTLSOptions, bearerTokenFromHeader, webSocketBearerToken,
  BEARER_PROTOCOL_PREFIX, type UserInfo,
} from '../../src/apiserver/auth/index.js';
import { buildKubeconfig, createCA, ensureClusterPKI, issueCertificate, writeKubeconfig, type ClusterPKI } from '../../src/pki/index.js';

const run = promisify(execFile);

let dir: string;
let pki: ClusterPKI;
let server: https.Server;
let port: number;
/** How often the server read a peer certificate, per connection. */
const peerCertificateReads = new Map<TLSSocket, number>();

const TOKEN_FILE = [
  'static-token-1,alice,uid-alice,"dev,ops"',
  '',
  'static-token-2,bob,uid-bob',
].join('\n');

async function bootstrapLookup(token: string): Promise<UserInfo | undefined> {
  await Promise.resolve();
  return token === 'abcdef.0123456789abcdef'
    ? { name: 'system:bootstrap:abcdef', groups: ['system:bootstrappers', 'system:bootstrappers:kubeadm:default-node-token'] }
    : undefined;
}

before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'k8ts-authn-'));
  pki = await ensureClusterPKI(dir, { hosts: [] });
  const tokenFile = join(dir, 'tokens.csv');
  await writeFile(tokenFile, TOKEN_FILE);
  const authenticate = createAuthenticator({ clientCAPem: pki.caCertPem, tokenFile, tokenAuthenticators: [bootstrapLookup] });
  const respond = async (req: IncomingMessage) => JSON.stringify({
    user: (await authenticate(req)) ?? null,
    alpn: (req.socket as TLSSocket).alpnProtocol,
    protocols: req.headers['sec-websocket-protocol'] ?? null,
  });
  server = https.createServer(serverTLSOptions(pki), (req, res) => {
    void respond(req).then((body) => res.setHeader('content-type', 'application/json').end(body));
  });
  server.on('upgrade', (req: IncomingMessage, socket: TLSSocket) => {
    void respond(req).then((body) => socket.end(`HTTP/1.1 101 Switching Protocols\r\nconnection: upgrade\r\nupgrade: websocket\r\nx-result: ${body}\r\n\r\n`));
  });
  server.on('secureConnection', (socket: TLSSocket) => {
    const read = socket.getPeerX509Certificate.bind(socket);
    socket.getPeerX509Certificate = () => {
      peerCertificateReads.set(socket, (peerCertificateReads.get(socket) ?? 0) + 1);
      return read();
    };
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  port = (server.address() as AddressInfo).port;
});

after(async () => {
  server.closeAllConnections();
  server.close();
  await rm(dir, { recursive: true, force: true });
});

interface Answer { user: UserInfo | null; alpn: string | false; protocols: string | null }

function request(opts: https.RequestOptions): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = https.request({ host: '127.0.0.1', port, path: '/whoami', ca: pki.caCertPem, servername: 'localhost', ...opts }, (res) => {
      let body = '';
      res.setEncoding('utf8').on('data', (c: string) => { body += c; }).on('end', () => resolve(JSON.parse(body) as Answer));
    });
    req.on('error', reject).end();
  });
}

const authenticated = 'system:authenticated';

test('authn: client certificate -> CN as user, O as groups', async () => {
  const answer = await request({ cert: pki.adminCertPem, key: pki.adminKeyPem });
  assert.deepEqual(answer.user, { name: 'kubernetes-admin', groups: ['system:masters', authenticated] });
});

test('authn: bearer tokens from the token file and from the token authenticators', async () => {
  const bearer = (token: string) => request({ headers: { authorization: `Bearer ${token}` } });
  assert.deepEqual((await bearer('static-token-1')).user, { name: 'alice', uid: 'uid-alice', groups: ['dev', 'ops', authenticated] });
  assert.deepEqual((await bearer('static-token-2')).user, { name: 'bob', uid: 'uid-bob', groups: [authenticated] });
  assert.deepEqual((await bearer('abcdef.0123456789abcdef')).user, {
    name: 'system:bootstrap:abcdef', groups: ['system:bootstrappers', 'system:bootstrappers:kubeadm:default-node-token', authenticated],
  });
  assert.equal((await bearer('wrong')).user, null);
});

test('authn: nothing, a foreign CA, or a serving-only certificate -> unauthenticated', async () => {
  assert.equal((await request({})).user, null);
  const foreign = await createCA({ commonName: 'other', days: 1 });
  const mallory = await issueCertificate({ ca: foreign, commonName: 'kubernetes-admin', organizations: ['system:masters'], usages: ['client'], days: 1 });
  assert.equal((await request({ cert: mallory.certPem, key: mallory.keyPem })).user, null);
  const servingOnly = await issueCertificate({ ca: { certPem: pki.caCertPem, keyPem: pki.caKeyPem }, commonName: 'eve', usages: ['server'], days: 1 });
  assert.equal((await request({ cert: servingOnly.certPem, key: servingOnly.keyPem })).user, null);
});

test('authn: a valid certificate wins over a bad token; a bad certificate falls through to the token', async () => {
  const both = await request({ cert: pki.adminCertPem, key: pki.adminKeyPem, headers: { authorization: 'Bearer wrong' } });
  assert.equal(both.user?.name, 'kubernetes-admin');
  const foreign = await createCA({ commonName: 'other', days: 1 });
  const bad = await issueCertificate({ ca: foreign, commonName: 'x', usages: ['client'], days: 1 });
  const viaToken = await request({ cert: bad.certPem, key: bad.keyPem, headers: { authorization: 'Bearer static-token-2' } });
  assert.equal(viaToken.user?.name, 'bob');
});

test('authn: a keep-alive connection reads its peer certificate once', async () => {
  const agent = new https.Agent({ keepAlive: true, maxSockets: 1 });
  try {
    for (let i = 0; i < 3; i++) {
      const answer = await request({ agent, cert: pki.adminCertPem, key: pki.adminKeyPem });
      assert.equal(answer.user?.name, 'kubernetes-admin');
    }
  } finally {
    agent.destroy();
  }
  const reads = [...peerCertificateReads.values()];
  assert.ok(reads.length >= 1 && reads.every((n) => n === 1), `reads per connection: ${reads}`);
});

test('authn: ALPN offers http/1.1 only, so a client preferring h2 gets http/1.1', async () => {
  const socket = tls.connect({ host: '127.0.0.1', port, ca: pki.caCertPem, servername: 'localhost', ALPNProtocols: ['h2', 'http/1.1'] });
  await once(socket, 'secureConnect');
  assert.equal(socket.alpnProtocol, 'http/1.1');
  assert.equal(socket.authorized, true, 'the serving certificate verifies for "localhost"');
  socket.destroy();
});

test('authn: bearer token in a websocket subprotocol; the token protocol is removed', async () => {
  const encoded = Buffer.from('static-token-1').toString('base64url');
  const req = https.request({
    host: '127.0.0.1', port, path: '/exec', ca: pki.caCertPem, servername: 'localhost',
    headers: { connection: 'Upgrade', upgrade: 'websocket', 'sec-websocket-protocol': `${BEARER_PROTOCOL_PREFIX}${encoded}, v5.channel.k8s.io` },
  });
  req.end();
  const [res, socket] = await once(req, 'upgrade') as [IncomingMessage, TLSSocket];
  socket.destroy();
  const answer = JSON.parse(res.headers['x-result'] as string) as Answer;
  assert.equal(answer.user?.name, 'alice');
  assert.equal(answer.protocols, 'v5.channel.k8s.io');
});

/** A stand-in request for the header-parsing rules. */
function fakeRequest(headers: Record<string, string>): IncomingMessage {
  return { headers, socket: {} } as unknown as IncomingMessage;
}

test('bearerTokenFromHeader: upstream bearertoken rules', () => {
  const cases: [string | undefined, string | undefined][] = [
    ['Bearer abc', 'abc'], ['bearer abc', 'abc'], ['  Bearer abc  ', 'abc'], ['Bearer abc extra', 'abc'],
    ['Basic abc', undefined], ['Bearer', undefined], ['Bearer  abc', undefined], [undefined, undefined],
  ];
  for (const [header, want] of cases) {
    assert.equal(bearerTokenFromHeader(fakeRequest(header === undefined ? {} : { authorization: header })), want, String(header));
  }
});

test('webSocketBearerToken: upstream websocket protocol rules', () => {
  const ws = (protocols: string, extra: Record<string, string> = {}) =>
    webSocketBearerToken(fakeRequest({ connection: 'keep-alive, Upgrade', upgrade: 'WebSocket', 'sec-websocket-protocol': protocols, ...extra }));
  const enc = (s: string) => BEARER_PROTOCOL_PREFIX + Buffer.from(s).toString('base64url');
  const ok = ws(`${enc('tok')}, channel.k8s.io`);
  assert.equal(ok.kind === 'token' && ok.token, 'tok');
  assert.deepEqual(ws('channel.k8s.io'), { kind: 'none' });
  assert.equal(ws(`${enc('a')},${enc('b')},x`).kind, 'invalid');
  assert.equal(ws(enc('tok')).kind, 'invalid', 'another subprotocol must remain');
  assert.equal(ws(`${BEARER_PROTOCOL_PREFIX}!!!, x`).kind, 'invalid');
  assert.deepEqual(webSocketBearerToken(fakeRequest({ 'sec-websocket-protocol': `${enc('tok')}, x` })), { kind: 'none' }, 'not a websocket request');
});

test('createAuthenticator: a request without TLS and without credentials is unauthenticated', async () => {
  const authenticate = createAuthenticator({ clientCAPem: pki.caCertPem });
  assert.equal(await authenticate(fakeRequest({})), undefined);
  assert.deepEqual(await authenticate(fakeRequest({ authorization: 'Bearer x' })), undefined);
  assert.throws(() => createAuthenticator({ clientCAPem: 'no certificate here' }));
});

test('parseTokenFile: kube-apiserver --token-auth-file CSV', () => {
  const tokens = parseTokenFile('t1,u1,id1,"g1,g2"\r\n\r\n,skipped,x\n t2 , u2,id2\n"t,3",u3,id3,g3\nt1,again,id4\n');
  assert.deepEqual(Object.fromEntries(tokens), {
    t1: { name: 'again', uid: 'id4', groups: [] },
    't2 ': { name: 'u2', uid: 'id2', groups: [] },
    't,3': { name: 'u3', uid: 'id3', groups: ['g3'] },
  });
  assert.throws(() => parseTokenFile('t1,u1\n'), /must have at least 3 columns/);
  assert.deepEqual(parseCSV('a,"b ""q"" \nc",d\n'), [['a', 'b "q" \nc', 'd']]);
});

test('kubectl authenticates with the kubeconfig we write: client certificate and token', async () => {
  const server = `https://127.0.0.1:${port}`;
  const admin = join(dir, 'admin.conf');
  await writeKubeconfig(admin, buildKubeconfig({
    server, caCertPem: pki.caCertPem, userName: 'kubernetes-admin', clientCertPem: pki.adminCertPem, clientKeyPem: pki.adminKeyPem,
  }));
  const viaCert = JSON.parse((await run('kubectl', ['--kubeconfig', admin, 'get', '--raw', '/whoami'])).stdout) as Answer;
  assert.deepEqual(viaCert.user, { name: 'kubernetes-admin', groups: ['system:masters', authenticated] });
  assert.equal(viaCert.alpn, 'http/1.1');

  const alice = join(dir, 'alice.conf');
  await writeKubeconfig(alice, buildKubeconfig({ server, caCertPem: pki.caCertPem, userName: 'alice', token: 'static-token-1' }));
  const viaToken = JSON.parse((await run('kubectl', ['--kubeconfig', alice, 'get', '--raw', '/whoami'])).stdout) as Answer;
  assert.deepEqual(viaToken.user, { name: 'alice', uid: 'uid-alice', groups: ['dev', 'ops', authenticated] });
});

test('createAuthenticator with anonymous: no credential is system:anonymous, an invalid one stays unauthenticated', async () => {
  const authenticate = createAuthenticator({ clientCAPem: pki.caCertPem, anonymous: true });
  assert.deepEqual(await authenticate(fakeRequest({})), { name: 'system:anonymous', groups: ['system:unauthenticated'] });
  assert.deepEqual(await authenticate(fakeRequest({ authorization: 'Basic YTpi' })), { name: 'system:anonymous', groups: ['system:unauthenticated'] },
    'another scheme is no bearer credential');
  assert.equal(await authenticate(fakeRequest({ authorization: 'Bearer wrong' })), undefined);
});

test('authn with anonymous over TLS: a foreign client certificate is 401, not anonymous', async () => {
  const authenticate = createAuthenticator({ clientCAPem: pki.caCertPem, anonymous: true });
  const anon = https.createServer(serverTLSOptions(pki), (req, res) => {
    void Promise.resolve(authenticate(req)).then((u) => res.end(JSON.stringify({ user: u ?? null })));
  });
  anon.listen(0, '127.0.0.1');
  await once(anon, 'listening');
  const anonPort = (anon.address() as AddressInfo).port;
  try {
    assert.deepEqual((await request({ port: anonPort })).user, { name: 'system:anonymous', groups: ['system:unauthenticated'] });
    const foreign = await createCA({ commonName: 'other', days: 1 });
    const mallory = await issueCertificate({ ca: foreign, commonName: 'kubernetes-admin', organizations: ['system:masters'], usages: ['client'], days: 1 });
    assert.equal((await request({ port: anonPort, cert: mallory.certPem, key: mallory.keyPem })).user, null);
  } finally {
    anon.closeAllConnections();
    anon.close();
  }
});
