/**
 * The API server's and kubelet's TLS handshake accepts what Go's crypto/tls
 * accepts (util/tls-serving.ts): a TLS 1.2 ClientHello without the
 * signature_algorithms extension, as busybox wget's own TLS sends it, gets a
 * ServerKeyExchange signed with SHA-1 (RFC 5246 §7.4.1.4.1; Go's
 * selectSignatureScheme) instead of alert 40; a client that lists its
 * algorithms gets one of them. And what security level 0 would also let
 * through, a client certificate with a SHA-1 signature, authenticates no one.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { once } from 'node:events';
import https from 'node:https';
import net, { type AddressInfo } from 'node:net';
import { createPrivateKey, randomBytes, webcrypto, X509Certificate } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createAuthenticator, serverTLSOptions } from '../../src/apiserver/auth/index.js';
import { createClientCertAuthenticator } from '../../src/kubelet/server/authn.js';
import { ensureClusterPKI, generateKeyPair, isTooWeakToAuthenticate, loadX509, signatureAlgorithmOID, type ClusterPKI } from '../../src/pki/index.js';

let dir: string;
let pki: ClusterPKI;
let server: https.Server;
let port: number;
const handshakeErrors: string[] = [];

before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'k8ts-tls-serving-'));
  pki = await ensureClusterPKI(dir, { hosts: [] });
  const authenticate = createAuthenticator({ clientCAPem: pki.caCertPem });
  const kubeletAuthenticate = createClientCertAuthenticator(pki.caCertPem);
  server = https.createServer(serverTLSOptions(pki), (req, res) => {
    void Promise.resolve(authenticate(req)).then((user) => res.end(JSON.stringify({ user: user?.name ?? null, kubelet: kubeletAuthenticate(req)?.name ?? null })));
  });
  server.on('tlsClientError', (e: Error) => handshakeErrors.push(e.message));
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  port = (server.address() as AddressInfo).port;
});

after(async () => {
  server.closeAllConnections();
  server.close();
  await rm(dir, { recursive: true, force: true });
});

const u16 = (n: number) => [n >> 8, n & 0xff];
const u24 = (n: number) => [n >> 16, (n >> 8) & 0xff, n & 0xff];

/**
 * A TLS 1.2 ClientHello as busybox's tls.c builds it: ECDHE suites (ECDSA and RSA, AES-128-GCM),
 * supported_groups x25519 and P-256, point formats, and signature_algorithms only when `sigalgs` is given.
 */
function clientHello(sigalgs?: number[]): Buffer {
  const ext = (type: number, body: number[]) => [...u16(type), ...u16(body.length), ...body];
  const extensions = [
    ...ext(0x000a, [...u16(4), ...u16(0x001d), ...u16(0x0017)]),
    ...ext(0x000b, [1, 0]),
    ...(sigalgs ? ext(0x000d, [...u16(sigalgs.length * 2), ...sigalgs.flatMap(u16)]) : []),
  ];
  const suites = [0xc02b, 0xc02f, 0x00ff];
  const body = [0x03, 0x03, ...randomBytes(32), 0, ...u16(suites.length * 2), ...suites.flatMap(u16), 1, 0, ...u16(extensions.length), ...extensions];
  const handshake = [1, ...u24(body.length), ...body];
  return Buffer.from([22, 0x03, 0x01, ...u16(handshake.length), ...handshake]);
}

type ServerAnswer = { alert: number } | { cipherSuite: number; keyExchangeSignature: number };

/** Sends the hello and reads the server's flight up to ServerHelloDone: its suite and the ServerKeyExchange's signature algorithm, or its alert. */
function handshake(hello: Buffer): Promise<ServerAnswer> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1', () => socket.write(hello));
    let records = Buffer.alloc(0);
    let messages = Buffer.alloc(0);
    let cipherSuite = -1;
    const done = (answer: ServerAnswer) => { socket.destroy(); resolve(answer); };
    socket.on('data', (chunk: Buffer) => {
      records = Buffer.concat([records, chunk]);
      while (records.length >= 5 && records.length >= 5 + records.readUInt16BE(3)) {
        const [type, payload] = [records[0], records.subarray(5, 5 + records.readUInt16BE(3))];
        records = records.subarray(5 + payload.length);
        if (type === 21) return done({ alert: payload[1]! });
        messages = Buffer.concat([messages, payload]);
      }
      while (messages.length >= 4 && messages.length >= 4 + messages.readUIntBE(1, 3)) {
        const [type, body] = [messages[0], messages.subarray(4, 4 + messages.readUIntBE(1, 3))];
        messages = messages.subarray(4 + body.length);
        // ServerHello: version(2) random(32) session_id<1> cipher_suite(2).
        if (type === 2) cipherSuite = body.readUInt16BE(35 + body[34]!);
        // ServerKeyExchange (ECDHE): curve_type(1) named_curve(2) point<1>, then the signature's algorithm(2).
        if (type === 12) return done({ cipherSuite, keyExchangeSignature: body.readUInt16BE(4 + body[3]!) });
      }
    });
    socket.on('error', reject);
    socket.on('close', () => reject(new Error('the server closed the connection without an answer')));
  });
}

