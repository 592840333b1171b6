/**
 * application/vnd.kubernetes.protobuf on the wire, as client-go sends and
 * reads it: every `kubectl create <generator>` for the kinds k8ts serves
 * (kubectl 1.32 posts them in protobuf), protobuf and JSON bodies storing the
 * same object, protobuf answers (objects, lists, Status errors, Scale, watch
 * frames), CustomResourceDefinitions in protobuf while their custom resources
 * stay JSON, Tables and custom renderings staying JSON, and bodies that do not
 * decode answered with a 400 while the server keeps serving.
 */
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { startCluster, eventually, Cluster } from './harness.js';
import { apiRequest, apiServerOnly, lineReader, killChild, manifestDir } from './helpers.js';
import { binaryRequest, binaryStream, protobufType } from './protobuf-client.js';
import { decodeObject, decodeWatchFrames, encodeObject, protobufWatchMediaType } from '../../src/api/protobuf/envelope.js';
import { protoRoot } from '../../src/api/protobuf/table.js';
import { gnosticV2Root } from '../../src/apiserver/openapi/gnostic-v2.js';
import { parse } from 'yaml';

let cluster: Cluster;
const files = manifestDir();

before(async () => { cluster = await startCluster(apiServerOnly); });
after(async () => { await cluster?.cleanup(); files.close(); });

const pods = '/api/v1/namespaces/default/pods';

async function assertServing(): Promise<void> {
  const res = await apiRequest(cluster, '/version');
  assert.equal(res.status, 200);
  const cm = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `alive-${Date.now()}-${Math.random().toString(36).slice(2, 7)}` } };
  assert.equal((await binaryRequest(cluster, '/api/v1/namespaces/default/configmaps', { method: 'POST', body: encodeObject(cm) })).status, 201);
}

/** A self-signed certificate and key for `kubectl create secret tls` (kubectl checks that they match). */
function tlsFiles(): { cert: string; key: string } {
  const cert = files.write('tls.crt', '');
  const key = files.write('tls.key', '');
  execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', key, '-out', cert, '-days', '1', '-subj', '/CN=proto.test'], { stdio: 'ignore' });
  return { cert, key };
}

