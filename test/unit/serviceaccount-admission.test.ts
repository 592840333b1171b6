/** ServiceAccount admission's token volume, the kubelet's token cache and the master service's environment. */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Pod } from 'kubernetes-types/core/v1.js';
import type { TokenRequest } from 'kubernetes-types/authentication/v1.js';
import { mountServiceAccountToken, shouldAutomount, tokenVolumeSource } from '../../src/apiserver/admission/serviceaccount.js';
import { ServiceAccountTokenManager } from '../../src/kubelet/token/manager.js';
import { serviceEnvVars } from '../../src/kubelet/serviceenv.js';
import { volumePayload } from '../../src/kubelet/volumes/projection.js';

const path = '/var/run/secrets/kubernetes.io/serviceaccount';
const pod = (spec: Partial<Pod['spec']> = {}): Pod => ({ metadata: { name: 'p', namespace: 'ns', uid: 'u1' }, spec: { containers: [{ name: 'c' }], ...spec } as Pod['spec'] });

describe('ServiceAccount admission: the kube-api-access volume', () => {
  it('mounts one projected volume read-only in every init and app container', () => {
    const p = pod({ initContainers: [{ name: 'i' }], containers: [{ name: 'a' }, { name: 'b', volumeMounts: [{ name: 'x', mountPath: '/x' }] }], volumes: [{ name: 'x', emptyDir: {} }] });
    mountServiceAccountToken(p);
    const vol = p.spec!.volumes!.at(-1)!;
    assert.match(vol.name, /^kube-api-access-[bcdfghjklmnpqrstvwxz2456789]{5}$/);
    assert.deepEqual(vol.projected, {
      defaultMode: 420,
      sources: [
        { serviceAccountToken: { path: 'token', expirationSeconds: 3607 } },
        { configMap: { name: 'kube-root-ca.crt', items: [{ key: 'ca.crt', path: 'ca.crt' }] } },
        { downwardAPI: { items: [{ path: 'namespace', fieldRef: { apiVersion: 'v1', fieldPath: 'metadata.namespace' } }] } },
      ],
    });
    for (const c of [...p.spec!.initContainers!, ...p.spec!.containers]) {
      assert.deepEqual(c.volumeMounts!.at(-1), { name: vol.name, readOnly: true, mountPath: path }, c.name);
    }
    assert.equal(p.spec!.volumes!.length, 2);
  });

  it('leaves containers that already mount something at the path, and adds no volume when none needs it', () => {
    const p = pod({ containers: [{ name: 'c', volumeMounts: [{ name: 'mine', mountPath: path }] }], volumes: [{ name: 'mine', emptyDir: {} }] });
    mountServiceAccountToken(p);
    assert.deepEqual(p.spec!.volumes, [{ name: 'mine', emptyDir: {} }]);
    assert.deepEqual(p.spec!.containers[0].volumeMounts, [{ name: 'mine', mountPath: path }]);
  });

  it('reuses an existing kube-api-access volume', () => {
    const p = pod({ volumes: [{ name: 'kube-api-access-abcde', projected: tokenVolumeSource() }] });
    mountServiceAccountToken(p);
    assert.equal(p.spec!.volumes!.length, 1);
    assert.equal(p.spec!.containers[0].volumeMounts![0].name, 'kube-api-access-abcde');
  });

  it('automount: the pod\'s setting wins over the service account\'s; default true', () => {
    assert.equal(shouldAutomount({}, pod()), true);
    assert.equal(shouldAutomount({ automountServiceAccountToken: false }, pod()), false);
    assert.equal(shouldAutomount({ automountServiceAccountToken: false }, pod({ automountServiceAccountToken: true })), true);
    assert.equal(shouldAutomount({ automountServiceAccountToken: true }, pod({ automountServiceAccountToken: false })), false);
  });
});

