/** Static pods: manifest parsing, naming and hash; ignored names; mirror pods; mirror admission; the standalone kubelet. */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync, unlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Pod } from 'kubernetes-types/core/v1.js';
import {
  StandaloneKubelet, isIgnoredManifestName, isMirrorPodOf, mirrorPodFor, parseStaticPodManifest, staticPodHash, staticPodName,
} from '../../src/kubelet/staticpods/index.js';
import { SimulatedRuntime } from '../../src/kubelet/index.js';
import { validateMirrorPodReferences } from '../../src/apiserver/admission/mirror-pods.js';
import { StatusError } from '../../src/api/status.js';
import { silentLogger } from '../../src/util/log.js';

const ctx = { path: '/etc/kubernetes/manifests/web.yaml', nodeName: 'node-1' };
const webYAML = `apiVersion: v1
kind: Pod
metadata:
  name: static-web
  labels:
    app: web
spec:
  containers:
  - name: web-container
    image: nginx
    ports:
    - containerPort: 80
`;

function parsed(text: string, c = ctx): Pod {
  const r = parseStaticPodManifest(text, c);
  assert.ok(r.ok, r.ok ? '' : r.error);
  return r.pod;
}

function parseError(text: string): string {
  const r = parseStaticPodManifest(text, ctx);
  assert.ok(!r.ok, 'expected an error');
  return r.error;
}