describe('kubectl create generators (protobuf bodies)', () => {
  test('namespace, deployment, configmap, secrets, services and serviceaccount are created and read back', async () => {
    const { cert, key } = tlsFiles();
    const cases: [string[], string][] = [
      [['create', 'namespace', 'foo'], 'namespace/foo created'],
      [['create', 'deployment', 'web', '--image=nginx', '--replicas=2'], 'deployment.apps/web created'],
      [['create', 'configmap', 'cm', '--from-literal=a=b', '--from-literal=c=d'], 'configmap/cm created'],
      [['create', 'secret', 'generic', 'sec', '--from-literal=password=s3cr3t'], 'secret/sec created'],
      [['create', 'secret', 'docker-registry', 'reg', '--docker-server=r.example', '--docker-username=u', '--docker-password=p'], 'secret/reg created'],
      [['create', 'secret', 'tls', 'tls', `--cert=${cert}`, `--key=${key}`], 'secret/tls created'],
      [['create', 'service', 'clusterip', 'svc-c', '--tcp=80:8080'], 'service/svc-c created'],
      [['create', 'service', 'nodeport', 'svc-n', '--tcp=81:8081'], 'service/svc-n created'],
      [['create', 'service', 'loadbalancer', 'svc-l', '--tcp=82:8082'], 'service/svc-l created'],
      [['create', 'service', 'externalname', 'svc-e', '--external-name=db.example.com'], 'service/svc-e created'],
      [['create', 'serviceaccount', 'robot'], 'serviceaccount/robot created'],
    ];
    for (const [args, out] of cases) {
      const res = await cluster.kubectl(args);
      assert.equal(res.stdout.trim(), out, args.join(' '));
    }
    const ns = (await cluster.kubectl(['get', 'namespace', 'foo', '-o', 'json'])).stdout;
    assert.equal(JSON.parse(ns).status.phase, 'Active');
    const deploy = JSON.parse((await cluster.kubectl(['get', 'deployment', 'web', '-o', 'json'])).stdout);
    assert.equal(deploy.spec.replicas, 2);
    assert.deepEqual(deploy.spec.selector, { matchLabels: { app: 'web' } });
    assert.equal(deploy.spec.template.spec.containers[0].image, 'nginx');
    assert.equal(deploy.spec.strategy.rollingUpdate.maxSurge, '25%');
    const yaml = (await cluster.kubectl(['get', 'deployment', 'web', '-o', 'yaml'])).stdout;
    assert.match(yaml, /replicas: 2/);
    const cm = JSON.parse((await cluster.kubectl(['get', 'configmap', 'cm', '-o', 'json'])).stdout);
    assert.deepEqual(cm.data, { a: 'b', c: 'd' });
    const sec = JSON.parse((await cluster.kubectl(['get', 'secret', 'sec', '-o', 'json'])).stdout);
    assert.equal(Buffer.from(sec.data.password, 'base64').toString(), 's3cr3t');
    assert.equal(sec.type, 'Opaque');
    const reg = JSON.parse((await cluster.kubectl(['get', 'secret', 'reg', '-o', 'json'])).stdout);
    assert.equal(reg.type, 'kubernetes.io/dockerconfigjson');
    assert.equal(JSON.parse(Buffer.from(reg.data['.dockerconfigjson'], 'base64').toString()).auths['r.example'].username, 'u');
    const tls = JSON.parse((await cluster.kubectl(['get', 'secret', 'tls', '-o', 'json'])).stdout);
    assert.match(Buffer.from(tls.data['tls.crt'], 'base64').toString(), /BEGIN CERTIFICATE/);
    const svc = JSON.parse((await cluster.kubectl(['get', 'service', 'svc-c', '-o', 'json'])).stdout);
    assert.deepEqual(svc.spec.ports.map((p: any) => [p.port, p.targetPort, p.protocol]), [[80, 8080, 'TCP']]);
    assert.equal(svc.spec.type, 'ClusterIP');
    assert.match(svc.spec.clusterIP, /^\d+\.\d+\.\d+\.\d+$/);
    const np = JSON.parse((await cluster.kubectl(['get', 'service', 'svc-n', '-o', 'json'])).stdout);
    assert.ok(np.spec.ports[0].nodePort >= 30000);
    const ext = JSON.parse((await cluster.kubectl(['get', 'service', 'svc-e', '-o', 'json'])).stdout);
    assert.equal(ext.spec.externalName, 'db.example.com');
    assert.equal((await cluster.kubectl(['get', 'serviceaccount', 'robot', '-o', 'name'])).stdout, 'serviceaccount/robot\n');
  });

  test('kubectl scale, label, delete and run go through the typed (protobuf) paths', async () => {
    await cluster.kubectl(['create', 'deployment', 'scaled', '--image=nginx']);
    assert.equal((await cluster.kubectl(['scale', 'deployment', 'scaled', '--replicas=3'])).stdout, 'deployment.apps/scaled scaled\n');
    assert.equal(JSON.parse((await cluster.kubectl(['get', 'deployment', 'scaled', '-o', 'json'])).stdout).spec.replicas, 3);
    assert.equal((await cluster.kubectl(['run', 'runner', '--image=busybox', '--restart=Never', '--', 'sleep', '1'])).stdout, 'pod/runner created\n');
    assert.equal((await cluster.kubectl(['delete', 'namespace', 'foo', '--wait=false'])).stdout, 'namespace "foo" deleted\n');
  });

  test('kubectl get -w still streams (JSON Tables)', async () => {
    const child = cluster.spawnKubectl(['get', 'configmaps', '-w', '--no-headers']);
    const lines = lineReader(child);
    try {
      await cluster.kubectl(['create', 'configmap', 'watched', '--from-literal=x=y']);
      await lines.waitFor((l) => l.startsWith('watched '), 'the watched configmap');
    } finally {
      await killChild(child);
    }
  });
});

