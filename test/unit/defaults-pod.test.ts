import { strict as assert } from 'node:assert';
import { test } from 'node:test';
import { defaultPullPolicy } from '../../src/api/defaults/image.js';
import { applyDefaults } from '../../src/api/defaults/index.js';

const defaulted = (key: string, obj: any) => {
  applyDefaults(key, obj);
  return obj;
};

test('a minimal pod gets upstream v1 defaults', () => {
  const pod = defaulted('v1/Pod', { metadata: { name: 'p' }, spec: { containers: [{ name: 'c', image: 'nginx' }] } });
  assert.deepEqual(pod.spec, {
    containers: [{
      name: 'c', image: 'nginx', imagePullPolicy: 'Always', resources: {},
      terminationMessagePath: '/dev/termination-log', terminationMessagePolicy: 'File',
    }],
    dnsPolicy: 'ClusterFirst', enableServiceLinks: true, restartPolicy: 'Always', schedulerName: 'default-scheduler',
    securityContext: {}, terminationGracePeriodSeconds: 30,
  });
});

test('imagePullPolicy follows the tag', () => {
  const cases: [string, string][] = [
    ['nginx', 'Always'], ['nginx:latest', 'Always'], ['nginx:1.27', 'IfNotPresent'], ['registry.k8s.io/pause:3.10', 'IfNotPresent'],
    ['localhost:5000/app', 'Always'], ['localhost:5000/app:v1', 'IfNotPresent'], ['nginx@sha256:' + 'a'.repeat(64), 'IfNotPresent'],
    ['nginx:1.27@sha256:' + 'a'.repeat(64), 'IfNotPresent'], ['quay.io/fluentd_elasticsearch/fluentd:v2.5.2', 'IfNotPresent'],
    ['gasbugs/http-go', 'Always'], ['monitoring-agent:latest', 'Always'], ['Bad/Image', 'IfNotPresent'], ['', 'IfNotPresent'],
  ];
  for (const [image, want] of cases) assert.equal(defaultPullPolicy(image), want, image);
});

test('explicit values are kept', () => {
  const pod = defaulted('v1/Pod', { spec: {
    restartPolicy: 'Never', dnsPolicy: 'Default', terminationGracePeriodSeconds: 0, enableServiceLinks: false, schedulerName: 'mine',
    containers: [{ name: 'c', image: 'nginx', imagePullPolicy: 'Never', terminationMessagePolicy: 'FallbackToLogsOnError' }],
  } });
  assert.equal(pod.spec.restartPolicy, 'Never');
  assert.equal(pod.spec.dnsPolicy, 'Default');
  assert.equal(pod.spec.terminationGracePeriodSeconds, 0);
  assert.equal(pod.spec.enableServiceLinks, false);
  assert.equal(pod.spec.schedulerName, 'mine');
  assert.equal(pod.spec.containers[0].imagePullPolicy, 'Never');
  assert.equal(pod.spec.containers[0].terminationMessagePolicy, 'FallbackToLogsOnError');
});

test('ports, env fieldRefs, probes and lifecycle hooks', () => {
  const pod = defaulted('v1/Pod', { spec: { initContainers: [{ name: 'i', image: 'busybox:1', ports: [{ containerPort: 53, protocol: 'UDP' }] }], containers: [{
    name: 'c', image: 'nginx:1', ports: [{ containerPort: 80 }],
    env: [{ name: 'NODE', valueFrom: { fieldRef: { fieldPath: 'spec.nodeName' } } }],
    livenessProbe: { httpGet: { port: 80 } }, readinessProbe: { exec: { command: ['true'] }, periodSeconds: 5 },
    lifecycle: { preStop: { httpGet: { port: 80, path: '/stop' } } },
  }] } });
  const c = pod.spec.containers[0];
  assert.deepEqual(c.ports, [{ containerPort: 80, protocol: 'TCP' }]);
  assert.deepEqual(pod.spec.initContainers[0].ports, [{ containerPort: 53, protocol: 'UDP' }]);
  assert.deepEqual(c.env[0].valueFrom.fieldRef, { apiVersion: 'v1', fieldPath: 'spec.nodeName' });
  assert.deepEqual(c.livenessProbe, { httpGet: { port: 80, path: '/', scheme: 'HTTP' }, timeoutSeconds: 1, periodSeconds: 10, successThreshold: 1, failureThreshold: 3 });
  assert.equal(c.readinessProbe.periodSeconds, 5);
  assert.deepEqual(c.lifecycle.preStop.httpGet, { port: 80, path: '/stop', scheme: 'HTTP' });
});

test('a gRPC probe\'s service defaults to "" (the probes page\'s etcd-with-grpc: kubectl describe reads it)', () => {
  const pod = defaulted('v1/Pod', { spec: { containers: [{ name: 'etcd', image: 'registry.k8s.io/etcd:3.5.1-0', livenessProbe: { grpc: { port: 2379 }, initialDelaySeconds: 10 }, readinessProbe: { grpc: { port: 2379, service: 'etcd' } } }] } });
  assert.deepEqual(pod.spec.containers[0].livenessProbe.grpc, { port: 2379, service: '' });
  assert.deepEqual(pod.spec.containers[0].readinessProbe.grpc, { port: 2379, service: 'etcd' });
});

