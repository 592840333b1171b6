/**
 * `k8ts init` with local etcd as kubeadm runs it (issue #22): kubeadm's etcd
 * PKI, the static pod manifest etcd.yaml run by the kubelet (Debian's etcd as
 * a host process), `etcd-NODE` Ready in kube-system beside the other
 * control-plane pods, the API server on etcd over mutual TLS, /readyz's etcd
 * check, objects surviving an API server restart, and reset stopping etcd and
 * emptying its data directory. --datastore sqlite and ClusterConfiguration's
 * etcd.external are checked with --dry-run. Real etcd, real kubectl.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { existsSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { X509Certificate } from 'node:crypto';
import { parse } from 'yaml';
import { eventually } from './harness.js';
import { k8ts, freePort, tempPrefix, filesUnder, kubectl, type RunResult } from './kubeadm-node.js';
import { certificateInfo, subjectOf } from '../../src/pki/index.js';
import { decryptWithKey } from '../../src/cli/kubeadm/upload-certs.js';
import { listRecords, processAlive, type InstanceRecord } from '../../src/kubelet/runtime/process/records.js';

const run = promisify(execFile);
const NODE = 'cp-etcd';

describe('k8ts init with local etcd as a static pod', () => {
  const prefix = tempPrefix('etcd');
  const etc = join(prefix, 'etc/kubernetes');
  const pki = join(etc, 'pki');
  const admin = join(etc, 'admin.conf');
  const kubeletDir = join(prefix, 'var/lib/kubelet');
  let ports: Record<'api' | 'kubelet' | 'cm' | 'sched' | 'etcd' | 'peer' | 'metrics', number>;
  let init: RunResult;
  let baseArgs: string[];

  before(async () => {
    ports = {
      api: await freePort(), kubelet: await freePort(), cm: await freePort(), sched: await freePort(),
      etcd: await freePort(), peer: await freePort(), metrics: await freePort(),
    };
    baseArgs = ['--apiserver-advertise-address', '127.0.0.1', '--apiserver-bind-port', String(ports.api),
      '--node-name', NODE, '--kubelet-port', String(ports.kubelet), '--controller-manager-port', String(ports.cm),
      '--scheduler-port', String(ports.sched), '--etcd-client-port', String(ports.etcd), '--etcd-peer-port', String(ports.peer),
      '--etcd-metrics-port', String(ports.metrics), '--runtime', 'process'];

    init = await k8ts(['init', '--prefix', prefix, ...baseArgs, '--upload-certs']);
  });
  after(async () => {
    await k8ts(['reset', '--force', '--prefix', prefix]);
    rmSync(prefix, { recursive: true, force: true });
  });

  it('prints kubeadm\'s etcd certificate and [etcd] phase lines', () => {
    assert.equal(init.code, 0, init.stderr + init.stdout);
    const lines = [
      '[certs] Generating "etcd/ca" certificate and key',
      '[certs] Generating "etcd/server" certificate and key',
      `[certs] etcd/server serving cert is signed for DNS names [${NODE} localhost] and IPs [127.0.0.1 ::1]`,
      '[certs] Generating "etcd/peer" certificate and key',
      `[certs] etcd/peer serving cert is signed for DNS names [${NODE} localhost] and IPs [127.0.0.1 ::1]`,
      '[certs] Generating "etcd/healthcheck-client" certificate and key',
      '[certs] Generating "apiserver-etcd-client" certificate and key',
      '[certs] Generating "sa" key and public key',
      `[etcd] Creating static Pod manifest for local etcd in "${join(etc, 'manifests')}"`,
      '[control-plane] Creating static Pod manifest for "kube-apiserver"',
    ];
    // In kubeadm's order: etcd's certificates after front-proxy's and before sa; the etcd phase before control-plane.
    let at = init.stdout.indexOf('[certs] Generating "front-proxy-client" certificate and key');
    for (const line of lines) {
      const next = init.stdout.indexOf(line);
      assert.ok(next > at, `missing or out of order: ${line}\n${init.stdout}`);
      at = next;
    }
    assert.ok(!init.stdout.includes('External etcd mode'), init.stdout);
  });

  it('writes kubeadm\'s etcd PKI: CNs, usages and the SANs of server and peer', () => {
    const files = filesUnder(pki);
    for (const f of ['etcd/ca.crt', 'etcd/ca.key', 'etcd/server.crt', 'etcd/server.key', 'etcd/peer.crt', 'etcd/peer.key',
      'etcd/healthcheck-client.crt', 'etcd/healthcheck-client.key', 'apiserver-etcd-client.crt', 'apiserver-etcd-client.key']) {
      assert.ok(files.includes(f), `pki/${f} missing: ${files.join(' ')}`);
    }
    const cert = (f: string) => new X509Certificate(readFileSync(join(pki, f)));
    const ca = cert('etcd/ca.crt');
    assert.equal(subjectOf(ca).commonName, 'etcd-ca');
    assert.ok(ca.ca);
    for (const [f, cn] of [['etcd/server.crt', NODE], ['etcd/peer.crt', NODE], ['etcd/healthcheck-client.crt', 'kube-etcd-healthcheck-client'],
      ['apiserver-etcd-client.crt', 'kube-apiserver-etcd-client']] as const) {
      const c = cert(f);
      assert.equal(subjectOf(c).commonName, cn, f);
      assert.ok(c.checkIssued(ca) && c.verify(ca.publicKey), `${f} is signed by etcd/ca`);
    }
    for (const f of ['etcd/server.crt', 'etcd/peer.crt']) {
      const info = certificateInfo(readFileSync(join(pki, f), 'utf8'));
      assert.deepEqual(info.dnsNames, [NODE, 'localhost'], f);
      assert.deepEqual(info.ipAddresses, ['127.0.0.1', '::1'], f);
      assert.deepEqual(cert(f).keyUsage?.sort(), ['1.3.6.1.5.5.7.3.1', '1.3.6.1.5.5.7.3.2'], `${f}: server and client auth`);
    }
    assert.deepEqual(cert('apiserver-etcd-client.crt').keyUsage, ['1.3.6.1.5.5.7.3.2']);
  });

  it('etcd.yaml carries kubeadm\'s command line, probes and volumes; the API server names etcd and its client pair', () => {
    const pod = parse(readFileSync(join(etc, 'manifests/etcd.yaml'), 'utf8'));
    assert.equal(pod.metadata.name, 'etcd');
    assert.equal(pod.metadata.namespace, 'kube-system');
    assert.deepEqual(pod.metadata.labels, { component: 'etcd', tier: 'control-plane' });
    assert.equal(pod.metadata.annotations['kubeadm.kubernetes.io/etcd.advertise-client-urls'], `https://127.0.0.1:${ports.etcd}`);
    assert.equal(pod.spec.hostNetwork, true);
    assert.equal(pod.spec.priorityClassName, 'system-node-critical');
    const c = pod.spec.containers[0];
    const peer = `https://127.0.0.1:${ports.peer}`;
    assert.deepEqual(c.command, ['etcd',
      `--advertise-client-urls=https://127.0.0.1:${ports.etcd}`,
      `--cert-file=${pki}/etcd/server.crt`,
      '--client-cert-auth=true',
      `--data-dir=${prefix}/var/lib/etcd`,
      '--experimental-initial-corrupt-check=true',
      '--experimental-watch-progress-notify-interval=5s',
      `--initial-advertise-peer-urls=${peer}`,
      `--initial-cluster=${NODE}=${peer}`,
      `--key-file=${pki}/etcd/server.key`,
      // 127.0.0.1 is the advertise address here, so kubeadm's two listen URLs are one.
      `--listen-client-urls=https://127.0.0.1:${ports.etcd}`,
      `--listen-metrics-urls=http://127.0.0.1:${ports.metrics}`,
      `--listen-peer-urls=${peer}`,
      `--name=${NODE}`,
      `--peer-cert-file=${pki}/etcd/peer.crt`,
      '--peer-client-cert-auth=true',
      `--peer-key-file=${pki}/etcd/peer.key`,
      `--peer-trusted-ca-file=${pki}/etcd/ca.crt`,
      '--snapshot-count=10000',
      `--trusted-ca-file=${pki}/etcd/ca.crt`,
    ]);
    assert.deepEqual(c.livenessProbe.httpGet, { host: '127.0.0.1', port: ports.metrics, path: '/health', scheme: 'HTTP' });
    assert.deepEqual(c.volumeMounts, [{ name: 'etcd-data', mountPath: `${prefix}/var/lib/etcd` }, { name: 'etcd-certs', mountPath: `${pki}/etcd` }]);
    const apiserver = parse(readFileSync(join(etc, 'manifests/kube-apiserver.yaml'), 'utf8')).spec.containers[0].command as string[];
    for (const flag of [`--etcd-cafile=${pki}/etcd/ca.crt`, `--etcd-certfile=${pki}/apiserver-etcd-client.crt`,
      `--etcd-keyfile=${pki}/apiserver-etcd-client.key`, `--etcd-servers=https://127.0.0.1:${ports.etcd}`]) {
      assert.ok(apiserver.includes(flag), `${flag} missing: ${apiserver.join(' ')}`);
    }
  });

  it('kube-system shows etcd-NODE Running and Ready next to the other control-plane pods', async () => {
    for (const c of ['etcd', 'kube-apiserver', 'kube-controller-manager', 'kube-scheduler']) {
      await eventually(async () => {
        const r = await kubectl(admin, ['get', 'pod', '-n', 'kube-system', `${c}-${NODE}`, '--no-headers', '-L', 'component,tier']);
        return new RegExp(`^${c}-${NODE}\\s+1/1\\s+Running\\s+\\d+\\s+\\S+\\s+${c}\\s+control-plane\\s*$`).test(r.stdout.trim());
      }, 90_000, `${c}-${NODE} Running and Ready`);
    }
    const mirror = await kubectl(admin, ['get', 'pod', '-n', 'kube-system', `etcd-${NODE}`, '-o', 'jsonpath={.metadata.annotations.kubernetes\\.io/config\\.mirror}']);
    assert.match(mirror.stdout, /^[0-9a-f]{32}$/);
  });

  it('/readyz includes the etcd check, and /readyz/etcd answers ok', async () => {
    const verbose = await kubectl(admin, ['get', '--raw', '/readyz?verbose']);
    assert.match(verbose.stdout, /^\[\+\]etcd ok$/m);
    assert.equal((await kubectl(admin, ['get', '--raw', '/readyz/etcd'])).stdout, 'ok');
  });

  it('objects live in etcd (under /registry, not in SQLite) and survive an API server restart', async () => {
    assert.equal((await kubectl(admin, ['create', 'configmap', 'kept', '--from-literal=v=1'])).code, 0);
    // etcdctl with the healthcheck client pair, as kubeadm's own etcd checks connect.
    const { stdout } = await run('etcdctl', ['--endpoints', `https://127.0.0.1:${ports.etcd}`, '--cacert', join(pki, 'etcd/ca.crt'),
      '--cert', join(pki, 'etcd/healthcheck-client.crt'), '--key', join(pki, 'etcd/healthcheck-client.key'),
      'get', '--prefix', '--keys-only', '/registry/configmaps/default/'], { env: { ...process.env, ETCDCTL_API: '3' } });
    assert.match(stdout, /^\/registry\/configmaps\/default\/kept$/m);
    assert.ok(!existsSync(join(prefix, 'var/lib/k8ts/state.db')), 'no SQLite database');
    // SIGKILL the API server's process group: the kubelet starts it again, on the same etcd.
    const pid = runningPid('kube-apiserver');
    process.kill(-pid, 'SIGKILL');
    await eventually(async () => { const p = runningPid('kube-apiserver', false); return p !== 0 && p !== pid; }, 60_000, 'a new kube-apiserver process');
    await eventually(async () => (await kubectl(admin, ['get', 'configmap', 'kept', '-o', 'jsonpath={.data.v}'])).stdout === '1', 60_000, 'the configmap after the restart');
  });

  it('--upload-certs stores the shared keys in kubeadm-certs, readable only with the printed certificate key', async () => {
    const key = /\[upload-certs\] Storing the certificates in Secret "kubeadm-certs" in the "kube-system" Namespace\n\[upload-certs\] Using certificate key:\n([0-9a-f]{64})\n/.exec(init.stdout);
    assert.ok(key, init.stdout);
    const secret = JSON.parse((await kubectl(admin, ['get', 'secret', '-n', 'kube-system', 'kubeadm-certs', '-o', 'json'])).stdout);
    assert.deepEqual(Object.keys(secret.data).sort(),
      ['ca.crt', 'ca.key', 'etcd-ca.crt', 'etcd-ca.key', 'front-proxy-ca.crt', 'front-proxy-ca.key', 'sa.key', 'sa.pub']);
    for (const [k, file] of [['ca.key', 'ca.key'], ['etcd-ca.crt', 'etcd/ca.crt'], ['sa.key', 'sa.key']]) {
      const sealed = Buffer.from(secret.data[k], 'base64');
      assert.ok(!sealed.toString().includes('PRIVATE KEY') && !sealed.toString().includes('CERTIFICATE'), `${k} is not stored in clear`);
      assert.equal(decryptWithKey(sealed, key[1]!).toString(), readFileSync(join(pki, file), 'utf8'), k);
      assert.throws(() => decryptWithKey(sealed, 'ab'.repeat(32)), `${k} cannot be read with another key`);
    }
    // Owned by a 2-hour bootstrap token, as kubeadm manages the Secret's lifetime.
    const owner = secret.metadata.ownerReferences[0];
    assert.match(owner.name, /^bootstrap-token-[a-z0-9]{6}$/);
    const token = JSON.parse((await kubectl(admin, ['get', 'secret', '-n', 'kube-system', owner.name, '-o', 'json'])).stdout);
    assert.equal(token.metadata.uid, owner.uid);
    assert.equal(Buffer.from(token.data.description, 'base64').toString(), 'Proxy for managing TTL for the kubeadm-certs secret');
    const can = await kubectl(admin, ['auth', 'can-i', 'get', 'secret/kubeadm-certs', '-n', 'kube-system',
      '--as', 'system:bootstrap:abcdef', '--as-group', 'system:bootstrappers:kubeadm:default-node-token']);
    assert.equal(can.stdout.trim(), 'yes');
  });

  it('reset stops etcd and deletes the contents of its data directory', async () => {
    const etcd = runningRecord('etcd');
    assert.ok(etcd, 'etcd is running');
    const r = await k8ts(['reset', '--force', '--prefix', prefix]);
    assert.equal(r.code, 0, r.stderr);
    assert.ok(r.stdout.includes(`[reset] Deleting contents of directories: [${prefix}/var/lib/etcd ${etc}/manifests `), r.stdout);
    assert.equal(processAlive(etcd!), false, 'etcd is stopped');
    assert.deepEqual(readdirSync(join(prefix, 'var/lib/etcd')), []);
  });

  /** The record of the running instance of a control-plane pod's process. */
  function runningRecord(component: string): InstanceRecord | undefined {
    const pod = listRecords(kubeletDir).find((p) => p.pod.name === `${component}-${NODE}`);
    return pod?.instances.find((i) => processAlive(i.rec))?.rec;
  }

  /** Its pid (the process group's); 0 when none runs unless required. */
  function runningPid(component: string, required = true): number {
    const rec = runningRecord(component);
    if (required) assert.ok(rec, `${component} is running`);
    return rec?.pid ?? 0;
  }
});

