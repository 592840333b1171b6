import { strict as assert } from 'node:assert';
import { test } from 'node:test';
import { applyDefaults } from '../../src/api/defaults/index.js';
import { fieldErrorMessage } from '../../src/api/field-errors.js';
import { validateCreate, validateUpdate } from '../../src/api/validation/index.js';
import { createCA } from '../../src/pki/index.js';

// openssl req -new -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -subj "/O=system:nodes/CN=system:node:node-1"
const csrPEM = Buffer.from(`-----BEGIN CERTIFICATE REQUEST-----
MIHvMIGWAgEAMDQxFTATBgNVBAoMDHN5c3RlbTpub2RlczEbMBkGA1UEAwwSc3lz
dGVtOm5vZGU6bm9kZS0xMFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAEusqfHVYm
Sv3k1x2S9AxprqqesdKwO8gZ09fdObAj4v/7H7DjGF7Vvy6E531/eZRg75D9Fhl3
gtf3Y5eUwsGwqqAAMAoGCCqGSM49BAMCA0gAMEUCID5rR7fDNTrDQm3e8wjIYeUG
i9vz7egpJgRs0VzCRd9VAiEA8ZiNZA84P670t/S+GK73nBoR9+UPtDRrPwzwF4zh
8cw=
-----END CERTIFICATE REQUEST-----
`).toString('base64');

const bases: Record<string, () => any> = {
  'v1/Node': () => ({ metadata: { name: 'node-1' }, spec: {} }),
  'v1/Service': () => ({ metadata: { name: 'web', namespace: 'default' }, spec: { selector: { app: 'web' }, ports: [{ port: 80 }] } }),
  'v1/ConfigMap': () => ({ metadata: { name: 'cfg', namespace: 'default' }, data: { 'app.conf': 'x' } }),
  'v1/Secret': () => ({ metadata: { name: 's', namespace: 'default' }, data: { token: Buffer.from('t').toString('base64') } }),
  'v1/Namespace': () => ({ metadata: { name: 'team-a' } }),
  'v1/PersistentVolume': () => ({ metadata: { name: 'pv1' }, spec: { capacity: { storage: '1Gi' }, accessModes: ['ReadWriteOnce'], hostPath: { path: '/data' } } }),
  'v1/PersistentVolumeClaim': () => ({ metadata: { name: 'c', namespace: 'default' }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } } }),
  'certificates.k8s.io/v1/CertificateSigningRequest': () => ({ metadata: { name: 'node-csr-abc' }, spec: {
    request: csrPEM, signerName: 'kubernetes.io/kube-apiserver-client-kubelet', usages: ['digital signature', 'client auth'] } }),
  'coordination.k8s.io/v1/Lease': () => ({ metadata: { name: 'node-1', namespace: 'kube-node-lease' }, spec: { holderIdentity: 'node-1', leaseDurationSeconds: 40 } }),
  'v1/Event': () => ({ metadata: { name: 'e.1', namespace: 'default' }, involvedObject: { kind: 'Pod', name: 'p', namespace: 'default' }, reason: 'Started', message: 'ok' }),
  'events.k8s.io/v1/Event': () => ({ metadata: { name: 'e.2', namespace: 'default' }, eventTime: '2024-01-01T00:00:00.000000Z', regarding: { kind: 'Pod', name: 'p', namespace: 'default' },
    reportingController: 'kubelet', reportingInstance: 'node-1', action: 'Started', reason: 'Started', type: 'Normal', note: 'ok' }),
  'v1/Endpoints': () => ({ metadata: { name: 'web', namespace: 'default' }, subsets: [{ addresses: [{ ip: '10.0.0.5' }], ports: [{ port: 80 }] }] }),
  'storage.k8s.io/v1/StorageClass': () => ({ metadata: { name: 'local' }, provisioner: 'rancher.io/local-path' }),
  'v1/ServiceAccount': () => ({ metadata: { name: 'default', namespace: 'default' } }),
  'apps/v1/ControllerRevision': () => ({ metadata: { name: 'ds-abc', namespace: 'default' }, data: {}, revision: 1 }),
};

function create(key: string, mutate: (o: any) => void): string[] {
  const o = bases[key]();
  mutate(o);
  applyDefaults(key, o);
  return validateCreate(key, o).map(fieldErrorMessage);
}