describe('static pod manifest', () => {
  it('names the pod <name>-<node>, in default, bound to the node, with the config annotations', () => {
    const pod = parsed(webYAML);
    assert.equal(pod.metadata!.name, 'static-web-node-1');
    assert.equal(pod.metadata!.namespace, 'default');
    assert.equal(pod.spec!.nodeName, 'node-1');
    const a = pod.metadata!.annotations!;
    assert.match(pod.metadata!.uid!, /^[0-9a-f]{32}$/);
    assert.equal(a['kubernetes.io/config.hash'], pod.metadata!.uid);
    assert.equal(a['kubernetes.io/config.source'], 'file');
    assert.deepEqual(pod.metadata!.labels, { app: 'web' });
    assert.deepEqual(pod.spec!.tolerations, [{ operator: 'Exists', effect: 'NoExecute' }]);
    assert.equal(pod.status!.phase, 'Pending');
    // The API's v1 defaults, as decoding applies them upstream.
    assert.equal(pod.spec!.containers[0].imagePullPolicy, 'Always');
    assert.equal(pod.spec!.containers[0].ports![0].protocol, 'TCP');
    assert.equal(pod.spec!.restartPolicy, 'Always');
  });

  it('keeps the namespace of the manifest and an identical NoExecute toleration once', () => {
    const pod = parsed(webYAML.replace('  name: static-web\n', '  name: static-web\n  namespace: kube-system\n')
      .replace('spec:\n', 'spec:\n  tolerations:\n  - operator: Exists\n    effect: NoExecute\n  - key: a\n    operator: Exists\n'));
    assert.equal(pod.metadata!.namespace, 'kube-system');
    assert.deepEqual(pod.spec!.tolerations, [{ operator: 'Exists', effect: 'NoExecute' }, { key: 'a', operator: 'Exists' }]);
  });

  it('hashes the content, the node and the path; key order and formatting do not matter', () => {
    const uid = parsed(webYAML).metadata!.uid;
    const json = JSON.stringify({ kind: 'Pod', spec: { containers: [{ ports: [{ containerPort: 80 }], image: 'nginx', name: 'web-container' }] }, apiVersion: 'v1', metadata: { labels: { app: 'web' }, name: 'static-web' } });
    assert.equal(parsed(json).metadata!.uid, uid, 'the same pod in JSON');
    assert.equal(parsed(`# a comment\n${webYAML}`).metadata!.uid, uid);
    assert.notEqual(parsed(webYAML.replace('image: nginx', 'image: nginx:1.27')).metadata!.uid, uid);
    assert.notEqual(parsed(webYAML, { ...ctx, nodeName: 'node-2' }).metadata!.uid, uid);
    assert.notEqual(parsed(webYAML, { ...ctx, path: '/etc/kubernetes/manifests/other.yaml' }).metadata!.uid, uid);
    assert.equal(staticPodHash({ a: 1, b: [1, { c: 2, d: 3 }] }, ctx), staticPodHash({ b: [1, { d: 3, c: 2 }], a: 1 }, ctx));
  });

  it('uses a UID the manifest sets, as upstream does', () => {
    const pod = parsed(webYAML.replace('  name: static-web\n', '  name: static-web\n  uid: fixed-uid\n'));
    assert.equal(pod.metadata!.uid, 'fixed-uid');
    assert.equal(pod.metadata!.annotations!['kubernetes.io/config.hash'], 'fixed-uid');
  });

  it('reads only the first YAML document of a file, and says the rest was ignored', () => {
    const r = parseStaticPodManifest(`---\n${webYAML}---\n${webYAML.replace('static-web', 'second')}`, ctx);
    assert.ok(r.ok);
    assert.equal(r.pod.metadata!.name, 'static-web-node-1');
    assert.deepEqual(r.warnings, ['only the first YAML document is read; 1 more ignored']);
  });

  it('refuses what is not a valid v1 Pod, with upstream words', () => {
    assert.match(parseError('garbage: [\n'), /^couldn't parse as pod\(.*\), please check config file$/);
    assert.match(parseError('{"apiVersion": "v1", "kind": "Pod", '), /^couldn't parse as pod\(/);
    assert.equal(parseError('apiVersion: v1\nmetadata: {name: x}\n'), "couldn't parse as pod(Object 'Kind' is missing in manifest), please check config file");
    assert.equal(parseError(''), "couldn't parse as pod(Object 'Kind' is missing in manifest), please check config file");
    assert.match(parseError('apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: x}\n'), /^invalid pod: the manifest is a Deployment/);
    assert.equal(parseError('apiVersion: v1\nkind: Pod\nspec:\n  containers: [{name: c, image: i}]\n'), 'invalid pod: name is needed for the pod');
    assert.equal(parseError(webYAML.replace('    image: nginx\n', '')), 'invalid pod: [spec.containers[0].image: Required value]');
    assert.equal(parseError(webYAML.replace('name: web-container', 'name: Web_Container')),
      'invalid pod: [spec.containers[0].name: Invalid value: "Web_Container": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or \'-\', and must start and end with an alphanumeric character (e.g. \'my-name\',  or \'123-abc\', regex used for validation is \'[a-z0-9]([-a-z0-9]*[a-z0-9])?\')]');
    assert.match(parseError(webYAML.replace('containerPort: 80', 'containerPort: eighty')), /^couldn't parse as pod\(.*cannot unmarshal string/);
  });

  it('drops unknown fields as the decoder does', () => {
    const pod = parsed(webYAML.replace('spec:\n', 'spec:\n  bogusField: 1\n'));
    assert.ok(!("bogusField" in pod.spec!));
  });

  it('staticPodName lowercases the node name', () => {
    assert.equal(staticPodName('etcd', 'CP-1'), 'etcd-cp-1');
  });
});

describe('ignored manifest names', () => {
  const cases: [string, boolean][] = [
    ['web.yaml', false], ['web.json', false], ['kube-apiserver', false], ['web.yaml.bak', false],
    ['.web.yaml', true], ['.web.yaml.swp', true], ['web.yaml~', true], ['#web.yaml#', true], ['web.yaml.swp', true], ['4913', true], ['.', true],
  ];
  for (const [name, ignored] of cases) it(`${name} → ${ignored ? 'ignored' : 'read'}`, () => assert.equal(isIgnoredManifestName(name), ignored));
});

describe('mirror pods', () => {
  const pod = parsed(webYAML);
  it('a mirror is the static pod plus config.mirror and a controller reference to its Node', () => {
    const m = mirrorPodFor(pod, 'node-1', 'node-uid');
    assert.equal(m.metadata!.uid, undefined);
    assert.equal(m.metadata!.name, 'static-web-node-1');
    assert.equal(m.metadata!.annotations!['kubernetes.io/config.mirror'], pod.metadata!.uid);
    assert.equal(m.metadata!.annotations!['kubernetes.io/config.hash'], pod.metadata!.uid);
    assert.deepEqual(m.metadata!.ownerReferences, [{ apiVersion: 'v1', kind: 'Node', name: 'node-1', uid: 'node-uid', controller: true }]);
    assert.deepEqual(m.spec, pod.spec);
    assert.equal(m.status, undefined);
  });

  it('IsMirrorPodOf compares name, namespace and the hash only', () => {
    const m = { ...mirrorPodFor(pod, 'node-1', 'n'), spec: { containers: [{ name: 'other', image: 'changed' }] } } as Pod;
    assert.ok(isMirrorPodOf(m, pod));
    const other = parsed(webYAML.replace('image: nginx', 'image: nginx:2'));
    assert.ok(!isMirrorPodOf(m, other), 'another hash');
    assert.ok(!isMirrorPodOf({ ...m, metadata: { ...m.metadata, annotations: {} } }, pod), 'not a mirror');
    assert.ok(!isMirrorPodOf({ ...m, metadata: { ...m.metadata, namespace: 'x' } }, pod), 'another namespace');
  });
});

describe('mirror pod admission (ServiceAccount plugin)', () => {
  const refused = (spec: Record<string, unknown>): string | undefined => {
    try {
      validateMirrorPodReferences({ metadata: { name: 'm-node', annotations: { 'kubernetes.io/config.mirror': 'h' } }, spec: { containers: [{ name: 'c', image: 'i' }], ...spec } } as Pod);
      return undefined;
    } catch (e) {
      assert.ok(e instanceof StatusError);
      assert.equal(e.code, 403);
      return e.message;
    }
  };
  it('refuses service accounts, secrets and token projections with upstream messages', () => {
    assert.equal(refused({}), undefined);
    assert.equal(refused({ serviceAccountName: 'default' }), 'pods "m-node" is forbidden: a mirror pod may not reference service accounts');
    const secretMsg = 'pods "m-node" is forbidden: a mirror pod may not reference secrets';
    assert.equal(refused({ volumes: [{ name: 'v', secret: { secretName: 's' } }] }), secretMsg);
    assert.equal(refused({ imagePullSecrets: [{ name: 's' }] }), secretMsg);
    assert.equal(refused({ containers: [{ name: 'c', image: 'i', env: [{ name: 'E', valueFrom: { secretKeyRef: { name: 's', key: 'k' } } }] }] }), secretMsg);
    assert.equal(refused({ initContainers: [{ name: 'c', image: 'i', envFrom: [{ secretRef: { name: 's' } }] }] }), secretMsg);
    assert.equal(refused({ volumes: [{ name: 'v', projected: { sources: [{ secret: { name: 's' } }] } }] }), secretMsg);
    assert.equal(refused({ volumes: [{ name: 'v', projected: { sources: [{ serviceAccountToken: { path: 't' } }] } }] }),
      'pods "m-node" is forbidden: a mirror pod may not use ServiceAccountToken volume projections');
    assert.equal(refused({ volumes: [{ name: 'v', configMap: { name: 'c' } }] }), undefined, 'configmaps are NodeRestriction\'s business');
  });
});

describe('standalone kubelet', () => {
  async function until<T>(what: string, f: () => T | undefined | false): Promise<T> {
    const deadline = Date.now() + 5000;
    for (;;) {
      const v = f();
      if (v) return v;
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
      await new Promise((r) => setTimeout(r, 20));
    }
  }

  it('runs the directory\'s pods with no API server: add, change, invalid file, remove', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'k8ts-static-'));
    const kubelet = new StandaloneKubelet({ runtime: new SimulatedRuntime({ podCIDR: '10.244.9.0/24', hostIP: '172.16.0.9' }), logger: silentLogger },
      { nodeName: 'solo', internalIP: '172.16.0.9', manifestPath: dir, fileCheckIntervalMs: 100, deleteDelayMs: 10 });
    try {
      writeFileSync(join(dir, 'web.yaml'), webYAML);
      writeFileSync(join(dir, '.hidden.yaml'), webYAML.replace('static-web', 'hidden'));
      await kubelet.start();
      const running = (name: string) => {
        const s = kubelet.podStatuses().get(`default/${name}`);
        return s?.phase === 'Running' && s.containerStatuses?.[0].state?.running ? s.containerStatuses[0].containerID : undefined;
      };
      const first = await until('static-web-solo running', () => running('static-web-solo'));
      assert.deepEqual([...kubelet.podStatuses().keys()], ['default/static-web-solo']);

      writeFileSync(join(dir, 'broken.yaml'), 'apiVersion: v1\nkind: Pod\n');
      writeFileSync(join(dir, 'web.yaml'), webYAML.replace('image: nginx', 'image: nginx:1.27'));
      const second = await until('a new static-web-solo', () => { const id = running('static-web-solo'); return id !== first && id; });
      assert.notEqual(second, first);
      assert.equal(kubelet.staticPods.pods()[0].spec!.containers[0].image, 'nginx:1.27');

      unlinkSync(join(dir, 'web.yaml'));
      await until('static-web-solo gone', () => kubelet.staticPods.pods().length === 0);
      assert.equal(kubelet.podStatuses().size, 0);
    } finally {
      await kubelet.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