describe('protobuf and JSON bodies', () => {
  const pod = (name: string) => ({
    apiVersion: 'v1', kind: 'Pod',
    metadata: { name, labels: { app: 'p', tier: 'x' }, annotations: { note: 'n' } },
    spec: {
      containers: [{
        name: 'c', image: 'nginx:1.27', args: ['-g', 'daemon off;'], ports: [{ name: 'http', containerPort: 80, protocol: 'TCP' }],
        env: [{ name: 'A', value: '1' }, { name: 'B', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } }],
        resources: { requests: { cpu: '100m', memory: '64Mi' }, limits: { memory: '128Mi' } },
        readinessProbe: { httpGet: { path: '/', port: 'http' }, periodSeconds: 5 },
      }],
      tolerations: [{ key: 'k', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 30 }],
      volumes: [{ name: 'v', emptyDir: { sizeLimit: '1Gi' } }],
      terminationGracePeriodSeconds: 0,
    },
  });
  /** What differs between two stored pods however they were sent. */
  const normalize = (p: any) => {
    const { uid: _u, name: _n, resourceVersion: _r, creationTimestamp: _c, ...meta } = p.metadata;
    // managedFields carry the second of each write.
    if (meta.managedFields) meta.managedFields = meta.managedFields.map(({ time: _t, ...e }: any) => e);
    // ServiceAccount admission names each pod's token volume kube-api-access-<5 random characters>.
    return JSON.parse(JSON.stringify({ ...p, metadata: meta }).replace(/kube-api-access-[a-z0-9]{5}/g, 'kube-api-access-xxxxx'));
  };

  test('a Pod posted as protobuf is stored as the same object as the same Pod posted as JSON, and answered in protobuf', async () => {
    const res = await binaryRequest(cluster, pods, { method: 'POST', body: encodeObject(pod('pb-pod')) });
    assert.equal(res.status, 201, res.body.toString());
    assert.equal(res.headers['content-type'], protobufType);
    const created = decodeObject(res.body).object as any;
    assert.equal(created.metadata.name, 'pb-pod');
    assert.equal((await apiRequest(cluster, pods, { method: 'POST', body: JSON.stringify(pod('json-pod')) })).status, 201);
    const viaJSON = (await apiRequest(cluster, `${pods}/json-pod`)).json();
    const viaProtobuf = (await apiRequest(cluster, `${pods}/pb-pod`)).json();
    assert.deepEqual(normalize(viaProtobuf), normalize(viaJSON));
    assert.equal(viaProtobuf.spec.terminationGracePeriodSeconds, 0);
    assert.equal(viaProtobuf.spec.containers[0].readinessProbe.httpGet.port, 'http');
    // The protobuf answer decodes to what the JSON GET serves.
    assert.deepEqual(created, viaProtobuf);
  });

  test('update, DeleteOptions and subresource bodies in protobuf', async () => {
    const cm = (data: Record<string, string>) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'pb-cm' }, data, binaryData: { bin: Buffer.from([0, 1, 2, 255]).toString('base64') } });
    const cms = '/api/v1/namespaces/default/configmaps';
    assert.equal((await binaryRequest(cluster, cms, { method: 'POST', body: encodeObject(cm({ a: '1' })) })).status, 201);
    const put = await binaryRequest(cluster, `${cms}/pb-cm`, { method: 'PUT', body: encodeObject(cm({ a: '2' })) });
    assert.equal(put.status, 200, put.body.toString());
    const stored = (await apiRequest(cluster, `${cms}/pb-cm`)).json();
    assert.deepEqual(stored.data, { a: '2' });
    assert.deepEqual(Buffer.from(stored.binaryData.bin, 'base64'), Buffer.from([0, 1, 2, 255]));

    // Scale: GET and PUT in protobuf.
    const deploy = JSON.parse((await cluster.kubectl(['create', 'deployment', 'pb-scale', '--image=nginx', '--dry-run=client', '-o', 'json'])).stdout);
    assert.equal((await binaryRequest(cluster, '/apis/apps/v1/namespaces/default/deployments', { method: 'POST', body: encodeObject(deploy) })).status, 201);
    const scaleURL = '/apis/apps/v1/namespaces/default/deployments/pb-scale/scale';
    const scale = decodeObject((await binaryRequest(cluster, scaleURL)).body).object as any;
    assert.equal(scale.kind, 'Scale');
    assert.equal(scale.spec.replicas, 1);
    const scaled = await binaryRequest(cluster, scaleURL, { method: 'PUT', body: encodeObject({ ...scale, spec: { replicas: 0 } }) });
    assert.equal(scaled.status, 200, scaled.body.toString());
    // ScaleSpec.replicas is a plain int32 with omitempty: 0 is sent and answered as absent, as Go's JSON form has it.
    assert.deepEqual((decodeObject(scaled.body).object as any).spec, {});
    assert.equal((await apiRequest(cluster, '/apis/apps/v1/namespaces/default/deployments/pb-scale')).json().spec.replicas, 0);

    // Binding, then eviction with DeleteOptions inside, both protobuf.
    assert.equal((await binaryRequest(cluster, pods, { method: 'POST', body: encodeObject(pod('pb-bound')) })).status, 201);
    const bind = await binaryRequest(cluster, `${pods}/pb-bound/binding`, { method: 'POST', body: encodeObject({ apiVersion: 'v1', kind: 'Binding', metadata: { name: 'pb-bound' }, target: { kind: 'Node', name: 'n1' } }) });
    assert.equal(bind.status, 201, bind.body.toString());
    assert.equal((await apiRequest(cluster, `${pods}/pb-bound`)).json().spec.nodeName, 'n1');
    const evict = await binaryRequest(cluster, `${pods}/pb-bound/eviction`, {
      method: 'POST', body: encodeObject({ apiVersion: 'policy/v1', kind: 'Eviction', metadata: { name: 'pb-bound' }, deleteOptions: { gracePeriodSeconds: 0 } }),
    });
    assert.equal(evict.status, 201, evict.body.toString());
    assert.equal((decodeObject(evict.body).object as any).status, 'Success');

    // DELETE with a protobuf DeleteOptions body (preconditions that do not match: 409).
    const del = await binaryRequest(cluster, `${cms}/pb-cm`, {
      method: 'DELETE', body: encodeObject({ apiVersion: 'v1', kind: 'DeleteOptions', preconditions: { uid: 'not-the-uid' } }),
    });
    assert.equal(del.status, 409, del.body.toString());
    const ok = await binaryRequest(cluster, `${cms}/pb-cm`, { method: 'DELETE', body: encodeObject({ apiVersion: 'v1', kind: 'DeleteOptions', preconditions: { uid: stored.metadata.uid } }) });
    assert.equal(ok.status, 200, ok.body.toString());
  });

  test('lists, Status errors and watch frames in protobuf; Tables and custom resources stay JSON', async () => {
    const list = await binaryRequest(cluster, pods);
    assert.equal(list.headers['content-type'], protobufType);
    const decoded = decodeObject(list.body).object as any;
    assert.equal(decoded.kind, 'PodList');
    assert.ok(decoded.items.some((p: any) => p.metadata.name === 'pb-pod'));
    assert.match(decoded.metadata.resourceVersion, /^\d+$/);

    const missing = await binaryRequest(cluster, `${pods}/nope`);
    assert.equal(missing.status, 404);
    assert.equal(missing.headers['content-type'], protobufType);
    assert.deepEqual(decodeObject(missing.body).object, {
      kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'pods "nope" not found', reason: 'NotFound', details: { name: 'nope', kind: 'pods' }, code: 404,
    });

    const table = await binaryRequest(cluster, pods, { accept: 'application/json;as=Table;v=v1;g=meta.k8s.io,application/json' });
    assert.equal(table.headers['content-type'], 'application/json');
    assert.equal(JSON.parse(table.body.toString()).kind, 'Table');
    // Discovery and other non-resource answers are JSON whatever the client prefers.
    const version = await binaryRequest(cluster, '/version');
    assert.equal(version.headers['content-type'], 'application/json');

    const watch = await binaryStream(cluster, `${pods}?watch=1&allowWatchBookmarks=true`);
    try {
      assert.equal(watch.status, 200);
      assert.equal(watch.headers['content-type'], protobufWatchMediaType);
      await apiRequest(cluster, pods, { method: 'POST', body: JSON.stringify(pod('pb-watched')) });
      const events = await eventually(async () => {
        const { events } = decodeWatchFrames(watch.data());
        return events.some((e: any) => e.type === 'ADDED' && e.object.metadata.name === 'pb-watched') && events;
      }, 10_000, 'the ADDED frame');
      const added = events.find((e: any) => e.object.metadata.name === 'pb-watched')!;
      assert.equal((added.object as any).kind, 'Pod');
      assert.deepEqual(added.object, (await apiRequest(cluster, `${pods}/pb-watched`)).json());
    } finally {
      watch.close();
    }
  });
});