const ECDHE_ECDSA_WITH_AES_128_GCM_SHA256 = 0xc02b;
const ecdsaSHA1 = 0x0203;
const ecdsaSHA256 = 0x0403;

test('tls serving: a TLS 1.2 client without signature_algorithms (busybox wget) gets a SHA-1 signed key exchange, as from Go, not alert 40', async () => {
  const cases: { name: string; sigalgs?: number[]; want: ServerAnswer }[] = [
    { name: 'no signature_algorithms: SHA-1 assumed (RFC 5246 7.4.1.4.1)', want: { cipherSuite: ECDHE_ECDSA_WITH_AES_128_GCM_SHA256, keyExchangeSignature: ecdsaSHA1 } },
    { name: 'ecdsa_secp256r1_sha256 offered: used', sigalgs: [ecdsaSHA256, ecdsaSHA1], want: { cipherSuite: ECDHE_ECDSA_WITH_AES_128_GCM_SHA256, keyExchangeSignature: ecdsaSHA256 } },
    { name: 'only RSA algorithms for an ECDSA certificate: handshake_failure', sigalgs: [0x0401], want: { alert: 40 } },
  ];
  for (const c of cases) assert.deepEqual(await handshake(clientHello(c.sigalgs)), c.want, c.name);
});

test('tls serving: a full request from a client pinned to TLS 1.2 and to the common suites still works', async () => {
  const body = await new Promise<string>((resolve, reject) => {
    https.get({ host: '127.0.0.1', port, path: '/', ca: pki.caCertPem, servername: 'localhost', maxVersion: 'TLSv1.2', cert: pki.adminCertPem, key: pki.adminKeyPem }, (res) => {
      let s = '';
      res.setEncoding('utf8').on('data', (d: string) => { s += d; }).on('end', () => resolve(s));
    }).on('error', reject);
  });
  assert.deepEqual(JSON.parse(body), { user: 'kubernetes-admin', kubelet: 'kubernetes-admin' });
});

/** A client certificate for `commonName` from the cluster CA, signed with ECDSA over `hash`. */
async function clientCertificate(commonName: string, hash: 'SHA-1' | 'SHA-256'): Promise<{ certPem: string; keyPem: string }> {
  const x = await loadX509();
  const caKey = await webcrypto.subtle.importKey('pkcs8', createPrivateKey(pki.caKeyPem).export({ type: 'pkcs8', format: 'der' }),
    { name: 'ECDSA', namedCurve: 'P-256' }, false, ['sign']);
  const leaf = generateKeyPair();
  const publicKey = await webcrypto.subtle.importKey('spki', Buffer.from(leaf.publicKeyPem.replace(/-----[^-]+-----|\s/g, ''), 'base64'),
    { name: 'ECDSA', namedCurve: 'P-256' }, true, ['verify']);
  const cert = await x.X509CertificateGenerator.create({
    serialNumber: '01', subject: `CN=${commonName}`, issuer: new x.X509Certificate(pki.caCertPem).subject,
    notBefore: new Date(Date.now() - 60_000), notAfter: new Date(Date.now() + 3_600_000),
    publicKey, signingKey: caKey, signingAlgorithm: { name: 'ECDSA', hash } as webcrypto.EcdsaParams,
    extensions: [new x.ExtendedKeyUsageExtension([x.ExtendedKeyUsage.clientAuth])],
  });
  return { certPem: cert.toString('pem'), keyPem: leaf.keyPem };
}

test('tls serving: a client certificate signed with SHA-1 authenticates no one at the API server and the kubelet (Go x509: insecure algorithm)', async () => {
  const ask = (cred: { certPem: string; keyPem: string }) => new Promise<{ user: string | null; kubelet: string | null }>((resolve, reject) => {
    https.get({ host: '127.0.0.1', port, path: '/', ca: pki.caCertPem, servername: 'localhost', cert: cred.certPem, key: cred.keyPem,
      // The client's own OpenSSL would not send a SHA-1 signed certificate at its default level.
      ciphers: 'DEFAULT:@SECLEVEL=0' }, (res) => {
      let s = '';
      res.setEncoding('utf8').on('data', (d: string) => { s += d; }).on('end', () => resolve(JSON.parse(s) as { user: string | null; kubelet: string | null }));
    }).on('error', reject);
  });
  const sha256 = await clientCertificate('alice', 'SHA-256');
  const sha1 = await clientCertificate('mallory', 'SHA-1');
  assert.equal(signatureAlgorithmOID(new X509Certificate(sha256.certPem).raw), '1.2.840.10045.4.3.2');
  assert.equal(signatureAlgorithmOID(new X509Certificate(sha1.certPem).raw), '1.2.840.10045.4.1');
  assert.equal(isTooWeakToAuthenticate(new X509Certificate(sha1.certPem)), true);
  assert.equal(isTooWeakToAuthenticate(new X509Certificate(sha256.certPem)), false);
  assert.deepEqual(await ask(sha256), { user: 'alice', kubelet: 'alice' });
  assert.deepEqual(await ask(sha1), { user: null, kubelet: null });
});