describe('kubelet token cache', () => {
  const issued = (at: number, seconds: number, token: string): TokenRequest => ({
    spec: { audiences: [], expirationSeconds: seconds }, status: { token, expirationTimestamp: new Date(at + seconds * 1000).toISOString() },
  });
  it('hands out the cached token until 80 % of its life (less the jitter), then requests a new one', async () => {
    let now = 0;
    let n = 0;
    const m = new ServiceAccountTokenManager(async (_ns, _name, tr) => issued(now, tr.spec.expirationSeconds!, `t${++n}`), () => new Date(now), () => 0);
    const req: TokenRequest = { spec: { audiences: [], expirationSeconds: 1000, boundObjectRef: { kind: 'Pod', name: 'p', uid: 'u1' } } };
    assert.equal((await m.getServiceAccountToken('ns', 'sa', req)).status!.token, 't1');
    now = 800_000;
    assert.equal((await m.getServiceAccountToken('ns', 'sa', req)).status!.token, 't1');
    now = 800_001;
    assert.equal((await m.getServiceAccountToken('ns', 'sa', req)).status!.token, 't2');
    assert.equal((await m.getServiceAccountToken('ns', 'other', req)).status!.token, 't3', 'another service account is another entry');
    m.forgetPod('u1');
    assert.equal((await m.getServiceAccountToken('ns', 'sa', req)).status!.token, 't4');
  });

  it('refreshes a token older than 24 h whatever its life; a failed refresh keeps a valid token', async () => {
    let now = 0;
    let fail = false;
    const m = new ServiceAccountTokenManager(async (_ns, _name, tr) => {
      if (fail) throw new Error('apiserver down');
      return issued(now, tr.spec.expirationSeconds!, `t${now}`);
    }, () => new Date(now), () => 0);
    const req: TokenRequest = { spec: { audiences: [], expirationSeconds: 365 * 86400 } };
    await m.getServiceAccountToken('ns', 'sa', req);
    now = 24 * 3600 * 1000 + 1;
    assert.equal((await m.getServiceAccountToken('ns', 'sa', req)).status!.token, `t${now}`);
    fail = true;
    now += 300 * 86400 * 1000;
    assert.equal((await m.getServiceAccountToken('ns', 'sa', req)).status!.token, 't86400001');
    now += 100 * 86400 * 1000;
    await assert.rejects(m.getServiceAccountToken('ns', 'sa', req), /apiserver down/);
  });
});

describe('projected serviceAccountToken source', () => {
  it('requests a token bound to the pod with the source\'s audience and life', async () => {
    const asked: [string, string, TokenRequest][] = [];
    const get = {
      claim: async () => { throw new Error(); }, volume: async () => { throw new Error(); }, configMap: async () => ({ data: { 'ca.crt': 'CA' } }),
      secret: async () => { throw new Error(); },
      serviceAccountToken: async (ns: string, name: string, tr: TokenRequest) => { asked.push([ns, name, tr]); return { ...tr, status: { token: 'tok', expirationTimestamp: '' } }; },
    };
    const p = pod({ serviceAccountName: 'app' });
    const out = await volumePayload(p, { name: 'v', projected: { ...tokenVolumeSource(), sources: [...tokenVolumeSource().sources!, { serviceAccountToken: { path: 'vault', audience: 'vault', expirationSeconds: 600 } }] } }, get, { cpu: '1', memory: '1Gi' } as any);
    assert.deepEqual([...out.keys()], ['token', 'ca.crt', 'namespace', 'vault']);
    assert.equal(out.get('token')!.data.toString(), 'tok');
    assert.equal(out.get('token')!.mode, 0o644);
    assert.equal(out.get('namespace')!.data.toString(), 'ns');
    assert.deepEqual(asked.map(([ns, name, tr]) => [ns, name, tr.spec]), [
      ['ns', 'app', { audiences: [], expirationSeconds: 3607, boundObjectRef: { apiVersion: 'v1', kind: 'Pod', name: 'p', uid: 'u1' } }],
      ['ns', 'app', { audiences: ['vault'], expirationSeconds: 600, boundObjectRef: { apiVersion: 'v1', kind: 'Pod', name: 'p', uid: 'u1' } }],
    ]);
  });
});

describe('master service environment', () => {
  it('KUBERNETES_SERVICE_HOST/PORT and the docker-link variables, as upstream FromServices', () => {
    const env = serviceEnvVars({ metadata: { name: 'kubernetes' }, spec: { clusterIP: '10.96.0.1', ports: [{ name: 'https', port: 443, protocol: 'TCP' }] } });
    assert.deepEqual(Object.fromEntries(env), {
      KUBERNETES_SERVICE_HOST: '10.96.0.1', KUBERNETES_SERVICE_PORT: '443', KUBERNETES_SERVICE_PORT_HTTPS: '443',
      KUBERNETES_PORT: 'tcp://10.96.0.1:443', KUBERNETES_PORT_443_TCP: 'tcp://10.96.0.1:443', KUBERNETES_PORT_443_TCP_PROTO: 'tcp',
      KUBERNETES_PORT_443_TCP_PORT: '443', KUBERNETES_PORT_443_TCP_ADDR: '10.96.0.1',
    });
    assert.equal(serviceEnvVars({ metadata: { name: 'h' }, spec: { clusterIP: 'None', ports: [{ port: 1 }] } }).size, 0);
  });
});
