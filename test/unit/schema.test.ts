/**
 * The schemas derived from kubernetes-types, and strict decoding against
 * them as kube-apiserver reports it (`strict decoding error: unknown field
 * "spec.template.spec.containers[0].imagez"`, encoding/json type errors).
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { kindKey, resources } from '../../src/api/resources.js';
import {
  definitionFor, definitionNameFor, findTypeErrors, findUnknownFields, openapiDefinitions, strictDecodingError,
} from '../../src/api/schema/index.js';

const M = 'io.k8s.apimachinery.pkg.apis.meta.v1';

function daemonSet(overrides: { spec?: Record<string, unknown>; container?: Record<string, unknown>; metadata?: Record<string, unknown> } = {}) {
  return {
    apiVersion: 'apps/v1',
    kind: 'DaemonSet',
    metadata: { name: 'ds', namespace: 'default', labels: { app: 'x', 'example.com/any-key': 'v' }, annotations: { note: 'n' }, ...overrides.metadata },
    spec: {
      selector: { matchLabels: { app: 'x' }, matchExpressions: [{ key: 'app', operator: 'In', values: ['x'] }] },
      updateStrategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: '10%', maxSurge: 0 } },
      template: {
        metadata: { labels: { app: 'x' } },
        spec: {
          tolerations: [{ key: 'k', operator: 'Exists', effect: 'NoSchedule', tolerationSeconds: 30 }],
          nodeSelector: { 'kubernetes.io/os': 'linux' },
          containers: [{
            name: 'c', image: 'busybox', command: ['sleep', '3600'],
            env: [{ name: 'A', value: 'b' }, { name: 'N', valueFrom: { fieldRef: { fieldPath: 'spec.nodeName' } } }],
            ports: [{ containerPort: 80, protocol: 'TCP' }],
            resources: { requests: { cpu: '100m', memory: 64 }, limits: { cpu: 1 } },
            readinessProbe: { httpGet: { path: '/', port: 'http' }, periodSeconds: 5 },
            volumeMounts: [{ name: 'v', mountPath: '/v' }],
            ...overrides.container,
          }],
          volumes: [{ name: 'v', hostPath: { path: '/tmp', type: 'DirectoryOrCreate' } }],
        },
      },
      ...overrides.spec,
    },
  };
}

describe('generated definitions', () => {
  it('cover every served kind, its list kind and its subresource kinds', () => {
    for (const r of resources) {
      assert.ok(definitionFor(kindKey(r)), kindKey(r));
      if (r.verbs.includes('list')) assert.ok(definitionFor(kindKey({ ...r, kind: r.listKind })), r.listKind);
      // Streamed subresources (pods/log, nodes/proxy) carry no object, so no schema.
      for (const s of r.subresources) if (!s.streamed) assert.ok(definitionFor(kindKey(s)), kindKey(s));
    }
  });

  it('are named as upstream and found by kind key or by name', () => {
    assert.equal(definitionNameFor('apps/v1/DaemonSet'), 'io.k8s.api.apps.v1.DaemonSet');
    assert.equal(definitionNameFor('v1/Pod'), 'io.k8s.api.core.v1.Pod');
    assert.equal(definitionNameFor('autoscaling/v1/Scale'), 'io.k8s.api.autoscaling.v1.Scale');
    assert.equal(definitionNameFor('policy/v1/Eviction'), 'io.k8s.api.policy.v1.Eviction');
    assert.equal(definitionNameFor('v1/Binding'), 'io.k8s.api.core.v1.Binding');
    assert.equal(definitionNameFor(`${M}.ObjectMeta`), `${M}.ObjectMeta`);
    assert.equal(definitionFor('apps/v1/Nope'), undefined);
    assert.equal(definitionFor('toString'), undefined);
  });

  it('resolve the Event collision by module', () => {
    assert.equal(definitionNameFor('v1/Event'), 'io.k8s.api.core.v1.Event');
    assert.equal(definitionNameFor('events.k8s.io/v1/Event'), 'io.k8s.api.events.v1.Event');
    assert.ok(definitionFor('events.k8s.io/v1/Event')?.properties?.note);
  });

  it('carry the GVK on kinds and list kinds, with upstream key order', () => {
    assert.deepEqual(definitionFor('apps/v1/DaemonSet')?.['x-kubernetes-group-version-kind'], [{ group: 'apps', kind: 'DaemonSet', version: 'v1' }]);
    assert.deepEqual(definitionFor('v1/PodList')?.['x-kubernetes-group-version-kind'], [{ group: '', kind: 'PodList', version: 'v1' }]);
    assert.equal(definitionFor('io.k8s.api.apps.v1.DaemonSetSpec')?.['x-kubernetes-group-version-kind'], undefined);
  });

  it('keep upstream descriptions, required fields and described refs as allOf', () => {
    const spec = definitionFor('io.k8s.api.apps.v1.DaemonSetSpec')!;
    assert.match(spec.description!, /DaemonSetSpec is the specification of a daemon set/);
    assert.deepEqual(spec.required, ['selector', 'template']);
    assert.deepEqual(spec.properties!.updateStrategy.allOf, [{ $ref: '#/components/schemas/io.k8s.api.apps.v1.DaemonSetUpdateStrategy' }]);
    assert.equal(spec.properties!.updateStrategy.description, 'An update strategy to replace existing DaemonSet pods with new pods.');
    assert.equal(spec.properties!.minReadySeconds.type, 'integer');
    const meta = definitionFor(`${M}.ObjectMeta`)!;
    assert.deepEqual(meta.properties!.labels.additionalProperties, { type: 'string' });
    assert.match(definitionFor(`${M}.Time`)!.description!, /Time is a wrapper around time.Time/);
  });

  it('give upstream forms to Time, Quantity, IntOrString and RawExtension', () => {
    const defs = openapiDefinitions();
    assert.deepEqual({ ...defs[`${M}.Time`], description: undefined }, { description: undefined, type: 'string', format: 'date-time' });
    assert.deepEqual({ ...defs[`${M}.MicroTime`], description: undefined }, { description: undefined, type: 'string', format: 'date-time' });
    assert.deepEqual(defs['io.k8s.apimachinery.pkg.api.resource.Quantity'].oneOf, [{ type: 'string' }, { type: 'number' }]);
    const ios = defs['io.k8s.apimachinery.pkg.util.intstr.IntOrString'];
    assert.equal(ios['x-kubernetes-int-or-string'], true);
    assert.equal(ios.format, 'int-or-string');
    const raw = defs['io.k8s.apimachinery.pkg.runtime.RawExtension'];
    assert.equal(raw.type, 'object');
    assert.equal(raw['x-kubernetes-preserve-unknown-fields'], true);
    const port = definitionFor('io.k8s.api.core.v1.ContainerPort')!;
    assert.equal(port.properties!.containerPort.type, 'integer');
    const rolling = definitionFor('io.k8s.api.apps.v1.RollingUpdateDaemonSet')!;
    assert.deepEqual(rolling.properties!.maxSurge.allOf, [{ $ref: '#/components/schemas/io.k8s.apimachinery.pkg.util.intstr.IntOrString' }]);
  });
});

describe('findUnknownFields', () => {
  const cases: { name: string; key: string; obj: unknown; want: string[] }[] = [
    { name: 'a valid DaemonSet', key: 'apps/v1/DaemonSet', obj: daemonSet(), want: [] },
    { name: 'a spec field', key: 'apps/v1/DaemonSet', obj: daemonSet({ spec: { containerz: [] } }), want: ['spec.containerz'] },
    { name: 'a container field, with the list index', key: 'apps/v1/DaemonSet', obj: daemonSet({ container: { imagez: 'x' } }), want: ['spec.template.spec.containers[0].imagez'] },
    { name: 'a metadata field', key: 'apps/v1/DaemonSet', obj: daemonSet({ metadata: { labelz: {} } }), want: ['metadata.labelz'] },
    { name: 'a root field', key: 'v1/Pod', obj: { apiVersion: 'v1', kind: 'Pod', spex: {} }, want: ['spex'] },
    {
      name: 'several, in document order',
      key: 'v1/Pod',
      obj: { metadata: { name: 'p', labelz: {} }, spec: { containers: [{ name: 'a' }, { name: 'b', imagez: 'x', ports: [{ containerPort: 1, hostPortz: 2 }] }], nodeNamez: 'n' } },
      want: ['metadata.labelz', 'spec.containers[1].imagez', 'spec.containers[1].ports[0].hostPortz', 'spec.nodeNamez'],
    },
    { name: 'map keys are data, not fields', key: 'v1/ConfigMap', obj: { metadata: { annotations: { anything: 'x' } }, data: { 'any.key': 'v' }, binaryData: {} }, want: [] },
    { name: 'inside a map of structs', key: 'v1/Pod', obj: { spec: { overhead: { cpu: '1' } } }, want: [] },
    { name: 'RawExtension keeps anything', key: 'apps/v1/ControllerRevision', obj: { revision: 1, data: { spec: { template: { $patch: 'replace', x: 1 } } } }, want: [] },
    { name: 'FieldsV1 keeps anything', key: 'v1/Pod', obj: { metadata: { managedFields: [{ manager: 'm', fieldsType: 'FieldsV1', fieldsV1: { 'f:spec': { '.': {} } } }] } }, want: [] },
    { name: 'status fields are known', key: 'apps/v1/DaemonSet', obj: { status: { numberReady: 1, desiredNumberScheduled: 1, bogus: 1 } }, want: ['status.bogus'] },
    { name: 'the subresource kind Scale', key: 'autoscaling/v1/Scale', obj: { spec: { replicas: 2, replicaz: 3 } }, want: ['spec.replicaz'] },
    { name: 'an unknown kind', key: 'example.com/v1/Widget', obj: { anything: 1 }, want: [] },
    { name: 'wrong types are not unknown fields', key: 'v1/Pod', obj: { spec: 'x', metadata: [1] }, want: [] },
  ];
  for (const c of cases) {
    it(c.name, () => assert.deepEqual(findUnknownFields(c.key, c.obj), c.want));
  }

  it('stops at 100, as sigs.k8s.io/json does', () => {
    const labels: Record<string, string> = {};
    for (let i = 0; i < 150; i++) labels[`f${i}`] = 'x';
    assert.equal(findUnknownFields('v1/Pod', { spec: labels }).length, 100);
  });

  it('formats upstream\'s message', () => {
    assert.equal(strictDecodingError(['spec.containerz']), 'strict decoding error: unknown field "spec.containerz"');
    assert.equal(strictDecodingError(['a', 'spec.template.spec.containers[0].imagez']),
      'strict decoding error: unknown field "a", unknown field "spec.template.spec.containers[0].imagez"');
  });
});

describe('findTypeErrors', () => {
  const cases: { name: string; key: string; obj: unknown; want: string[] }[] = [
    { name: 'a valid DaemonSet', key: 'apps/v1/DaemonSet', obj: daemonSet(), want: [] },
    { name: 'a string for a list', key: 'v1/Pod', obj: { spec: { containers: 'nginx' } }, want: ['json: cannot unmarshal string into Go struct field PodSpec.spec.containers of type []v1.Container'] },
    { name: 'a string for an integer', key: 'apps/v1/Deployment', obj: { spec: { replicas: '3' } }, want: ['json: cannot unmarshal string into Go struct field DeploymentSpec.spec.replicas of type int32'] },
    { name: 'a fraction for an integer', key: 'apps/v1/Deployment', obj: { spec: { replicas: 1.5 } }, want: ['json: cannot unmarshal number 1.5 into Go struct field DeploymentSpec.spec.replicas of type int32'] },
    { name: 'inside a list element: no index, innermost struct', key: 'v1/Pod', obj: { spec: { containers: [{ name: 'c', ports: [{ containerPort: '80' }] }] } }, want: ['json: cannot unmarshal string into Go struct field ContainerPort.spec.containers.ports.containerPort of type int32'] },
    { name: 'a number for a string', key: 'v1/Pod', obj: { metadata: { name: 5 } }, want: ['json: cannot unmarshal number into Go struct field ObjectMeta.metadata.name of type string'] },
    { name: 'a list for a map', key: 'v1/Pod', obj: { metadata: { labels: ['a'] } }, want: ['json: cannot unmarshal array into Go struct field ObjectMeta.metadata.labels of type map[string]string'] },
    { name: 'a number in a map of strings', key: 'v1/ConfigMap', obj: { data: { port: 80 } }, want: ['json: cannot unmarshal number into Go struct field ConfigMap.data of type string'] },
    { name: 'a string for a struct', key: 'apps/v1/DaemonSet', obj: { spec: { template: 'x' } }, want: ['json: cannot unmarshal string into Go struct field DaemonSetSpec.spec.template of type v1.PodTemplateSpec'] },
    { name: 'a string for a bool', key: 'v1/Pod', obj: { spec: { hostNetwork: 'true' } }, want: ['json: cannot unmarshal string into Go struct field PodSpec.spec.hostNetwork of type bool'] },
    { name: 'the root', key: 'v1/Pod', obj: [], want: ['json: cannot unmarshal array into Go value of type v1.Pod'] },
    { name: 'IntOrString takes both', key: 'apps/v1/DaemonSet', obj: daemonSet({ spec: { updateStrategy: { rollingUpdate: { maxUnavailable: 1, maxSurge: '5%' } } } }), want: [] },
    { name: 'IntOrString refuses a bool', key: 'apps/v1/DaemonSet', obj: { spec: { updateStrategy: { rollingUpdate: { maxUnavailable: true } } } }, want: ['json: cannot unmarshal bool into Go struct field RollingUpdateDaemonSet.spec.updateStrategy.rollingUpdate.maxUnavailable of type int32'] },
    { name: 'Quantity takes strings and numbers', key: 'v1/Pod', obj: { spec: { containers: [{ name: 'c', resources: { limits: { cpu: 1, memory: '1Gi' } } }] } }, want: [] },
    { name: 'Quantity refuses an object', key: 'v1/Pod', obj: { spec: { containers: [{ name: 'c', resources: { limits: { cpu: {} } } }] } }, want: ["quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"] },
    { name: 'Time must be a string', key: 'v1/Pod', obj: { metadata: { creationTimestamp: 5 } }, want: ['json: cannot unmarshal number into Go struct field ObjectMeta.metadata.creationTimestamp of type string'] },
    { name: 'null is fine anywhere', key: 'v1/Pod', obj: { metadata: null, spec: { containers: null, hostNetwork: null } }, want: [] },
    { name: 'RawExtension takes anything', key: 'apps/v1/ControllerRevision', obj: { data: [1, 'x'] }, want: [] },
  ];
  for (const c of cases) {
    it(c.name, () => assert.deepEqual(findTypeErrors(c.key, c.obj), c.want));
  }
});