function update(key: string, mutate: (o: any) => void, prepare: (o: any) => void = () => {}): string[] {
  const old = bases[key]();
  prepare(old);
  applyDefaults(key, old);
  Object.assign(old.metadata, { uid: 'u', resourceVersion: '1', creationTimestamp: '2024-01-01T00:00:00Z' });
  const next = structuredClone(old);
  mutate(next);
  applyDefaults(key, next);
  return validateUpdate(key, next, old).map(fieldErrorMessage);
}

const subdomain = "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";

const createCases: [string, string, (o: any) => void, string[]][] = [
  ['v1/Node', 'valid', () => {}, []],
  ['v1/Node', 'taint effect enum (upstream reports metadata.taints)', (o) => { o.spec.taints = [{ key: 'k', effect: 'NoRun' }]; },
    ['metadata.taints[0].effect: Unsupported value: "NoRun": supported values: "NoSchedule", "PreferNoSchedule", "NoExecute"']],
  ['v1/Node', 'taint effect required', (o) => { o.spec.taints = [{ key: 'k' }]; }, ['metadata.taints[0].effect: Required value']],
  ['v1/Node', 'duplicate taints', (o) => { o.spec.taints = [{ key: 'k', effect: 'NoSchedule' }, { key: 'k', value: 'v', effect: 'NoSchedule' }]; },
    ['metadata.taints[1]: Duplicate value: core.Taint{Key:"k", Value:"v", Effect:"NoSchedule", TimeAdded:(*v1.Time)(nil)}: taints must be unique by key and effect pair']],
  ['v1/Node', 'same key, other effect', (o) => { o.spec.taints = [{ key: 'k', effect: 'NoSchedule' }, { key: 'k', effect: 'NoExecute' }]; }, []],
  ['v1/Node', 'podCIDR', (o) => { o.spec.podCIDR = '10.244.0.0/33'; },
    ['spec.podCIDRs[0]: Invalid value: "10.244.0.0/33": must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)']],
  ['v1/Node', 'two IPv4 podCIDRs', (o) => { o.spec.podCIDRs = ['10.244.0.0/24', '10.245.0.0/24']; },
    ['spec.podCIDRs: Invalid value: ["10.244.0.0/24","10.245.0.0/24"]: may specify no more than one CIDR for each IP family']],
  ['v1/Node', 'dual-stack podCIDRs', (o) => { o.spec.podCIDRs = ['10.244.0.0/24', 'fd00::/64']; }, []],
  ['v1/Service', 'valid', () => {}, []],
  ['v1/Service', 'ports required', (o) => { delete o.spec.ports; }, ['spec.ports: Required value']],
  ['v1/Service', 'headless needs no ports', (o) => { delete o.spec.ports; o.spec.clusterIP = 'None'; }, []],
  ['v1/Service', 'port range (targetPort defaults to it)', (o) => { o.spec.ports[0].port = 0; },
    ['spec.ports[0].port: Invalid value: 0: must be between 1 and 65535, inclusive', 'spec.ports[0].targetPort: Invalid value: 0: must be between 1 and 65535, inclusive']],
  ['v1/Service', 'targetPort name', (o) => { o.spec.ports[0].targetPort = 'HTTP'; },
    ['spec.ports[0].targetPort: Invalid value: "HTTP": must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)', 'spec.ports[0].targetPort: Invalid value: "HTTP": must contain at least one letter (a-z)']],
  ['v1/Service', 'names required with several ports', (o) => { o.spec.ports.push({ port: 443 }); },
    ['spec.ports[0].name: Required value', 'spec.ports[1].name: Required value']],
  ['v1/Service', 'name must be a DNS-1035 label', (o) => { o.metadata.name = '1web'; },
    ["metadata.name: Invalid value: \"1web\": a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')"]],
  ['v1/Service', 'type enum', (o) => { o.spec.type = 'Internal'; },
    ['spec.type: Unsupported value: "Internal": supported values: "ClusterIP", "ExternalName", "LoadBalancer", "NodePort"']],
  ['v1/Service', 'nodePort with ClusterIP', (o) => { o.spec.ports[0].nodePort = 30080; }, ["spec.ports[0].nodePort: Forbidden: may not be used when `type` is 'ClusterIP'"]],
  ['v1/Service', 'cluster IP format', (o) => { o.spec.clusterIP = '10.96.0.300'; },
    ['spec.clusterIPs[0]: Invalid value: "10.96.0.300": must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)']],
  ['v1/Service', 'NodePort', (o) => { o.spec.type = 'NodePort'; o.spec.ports[0].nodePort = 30080; }, []],
  ['v1/Service', 'ExternalName', (o) => { o.spec = { type: 'ExternalName', externalName: 'db.example.com' }; }, []],
  ['v1/ConfigMap', 'valid', () => {}, []],
  ['v1/ConfigMap', 'bad key', (o) => { o.data = { 'a/b': 'x' }; },
    ["data[a/b]: Invalid value: \"a/b\": a valid config key must consist of alphanumeric characters, '-', '_' or '.' (e.g. 'key.name',  or 'KEY_NAME',  or 'key-name', regex used for validation is '[-._a-zA-Z0-9]+')"]],
  ['v1/ConfigMap', 'key in data and binaryData', (o) => { o.binaryData = { 'app.conf': 'eA==' }; }, ['data[app.conf]: Invalid value: "app.conf": duplicate of key present in binaryData']],
  // A key named like an Object.prototype member is not "present in binaryData" ('constructor' in {} is true).
  ['v1/ConfigMap', 'prototype-named keys', (o) => { o.data = { constructor: 'x', toString: 'y' }; o.binaryData = { other: 'eA==' }; }, []],
  ['v1/ConfigMap', 'errors in upstream order', (o) => { o.data = { 'a/b': 'x', dup: 'y' }; o.binaryData = { dup: 'eA==', 'c d': 'eA==' }; }, [
    "data[a/b]: Invalid value: \"a/b\": a valid config key must consist of alphanumeric characters, '-', '_' or '.' (e.g. 'key.name',  or 'KEY_NAME',  or 'key-name', regex used for validation is '[-._a-zA-Z0-9]+')",
    'data[dup]: Invalid value: "dup": duplicate of key present in binaryData',
    "binaryData[c d]: Invalid value: \"c d\": a valid config key must consist of alphanumeric characters, '-', '_' or '.' (e.g. 'key.name',  or 'KEY_NAME',  or 'key-name', regex used for validation is '[-._a-zA-Z0-9]+')"]],
  ['v1/Secret', 'valid', () => {}, []],
  ['v1/Secret', 'tls needs keys', (o) => { o.type = 'kubernetes.io/tls'; }, ['data[tls.crt]: Required value', 'data[tls.key]: Required value']],
  ['v1/Secret', 'stringData keys', (o) => { o.stringData = { '..': 'x' }; }, ["data[..]: Invalid value: \"..\": must not be '..'"]],
  ['v1/Namespace', 'valid', () => {}, []],
  ['v1/Namespace', 'name must be a DNS label', (o) => { o.metadata.name = 'team.a'; }, ['metadata.name: Invalid value: "team.a": must not contain dots']],
  ['v1/PersistentVolume', 'valid', () => {}, []],
  ['v1/PersistentVolume', 'access modes and capacity', (o) => { o.spec.accessModes = []; o.spec.capacity = {}; }, [
    'spec.accessModes: Required value', 'spec.capacity: Required value',
    'spec.capacity: Unsupported value: core.ResourceList{}: supported values: "storage"',
  ]],
  ['v1/PersistentVolume', 'volume type required', (o) => { delete o.spec.hostPath; }, ['spec: Required value: must specify a volume type']],
  ['v1/PersistentVolume', 'reclaim policy', (o) => { o.spec.persistentVolumeReclaimPolicy = 'Keep'; },
    ['spec.persistentVolumeReclaimPolicy: Unsupported value: "Keep": supported values: "Delete", "Recycle", "Retain"']],
  ['v1/PersistentVolumeClaim', 'valid', () => {}, []],
  ['v1/PersistentVolumeClaim', 'access modes required', (o) => { o.spec.accessModes = []; }, ['spec.accessModes: Required value: at least 1 access mode is required']],
  ['v1/PersistentVolumeClaim', 'storage request required', (o) => { o.spec.resources = {}; }, ['spec.resources[storage]: Required value']],
  ['v1/PersistentVolumeClaim', 'storage request positive', (o) => { o.spec.resources.requests.storage = '0'; },
    ['spec.resources[storage]: Invalid value: "0": must be greater than zero']],
  ['v1/PersistentVolumeClaim', 'access mode enum', (o) => { o.spec.accessModes = ['RWO']; },
    ['spec.accessModes: Unsupported value: "RWO": supported values: "ReadOnlyMany", "ReadWriteMany", "ReadWriteOnce", "ReadWriteOncePod"']],
  ['certificates.k8s.io/v1/CertificateSigningRequest', 'valid', () => {}, []],
  ['certificates.k8s.io/v1/CertificateSigningRequest', 'request, usages and signer required', (o) => { o.spec = {}; }, [
    'spec.request: Invalid value: []byte(nil): PEM block type must be CERTIFICATE REQUEST', 'spec.usages: Required value', 'spec.signerName: Required value',
  ]],
  ['certificates.k8s.io/v1/CertificateSigningRequest', 'unknown usage', (o) => { o.spec.usages = ['client']; },
    ['spec.usages[0]: Unsupported value: "client": supported values: "any", "cert sign", "client auth", "code signing", "content commitment", "crl sign", "data encipherment", "decipher only", "digital signature", "email protection", "encipher only", "ipsec end system", "ipsec tunnel", "ipsec user", "key agreement", "key encipherment", "microsoft sgc", "netscape sgc", "ocsp signing", "s/mime", "server auth", "signing", "timestamping"']],
  ['certificates.k8s.io/v1/CertificateSigningRequest', 'signer name form', (o) => { o.spec.signerName = 'kubelet'; },
    ["spec.signerName: Invalid value: \"kubelet\": must be a fully qualified domain and path of the form 'example.com/signer-name'"]],
  ['certificates.k8s.io/v1/CertificateSigningRequest', 'short expiry', (o) => { o.spec.expirationSeconds = 60; },
    ['spec.expirationSeconds: Invalid value: 60: may not specify a duration less than 600 seconds (10 minutes)']],
  ['coordination.k8s.io/v1/Lease', 'valid', () => {}, []],
  ['coordination.k8s.io/v1/Lease', 'duration', (o) => { o.spec.leaseDurationSeconds = 0; }, ['spec.leaseDurationSeconds: Invalid value: 0: must be greater than 0']],
  ['v1/Event', 'valid legacy event', () => {}, []],
  ['v1/Event', 'namespace mismatch', (o) => { o.involvedObject.namespace = 'other'; }, ['involvedObject.namespace: Invalid value: "other": does not match event.namespace']],
  ['events.k8s.io/v1/Event', 'valid', () => {}, []],
  ['events.k8s.io/v1/Event', 'strict fields', (o) => { delete o.reportingController; o.type = 'Info'; }, [
    'reportingController: Required value',
    "reportingController: Invalid value: \"\": name part must be non-empty",
    "reportingController: Invalid value: \"\": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')",
    'type: Invalid value: "": has invalid value: Info',
  ]],
  ['v1/Endpoints', 'valid', () => {}, []],
  ['v1/Endpoints', 'loopback address', (o) => { o.subsets[0].addresses[0].ip = '127.0.0.1'; },
    ['subsets[0].addresses[0].ip: Invalid value: "127.0.0.1": may not be in the loopback range (127.0.0.0/8, ::1/128)']],
  // Issue #19: the loopback and link-local spelled so that a check of the text missed them (Go parses the value).
  ['v1/Endpoints', 'loopback spelled 0::1', (o) => { o.subsets[0].addresses[0].ip = '0::1'; },
    ['subsets[0].addresses[0].ip: Invalid value: "0::1": may not be in the loopback range (127.0.0.0/8, ::1/128)']],
  ['v1/Endpoints', 'IPv4-mapped loopback', (o) => { o.subsets[0].addresses[0].ip = '::ffff:7f00:1'; },
    ['subsets[0].addresses[0].ip: Invalid value: "::ffff:7f00:1": may not be in the loopback range (127.0.0.0/8, ::1/128)']],
  ['v1/Endpoints', 'loopback with leading zeros', (o) => { o.subsets[0].addresses[0].ip = '127.000.000.001'; },
    ['subsets[0].addresses[0].ip: Invalid value: "127.000.000.001": may not be in the loopback range (127.0.0.0/8, ::1/128)']],
  ['v1/Endpoints', 'IPv4-mapped link-local', (o) => { o.subsets[0].addresses[0].ip = '::ffff:169.254.169.254'; },
    ['subsets[0].addresses[0].ip: Invalid value: "::ffff:169.254.169.254": may not be in the link-local range (169.254.0.0/16, fe80::/10)']],
  ['storage.k8s.io/v1/StorageClass', 'valid', () => {}, []],
  ['storage.k8s.io/v1/StorageClass', 'binding mode enum', (o) => { o.volumeBindingMode = 'Later'; },
    ['volumeBindingMode: Unsupported value: "Later": supported values: "Immediate", "WaitForFirstConsumer"']],
  ['v1/ServiceAccount', 'name format', (o) => { o.metadata.name = 'Default'; }, [`metadata.name: Invalid value: "Default": ${subdomain}`]],
  ['apps/v1/ControllerRevision', 'data required', (o) => { delete o.data; }, ['data: Required value: data is mandatory']],
];
for (const [key, name, mutate, want] of createCases) test(`${key} create: ${name}`, () => assert.deepEqual(create(key, mutate), want));