test('requests default to limits (pods only), quantities canonical and rounded to milli', () => {
  const pod = defaulted('v1/Pod', { spec: { containers: [{ name: 'c', image: 'x', resources: { limits: { cpu: '1.5', memory: '0.5Gi' }, requests: { cpu: '0.0001' } } }] } });
  assert.deepEqual(pod.spec.containers[0].resources, { limits: { cpu: '1500m', memory: '512Mi' }, requests: { cpu: '1m', memory: '512Mi' } });
  const ds = defaulted('apps/v1/DaemonSet', { spec: { template: { spec: { containers: [{ name: 'c', image: 'x', resources: { limits: { cpu: 1 } } }] } } } });
  assert.deepEqual(ds.spec.template.spec.containers[0].resources, { limits: { cpu: '1' } });
});

test('hostNetwork pods get hostPort = containerPort', () => {
  const pod = defaulted('v1/Pod', { spec: { hostNetwork: true, containers: [{ name: 'c', image: 'x', ports: [{ containerPort: 8080 }, { containerPort: 9090, hostPort: 9090 }] }] } });
  assert.deepEqual(pod.spec.containers[0].ports.map((p: any) => p.hostPort), [8080, 9090]);
});

test('volume sources', () => {
  const pod = defaulted('v1/Pod', { spec: { containers: [{ name: 'c', image: 'x' }], volumes: [
    { name: 'a' }, { name: 'b', hostPath: { path: '/var/log' } }, { name: 'c', secret: { secretName: 's' } }, { name: 'd', configMap: { name: 'c' } },
    { name: 'e', downwardAPI: { items: [{ path: 'n', fieldRef: { fieldPath: 'metadata.name' } }] } },
    { name: 'f', projected: { sources: [{ serviceAccountToken: { path: 'token' } }] } },
    { name: 'g', emptyDir: { sizeLimit: '1024Mi' } },
    { name: 'h', ephemeral: { volumeClaimTemplate: { spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } } } } },
  ] } });
  const v = pod.spec.volumes;
  assert.deepEqual(v[0], { name: 'a', emptyDir: {} });
  assert.deepEqual(v[1].hostPath, { path: '/var/log', type: '' });
  assert.equal(v[2].secret.defaultMode, 420);
  assert.equal(v[3].configMap.defaultMode, 420);
  assert.deepEqual(v[4].downwardAPI, { items: [{ path: 'n', fieldRef: { apiVersion: 'v1', fieldPath: 'metadata.name' } }], defaultMode: 420 });
  assert.deepEqual(v[5].projected, { sources: [{ serviceAccountToken: { path: 'token', expirationSeconds: 3600 } }], defaultMode: 420 });
  assert.equal(v[6].emptyDir.sizeLimit, '1Gi');
  assert.equal(v[7].ephemeral.volumeClaimTemplate.spec.volumeMode, 'Filesystem');
});

test('templates get pod-spec defaults but not pod-only ones', () => {
  const d = defaulted('apps/v1/Deployment', { spec: { template: { spec: { containers: [{ name: 'c', image: 'x' }] } } } });
  assert.equal(d.spec.template.spec.enableServiceLinks, undefined);
  assert.equal(d.spec.template.spec.restartPolicy, 'Always');
  assert.deepEqual(d.spec.template.spec.securityContext, {});
});

test('defaulting is idempotent', () => {
  const pod = defaulted('v1/Pod', { metadata: { name: 'p' }, spec: { hostNetwork: true, containers: [{ name: 'c', image: 'x', ports: [{ containerPort: 1 }],
    resources: { limits: { cpu: '0.5' } }, livenessProbe: { tcpSocket: { port: 1 } } }], volumes: [{ name: 'v' }] } });
  const once = structuredClone(pod);
  applyDefaults('v1/Pod', pod);
  assert.deepEqual(pod, once);
});

test('serviceAccount is the alias of serviceAccountName, as v1 conversion keeps it', () => {
  const spec = (s: any) => defaulted('v1/Pod', { metadata: { name: 'p' }, spec: { containers: [], ...s } }).spec;
  const pick = (s: any) => ({ serviceAccount: s.serviceAccount, serviceAccountName: s.serviceAccountName });
  assert.deepEqual(pick(spec({ serviceAccountName: 'builder' })), { serviceAccount: 'builder', serviceAccountName: 'builder' });
  assert.deepEqual(pick(spec({ serviceAccount: 'old-style' })), { serviceAccount: 'old-style', serviceAccountName: 'old-style' });
  assert.deepEqual(pick(spec({ serviceAccount: 'ignored', serviceAccountName: 'wins' })), { serviceAccount: 'wins', serviceAccountName: 'wins' });
  assert.ok(!('serviceAccount' in spec({ serviceAccount: '' })));
  const template = defaulted('apps/v1/Deployment', { metadata: { name: 'd' }, spec: { template: { spec: { serviceAccountName: 'sa', containers: [] } } } });
  assert.equal(template.spec.template.spec.serviceAccount, 'sa');
});