describe('k8ts init --dry-run: --datastore sqlite and an external etcd from --config', () => {
  const prefix = tempPrefix('etcd-dry');
  after(() => rmSync(prefix, { recursive: true, force: true }));
  const dry = async (args: string[]) => k8ts(['init', '--dry-run', '--prefix', prefix, '--apiserver-advertise-address', '127.0.0.1',
    '--apiserver-bind-port', String(await freePort()), '--kubelet-port', String(await freePort()), '--controller-manager-port', String(await freePort()),
    '--scheduler-port', String(await freePort()), '--etcd-client-port', String(await freePort()), '--etcd-peer-port', String(await freePort()),
    '--node-name', 'dry', '--runtime', 'process', ...args]);

  it('--datastore sqlite writes no etcd.yaml and no etcd certificates; the API server keeps its database', async () => {
    const r = await dry(['--datastore', 'sqlite']);
    assert.equal(r.code, 0, r.stderr);
    assert.ok(!r.stdout.includes('etcd.yaml'), r.stdout);
    assert.ok(!r.stdout.includes('[etcd]'), r.stdout);
    assert.ok(!r.stdout.includes('--etcd-servers'), r.stdout);
    assert.ok(!r.stdout.includes('"etcd/ca"'), r.stdout);
  });

  it('ClusterConfiguration etcd.external: no local etcd, the API server on the given endpoints and files', async () => {
    const config = join(prefix, 'kubeadm.yaml');
    writeFileSync(config, `apiVersion: kubeadm.k8s.io/v1beta4
kind: InitConfiguration
---
apiVersion: kubeadm.k8s.io/v1beta4
kind: ClusterConfiguration
etcd:
  external:
    endpoints: [https://10.0.0.5:2379, https://10.0.0.6:2379]
    caFile: /etc/etcd/ca.crt
    certFile: /etc/etcd/client.crt
    keyFile: /etc/etcd/client.key
`);
    const r = await dry(['--config', config]);
    assert.equal(r.code, 0, r.stderr);
    assert.ok(r.stdout.includes('[certs] External etcd mode: Skipping etcd/ca certificate authority generation'), r.stdout);
    assert.ok(r.stdout.includes('[certs] External etcd mode: Skipping apiserver-etcd-client certificate generation'), r.stdout);
    assert.ok(!r.stdout.includes('[etcd] Creating'), r.stdout);
    for (const flag of ['--etcd-cafile=/etc/etcd/ca.crt', '--etcd-certfile=/etc/etcd/client.crt', '--etcd-keyfile=/etc/etcd/client.key',
      '--etcd-servers=https://10.0.0.5:2379,https://10.0.0.6:2379']) assert.ok(r.stdout.includes(flag), `${flag}\n${r.stdout}`);
  });

  it('an external etcd without endpoints is refused with kubeadm\'s field path', async () => {
    const config = join(prefix, 'bad.yaml');
    writeFileSync(config, 'apiVersion: kubeadm.k8s.io/v1beta4\nkind: ClusterConfiguration\netcd:\n  external:\n    caFile: /x\n');
    const r = await dry(['--config', config]);
    assert.equal(r.code, 1);
    assert.match(r.stderr, /^etcd\.external\.endpoints: Required value/);
  });
});