describe('CustomResourceDefinitions in protobuf (custom resources stay JSON)', () => {
  const crds = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';
  const crd = (group: string) => ({
    apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', metadata: { name: `widgets.${group}`, labels: { via: 'test' } },
    spec: {
      group, scope: 'Namespaced', names: { plural: 'widgets', singular: 'widget', kind: 'Widget', shortNames: ['wd'], categories: ['all'] },
      versions: [{
        name: 'v1', served: true, storage: true,
        subresources: { status: {}, scale: { specReplicasPath: '.spec.replicas', statusReplicasPath: '.status.replicas' } },
        additionalPrinterColumns: [{ name: 'Mode', type: 'string', jsonPath: '.spec.mode' }],
        schema: {
          openAPIV3Schema: {
            type: 'object',
            properties: {
              spec: {
                type: 'object', additionalProperties: false, required: ['mode'],
                properties: {
                  mode: { type: 'string', enum: ['fast', 'slow', null], default: 'slow', nullable: true },
                  port: { 'x-kubernetes-int-or-string': true, example: 8080 },
                  replicas: { type: 'integer', minimum: 0, maximum: 10.5, format: 'int32' },
                  labels: { type: 'object', additionalProperties: { type: 'string' } },
                  tags: { type: 'array', items: { type: 'string' }, 'x-kubernetes-list-type': 'set' },
                  blob: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true, default: { a: [1, 'x'] } },
                },
                'x-kubernetes-validations': [{ rule: 'self.mode != "bad"', message: 'no bad mode' }],
              },
              status: { type: 'object', properties: { replicas: { type: 'integer' } } },
            },
          },
        },
      }],
    },
  });
  /** What differs between two CRDs of different groups however they were sent. */
  const normalize = (c: any) => {
    const { uid: _u, name: _n, resourceVersion: _r, creationTimestamp: _c, generation: _g, managedFields: _m, ...meta } = c.metadata;
    const conditions = c.status?.conditions?.map(({ lastTransitionTime: _t, ...rest }: any) => rest);
    return { ...c, metadata: meta, spec: { ...c.spec, group: 'g' }, status: { ...c.status, conditions } };
  };
  const established = (name: string) => eventually(async () => {
    const got = (await apiRequest(cluster, `${crds}/${name}`)).json();
    return got.status?.conditions?.some((x: any) => x.type === 'Established' && x.status === 'True') && got;
  }, 30_000, `${name} Established`);

  test('the extension points in protobuf: a webhook configuration posted and read back, the built-in APIServices listed', async () => {
    const path = '/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations';
    const config = {
      apiVersion: 'admissionregistration.k8s.io/v1', kind: 'ValidatingWebhookConfiguration', metadata: { name: 'pb-hooks' },
      webhooks: [{
        name: 'pb.example.com', admissionReviewVersions: ['v1'], sideEffects: 'None', failurePolicy: 'Ignore',
        clientConfig: { url: 'https://127.0.0.1:1/validate', caBundle: Buffer.from('not a real CA').toString('base64') },
        rules: [{ operations: ['CREATE'], apiGroups: ['example.com'], apiVersions: ['v1'], resources: ['nothings'] }],
      }],
    };
    const created = await binaryRequest(cluster, path, { method: 'POST', body: encodeObject(config) });
    assert.equal(created.status, 201, created.body.toString());
    assert.equal(created.headers['content-type'], protobufType);
    const got = await binaryRequest(cluster, `${path}/pb-hooks`);
    assert.equal(got.headers['content-type'], protobufType);
    const asJSON = (await apiRequest(cluster, `${path}/pb-hooks`)).json();
    assert.deepEqual(decodeObject(got.body).object, asJSON);
    assert.deepEqual(asJSON.webhooks[0].rules[0], { operations: ['CREATE'], apiGroups: ['example.com'], apiVersions: ['v1'], resources: ['nothings'], scope: '*' });
    const services = await binaryRequest(cluster, '/apis/apiregistration.k8s.io/v1/apiservices');
    assert.equal(services.headers['content-type'], protobufType);
    const names = (decodeObject(services.body).object as any).items.map((s: any) => s.metadata.name);
    assert.ok(names.includes('v1.apps'), names.join(' '));
    assert.equal((await apiRequest(cluster, `${path}/pb-hooks`, { method: 'DELETE' })).status, 200);
  });

  test('a CRD posted as protobuf is stored as the same CRD posted as JSON, and is answered in protobuf', async () => {
    const res = await binaryRequest(cluster, crds, { method: 'POST', body: encodeObject(crd('pb.example.com')) });
    assert.equal(res.status, 201, res.body.toString());
    assert.equal(res.headers['content-type'], protobufType);
    assert.equal((decodeObject(res.body).object as any).metadata.name, 'widgets.pb.example.com');
    const json = await apiRequest(cluster, crds, { method: 'POST', body: JSON.stringify(crd('json.example.com')) });
    assert.equal(json.status, 201, json.body);
    const viaProtobuf = await established('widgets.pb.example.com');
    const viaJSON = await established('widgets.json.example.com');
    assert.deepEqual(normalize(viaProtobuf), normalize(viaJSON));
    const props = viaProtobuf.spec.versions[0].schema.openAPIV3Schema.properties.spec;
    assert.deepEqual(props.properties.mode.enum, ['fast', 'slow', null]);
    assert.equal(props.additionalProperties, false);
    assert.deepEqual(props.properties.labels.additionalProperties, { type: 'string' });
    assert.deepEqual(props.properties.blob.default, { a: [1, 'x'] });
    assert.equal(props.properties.port['x-kubernetes-int-or-string'], true);

    // GET with a protobuf Accept: the same object as the JSON GET; the list too.
    const got = await binaryRequest(cluster, `${crds}/widgets.pb.example.com`);
    assert.equal(got.headers['content-type'], protobufType);
    assert.deepEqual(decodeObject(got.body).object, (await apiRequest(cluster, `${crds}/widgets.pb.example.com`)).json());
    const list = await binaryRequest(cluster, `${crds}?labelSelector=via%3Dtest`);
    assert.equal(list.headers['content-type'], protobufType);
    const items = (decodeObject(list.body).object as any).items.map((x: any) => x.metadata.name).sort();
    assert.deepEqual(items, ['widgets.json.example.com', 'widgets.pb.example.com']);

    // kubectl reads it as before.
    const yaml = (await cluster.kubectl(['get', 'crd', 'widgets.pb.example.com', '-o', 'yaml'])).stdout;
    assert.match(yaml, /^kind: CustomResourceDefinition$/m);
    assert.match(yaml, /x-kubernetes-int-or-string: true/);
    assert.match(yaml, /additionalProperties: false/);

    // The custom resources themselves have no protobuf form: a protobuf body is refused, a protobuf Accept gets JSON.
    const widgets = '/apis/pb.example.com/v1/namespaces/default/widgets';
    const widget = { apiVersion: 'pb.example.com/v1', kind: 'Widget', metadata: { name: 'w' }, spec: { mode: 'fast' } };
    const refused = await binaryRequest(cluster, widgets, { method: 'POST', body: envelope('pb.example.com/v1', 'Widget', Buffer.from('{}')) });
    assert.equal(refused.status, 415, refused.body.toString());
    const created = await binaryRequest(cluster, widgets, { method: 'POST', body: JSON.stringify(widget), contentType: 'application/json' });
    assert.equal(created.status, 201, created.body.toString());
    assert.match(String(created.headers['content-type']), /^application\/json/);
    assert.equal(JSON.parse(created.body.toString()).spec.mode, 'fast');
  });
});