const updateCases: [string, string, (o: any) => void, ((o: any) => void) | undefined, string[]][] = [
  ['v1/Node', 'podCIDR set once', (o) => { o.spec.podCIDR = '10.244.1.0/24'; o.spec.podCIDRs = ['10.244.1.0/24']; }, (o) => { o.spec.podCIDR = '10.244.0.0/24'; },
    ['spec.podCIDRs: Forbidden: node updates may not change podCIDR except from "" to valid']],
  ['v1/Node', 'podCIDR from empty', (o) => { o.spec.podCIDRs = ['10.244.1.0/24']; }, undefined, []],
  ['v1/Node', 'taints may change', (o) => { o.spec.taints = [{ key: 'node.kubernetes.io/unschedulable', effect: 'NoSchedule' }]; }, undefined, []],
  ['v1/Service', 'clusterIP is immutable', (o) => { o.spec.clusterIP = '10.96.0.11'; o.spec.clusterIPs = ['10.96.0.11']; }, (o) => { o.spec.clusterIP = '10.96.0.10'; },
    ['spec.clusterIPs[0]: Invalid value: []string{"10.96.0.11"}: may not change once set']],
  ['v1/ConfigMap', 'immutable data', (o) => { o.data['app.conf'] = 'y'; }, (o) => { o.immutable = true; },
    ['data: Forbidden: field is immutable when `immutable` is set']],
  ['v1/Secret', 'type is immutable', (o) => { o.type = 'kubernetes.io/basic-auth'; o.data = { username: 'dQ==' }; }, undefined,
    ['type: Invalid value: "kubernetes.io/basic-auth": field is immutable']],
  ['v1/PersistentVolumeClaim', 'spec is immutable', (o) => { o.spec.accessModes = ['ReadWriteMany']; }, undefined,
    ['spec: Forbidden: spec is immutable after creation except resources.requests and volumeAttributesClassName for bound claims\n']],
  ['v1/PersistentVolume', 'source is immutable', (o) => { o.spec.hostPath.path = '/other'; }, undefined,
    ['spec.persistentvolumesource: Forbidden: spec.persistentvolumesource is immutable after creation\n']],
  ['storage.k8s.io/v1/StorageClass', 'provisioner is immutable', (o) => { o.provisioner = 'other.io/x'; }, undefined,
    ['provisioner: Forbidden: updates to provisioner are forbidden.']],
  ['certificates.k8s.io/v1/CertificateSigningRequest', 'approval may not be added but through the approval subresource', (o) => {
    o.status = { conditions: [{ type: 'Approved', reason: 'AutoApproved' }] };
  }, undefined, ['status.conditions: Forbidden: updates may not add a condition of type "Approved"']],
  ['certificates.k8s.io/v1/CertificateSigningRequest', 'approval may not be removed', (o) => { o.status = {}; },
    (o) => { o.status = { conditions: [{ type: 'Approved', status: 'True' }] }; }, ['status.conditions: Forbidden: updates may not remove a condition of type "Approved"']],
  ['v1/Namespace', 'labels may change', (o) => { o.metadata.labels.team = 'a'; }, undefined, []],
  ['apps/v1/ControllerRevision', 'data is immutable', (o) => { o.data = { x: 1 }; }, undefined, ['data: Invalid value: {"x":1}: field is immutable']],
];
for (const [key, name, mutate, prepare, want] of updateCases) test(`${key} update: ${name}`, () => assert.deepEqual(update(key, mutate, prepare), want));

test('CSR status update may set the certificate once', async () => {
  const old: any = bases['certificates.k8s.io/v1/CertificateSigningRequest']();
  Object.assign(old.metadata, { uid: 'u', resourceVersion: '1' });
  const next = structuredClone(old);
  const ca = await createCA({ commonName: 'ca', days: 1 });
  next.status = { certificate: Buffer.from(ca.certPem).toString('base64') };
  assert.deepEqual(validateUpdate('certificates.k8s.io/v1/CertificateSigningRequest', next, old, 'status'), []);
  assert.deepEqual(validateUpdate('certificates.k8s.io/v1/CertificateSigningRequest', next, old, 'approval').map(fieldErrorMessage),
    ['status.certificate: Forbidden: updates may not set certificate content']);
});
