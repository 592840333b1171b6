/**
 * The DER certificates k8ts now writes itself (src/pki/x509-build.ts, instead
 * of @peculiar/x509): read back by node:crypto, by openssl, and by
 * @peculiar/x509 (which the CSR paths still use), field by field.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { X509Certificate } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { createCA, issueCertificate, loadX509 } from '../../src/pki/index.js';
import { namedBits, time, directoryString, unsignedInteger, objectIdentifier } from '../../src/pki/der-write.js';
import { encodeName, KeyUsage } from '../../src/pki/x509-build.js';

const run = promisify(execFile);

test('der-write: lengths, integers, OIDs, named bits and times as DER has them', () => {
  assert.equal(unsignedInteger(Buffer.from([0x80])).toString('hex'), '02020080'); // high bit: a leading zero
  assert.equal(unsignedInteger(Buffer.from([0, 0, 5])).toString('hex'), '020105'); // leading zeros dropped
  assert.equal(objectIdentifier('1.2.840.10045.4.3.2').toString('hex'), '06082a8648ce3d040302');
  // digitalSignature | keyEncipherment: bits 0 and 2, five unused bits (Go writes 03 02 05 a0).
  assert.equal(namedBits(KeyUsage.digitalSignature | KeyUsage.keyEncipherment).toString('hex'), '030205a0');
  // keyCertSign | cRLSign | digitalSignature: bits 0, 5, 6 (03 02 01 86).
  assert.equal(namedBits(KeyUsage.digitalSignature | KeyUsage.keyCertSign | KeyUsage.cRLSign).toString('hex'), '03020186');
  assert.equal(namedBits(KeyUsage.decipherOnly).toString('hex'), '0303070080'); // bit 8
  assert.equal(time(new Date('2049-12-31T23:59:59Z')).toString('latin1').slice(2), '491231235959Z'); // UTCTime
  assert.equal(time(new Date('2050-01-01T00:00:00Z')).toString('latin1').slice(2), '20500101000000Z'); // GeneralizedTime
  assert.equal(directoryString('system:nodes')[0], 0x13); // ':' is in PrintableString's set
  assert.equal(directoryString('a_b')[0], 0x0c); // '_' is not printable: UTF8String
  assert.equal(directoryString('ünïcode')[0], 0x0c);
  const long = directoryString('x'.repeat(300));
  assert.equal(long.subarray(0, 4).toString('hex'), '1382012c'); // two-octet length
});

test('x509-build: subjects and SANs read back the same through node:crypto, openssl and @peculiar/x509', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'k8ts-x509-build-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  const ca = await createCA({ commonName: 'kubernetes', days: 3650 });
  const { certPem } = await issueCertificate({
    ca, commonName: 'system:node:wörker_1', organizations: ['system:nodes', 'b_team'], usages: ['server', 'client'], days: 1,
    dnsNames: ['node.example', '*.svc.example'], ipAddresses: ['10.0.0.1', '2001:db8::1', '::ffff:192.0.2.1', '::'],
  });
  const cert = new X509Certificate(certPem);
  assert.ok(cert.checkIssued(new X509Certificate(ca.certPem)) && cert.verify(new X509Certificate(ca.certPem).publicKey));
  assert.equal(cert.subjectAltName, 'DNS:node.example, DNS:*.svc.example, IP Address:10.0.0.1, IP Address:2001:DB8:0:0:0:0:0:1, IP Address:0:0:0:0:0:FFFF:C000:201, IP Address:0:0:0:0:0:0:0:0');
  assert.equal(cert.checkIP('2001:db8::1'), '2001:db8::1');
  const x = await loadX509();
  const parsed = new x.X509Certificate(certPem);
  assert.deepEqual(parsed.subjectName.getField('CN'), ['system:node:wörker_1']);
  assert.deepEqual(parsed.subjectName.getField('O'), ['system:nodes', 'b_team']);
  // The issuer is the CA's subject byte for byte, and the AKI is the CA's SKI.
  const caParsed = new x.X509Certificate(ca.certPem);
  assert.deepEqual(Buffer.from(parsed.issuerName.toArrayBuffer()), Buffer.from(caParsed.subjectName.toArrayBuffer()));
  assert.equal(parsed.getExtension(x.AuthorityKeyIdentifierExtension)!.keyId, caParsed.getExtension(x.SubjectKeyIdentifierExtension)!.keyId);
  assert.equal(parsed.getExtension(x.BasicConstraintsExtension)!.ca, false);
  assert.equal(parsed.getExtension(x.KeyUsagesExtension)!.usages, x.KeyUsageFlags.digitalSignature | x.KeyUsageFlags.keyEncipherment);
  assert.deepEqual([...parsed.getExtension(x.ExtendedKeyUsageExtension)!.usages], ['1.3.6.1.5.5.7.3.1', '1.3.6.1.5.5.7.3.2']);
  // @peculiar/x509's own SKI of the key is what we wrote.
  assert.equal(parsed.getExtension(x.SubjectKeyIdentifierExtension)!.keyId, Buffer.from(await parsed.publicKey.getKeyIdentifier()).toString('hex'));
  await writeFile(join(dir, 'ca.crt'), ca.certPem);
  await writeFile(join(dir, 'leaf.crt'), certPem);
  const { stdout } = await run('openssl', ['verify', '-CAfile', 'ca.crt', 'leaf.crt'], { cwd: dir });
  assert.match(stdout, /leaf\.crt: OK/);
  // DER as openssl re-encodes it: nothing it would normalise differently.
  const { stdout: der } = await run('openssl', ['x509', '-in', 'leaf.crt', '-outform', 'DER'], { cwd: dir, encoding: 'buffer' });
  assert.deepEqual(Buffer.from(der), cert.raw);
});

test('x509-build: encodeName puts O before CN, one attribute per RDN, as kubeadm', () => {
  const name = encodeName('kubernetes-admin', ['system:masters']);
  // SEQUENCE { SET { SEQUENCE { OID 2.5.4.10, "system:masters" } }, SET { SEQUENCE { OID 2.5.4.3, "kubernetes-admin" } } }
  assert.equal(name.toString('hex'), '3034' + '3117' + '3015' + '060355040a' + '130e' + Buffer.from('system:masters').toString('hex')
    + '3119' + '3017' + '0603550403' + '1310' + Buffer.from('kubernetes-admin').toString('hex'));
});