/** The raw Pod message inside an envelope. */
function podBytes(): Buffer {
  const unknown = protoRoot().lookupType('k8s.io.apimachinery.pkg.runtime.Unknown').decode(encodeObject({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'trunc', labels: { a: 'b' } } })!.subarray(4)) as any;
  return Buffer.from(unknown.raw);
}

/** `k8s\0` + Unknown around any raw bytes. */
function envelope(apiVersion: string, kind: string, raw: Buffer): Buffer {
  const unknown = protoRoot().lookupType('k8s.io.apimachinery.pkg.runtime.Unknown').encode({ typeMeta: { apiVersion, kind }, raw }).finish();
  return Buffer.concat([Buffer.from('k8s\0', 'latin1'), unknown]);
}

describe('protobuf bodies that do not decode', () => {
  const cases: [string, Buffer, RegExp][] = [
    ['no magic', Buffer.from('{"kind":"Pod"}'), /^the object provided is unrecognized \(must be of type Pod\): provided data does not appear to be a protobuf message, expected prefix \[107 56 115 0\] \(\{"kind":"Pod"\}\)$/],
    ['an empty body', Buffer.alloc(0), /^the object provided is unrecognized \(must be of type Pod\): provided data does not appear to be a protobuf message/],
    ['a truncated envelope', Buffer.from([0x6b, 0x38, 0x73, 0x00, 0x0a, 0x20, 0x0a]), /^the object provided is unrecognized \(must be of type Pod\): unexpected EOF/],
    // The envelope cut short: upstream cannot read its kind either.
    ['a truncated envelope around a Pod', (() => { const b = encodeObject({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'trunc' } })!; return b.subarray(0, b.length - 3); })(),
      /^the object provided is unrecognized \(must be of type Pod\): unexpected EOF \(6b387300/],
    // A whole envelope whose Pod is cut short: the kind is known.
    ['a truncated Pod', envelope('v1', 'Pod', podBytes().subarray(0, 9)), /^Pod in version "v1" cannot be handled as a Pod: unexpected EOF$/],
    ['a Pod field with the wrong wire type', envelope('v1', 'Pod', Buffer.from([0x0f])), /^Pod in version "v1" cannot be handled as a Pod: proto: illegal wireType 7$/],
    ['an unknown kind', envelope('v1', 'ConfigMaq', Buffer.alloc(0)),
      /^ConfigMaq in version "v1" cannot be handled as a Pod: no kind "ConfigMaq" is registered for version "v1"/],
  ];
  for (const [what, body, message] of cases) {
    test(`${what}: 400 BadRequest with a clear message, and the server still serves`, async () => {
      const res = await binaryRequest(cluster, pods, { method: 'POST', body, accept: 'application/json' });
      assert.equal(res.status, 400);
      const status = JSON.parse(res.body.toString());
      assert.equal(status.reason, 'BadRequest');
      assert.match(status.message, message);
      await assertServing();
    });
  }
});

describe('/openapi/v2', () => {
  test('one Swagger 2.0 document in JSON whose references all resolve, from the definitions /openapi/v3 serves', async () => {
    const res = await binaryRequest(cluster, '/openapi/v2', { accept: 'application/json' });
    assert.equal(res.status, 200);
    assert.equal(res.headers['content-type'], 'application/json');
    assert.match(String(res.headers.etag), /^"[0-9A-F]{128}"$/);
    const doc = JSON.parse(res.body.toString());
    assert.equal(doc.swagger, '2.0');
    const create = doc.paths['/api/v1/namespaces/{namespace}/pods'].post;
    assert.deepEqual(create.parameters[0], { name: 'body', in: 'body', required: true, schema: { $ref: '#/definitions/io.k8s.api.core.v1.Pod' } });
    assert.deepEqual(create['x-kubernetes-group-version-kind'], { group: '', version: 'v1', kind: 'Pod' });
    assert.ok(create.produces.includes('application/vnd.kubernetes.protobuf'));
    assert.equal(doc.paths['/apis/apps/v1/namespaces/{namespace}/deployments/{name}/scale'].put.parameters[0].schema.$ref, '#/definitions/io.k8s.api.autoscaling.v1.Scale');
    assert.equal(doc.definitions['io.k8s.apimachinery.pkg.util.intstr.IntOrString'].format, 'int-or-string');
    assert.equal(doc.definitions['io.k8s.api.core.v1.Pod'].properties.metadata.$ref, '#/definitions/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta');
    // Every reference resolves; nothing of v3's vocabulary is left.
    const text = res.body.toString();
    for (const [, name] of text.matchAll(/"\$ref":"#\/definitions\/([^"]+)"/g)) assert.ok(doc.definitions[name], `unresolved ${name}`);
    for (const v3Word of ['components/schemas', '"requestBody"']) assert.equal(text.includes(v3Word), false, v3Word);
    // oneOf as a schema keyword is v3's; as a property name (JSONSchemaProps.oneOf) it is data.
    assert.deepEqual(schemaKeywordPaths(doc.definitions, 'oneOf'), []);
    // The definitions are the v3 documents' (same descriptions).
    const v3 = JSON.parse((await apiRequest(cluster, '/openapi/v3/api/v1')).body);
    assert.equal(doc.definitions['io.k8s.api.core.v1.PodSpec'].description, v3.components.schemas['io.k8s.api.core.v1.PodSpec'].description);
  });

  test('gnostic\'s protobuf form for a client that asks for it, under the JSON form\'s ETag; 406 only when neither form is acceptable', async () => {
    const json = await binaryRequest(cluster, '/openapi/v2', { accept: 'application/json' });
    const doc = JSON.parse(json.body.toString());
    const Document = gnosticV2Root().lookupType('openapi.v2.Document');
    for (const accept of ['application/com.github.proto-openapi.spec.v2@v1.0+protobuf', 'application/com.github.proto-openapi.spec.v2.v1.0+protobuf',
      'application/json;q=0.5, application/com.github.proto-openapi.spec.v2@v1.0+protobuf']) {
      const res = await binaryRequest(cluster, '/openapi/v2', { accept });
      assert.equal(res.status, 200, accept);
      assert.equal(res.headers['content-type'], 'application/com.github.proto-openapi.spec.v2.v1.0+protobuf', accept);
      assert.equal(res.headers.etag, json.headers.etag);
      assert.equal(res.headers.vary, 'Accept');
      const msg = Document.toObject(Document.decode(res.body)) as any;
      assert.equal(msg.swagger, '2.0');
      assert.equal(msg.info.title, 'Kubernetes');
      const paths = msg.paths.path.map((p: any) => p.name);
      assert.deepEqual(paths, Object.keys(doc.paths));
      const create = msg.paths.path.find((p: any) => p.name === '/api/v1/namespaces/{namespace}/pods').value.post;
      assert.equal(create.operation_id, doc.paths['/api/v1/namespaces/{namespace}/pods'].post.operationId);
      assert.equal(create.parameters[0].parameter.body_parameter.schema._ref, '#/definitions/io.k8s.api.core.v1.Pod');
      const gvk = create.vendor_extension.find((e: any) => e.name === 'x-kubernetes-group-version-kind');
      assert.deepEqual(parse(gvk.value.yaml), { group: '', version: 'v1', kind: 'Pod' });
      assert.deepEqual(msg.definitions.additional_properties.map((d: any) => d.name), Object.keys(doc.definitions));
      const pod = msg.definitions.additional_properties.find((d: any) => d.name === 'io.k8s.api.core.v1.Pod').value;
      const props = Object.fromEntries(pod.properties.additional_properties.map((p: any) => [p.name, p.value]));
      assert.deepEqual(props.kind.type.value, ['string']);
      assert.equal(props.metadata._ref, '#/definitions/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta');
      assert.deepEqual(parse(pod.vendor_extension.find((e: any) => e.name === 'x-kubernetes-group-version-kind').value.yaml),
        doc.definitions['io.k8s.api.core.v1.Pod']['x-kubernetes-group-version-kind']);
    }
    // The client's cached copy is still good: 304, as http.ServeContent answers.
    const again = await binaryRequest(cluster, '/openapi/v2', { accept: 'application/com.github.proto-openapi.spec.v2@v1.0+protobuf', headers: { 'If-None-Match': String(json.headers.etag) } });
    assert.equal(again.status, 304);
    assert.equal(again.body.length, 0);
    // JSON stays the default, and the first acceptable range wins.
    for (const accept of ['*/*', 'application/*', 'application/json, application/com.github.proto-openapi.spec.v2@v1.0+protobuf']) {
      const res = await binaryRequest(cluster, '/openapi/v2', { accept });
      assert.equal(res.headers['content-type'], 'application/json', accept);
    }
    const refused = await binaryRequest(cluster, '/openapi/v2', { accept: 'application/xml' });
    assert.equal(refused.status, 406);
    assert.equal(JSON.parse(refused.body.toString()).reason, 'NotAcceptable');
  });
});

/** Paths of the schemas in `defs` that use `keyword` as a keyword (not as the name of a property). */
function schemaKeywordPaths(defs: Record<string, unknown>, keyword: string): string[] {
  const found: string[] = [];
  const walk = (s: unknown, path: string): void => {
    if (!s || typeof s !== 'object') return;
    const schema = s as Record<string, unknown>;
    if (keyword in schema) found.push(path);
    for (const [k, v] of Object.entries(schema)) {
      if (k === 'properties' && v && typeof v === 'object') for (const [n, p] of Object.entries(v)) walk(p, `${path}.properties.${n}`);
      else if (k === 'items' || k === 'additionalProperties') walk(v, `${path}.${k}`);
    }
  };
  for (const [name, s] of Object.entries(defs)) walk(s, name);
  return found;
}
