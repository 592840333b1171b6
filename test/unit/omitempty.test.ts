/**
 * dropOmittedZeros (api/protobuf/omitempty.ts): the zero values of Go's omitempty fields leave an
 * object's JSON, found by the keys the object has (inline structs' fields included), while fields
 * without the tag, pointers and keys the type does not have stay as they are.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { dropOmittedZeros } from '../../src/api/protobuf/omitempty.js';

test('omitempty zeros are dropped; fields without the tag and unknown keys stay', () => {
  const ds = {
    apiVersion: 'apps/v1', kind: 'DaemonSet', metadata: { name: 'd', generateName: '', labels: {} },
    spec: { minReadySeconds: 0, revisionHistoryLimit: 0 },
    status: { numberUnavailable: 0, numberReady: 0, currentNumberScheduled: 0, observedGeneration: 0, notAField: 0 },
  };
  dropOmittedZeros(ds);
  assert.deepEqual(ds, {
    apiVersion: 'apps/v1', kind: 'DaemonSet', metadata: { name: 'd' },
    // revisionHistoryLimit is a pointer: its zero is a value.
    spec: { revisionHistoryLimit: 0 },
    status: { numberReady: 0, currentNumberScheduled: 0, notAField: 0 },
  });
});

test('the fields of inline structs are found by their JSON names (Volume\'s VolumeSource, Probe\'s handler, LocalObjectReference)', () => {
  const pod = {
    apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' },
    spec: {
      hostname: '',
      volumes: [{ name: 'v', hostPath: { path: '/x' }, configMap: { name: '', items: [], defaultMode: 420 } }],
      containers: [{
        name: 'c', image: 'i', workingDir: '', ports: [],
        livenessProbe: { httpGet: { host: '', path: '/', port: 8080 }, periodSeconds: 0 },
        env: [{ name: 'E', valueFrom: { configMapKeyRef: { name: '', key: 'k' } } }],
      }],
    },
  };
  dropOmittedZeros(pod);
  assert.deepEqual(pod, {
    apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' },
    spec: {
      volumes: [{ name: 'v', hostPath: { path: '/x' }, configMap: { defaultMode: 420 } }],
      containers: [{
        name: 'c', image: 'i',
        livenessProbe: { httpGet: { path: '/', port: 8080 } },
        env: [{ name: 'E', valueFrom: { configMapKeyRef: { key: 'k' } } }],
      }],
    },
  });
});

test('maps and lists of messages are walked; kinds without a schema are left alone', () => {
  const cm = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c', annotations: {}, ownerReferences: [{ apiVersion: 'v1', kind: 'K', name: 'n', uid: 'u', controller: false }] }, data: { a: '' } };
  dropOmittedZeros(cm);
  // A map of scalars keeps its empty values; an empty map with omitempty goes; controller is a pointer.
  assert.deepEqual(cm, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c', ownerReferences: [{ apiVersion: 'v1', kind: 'K', name: 'n', uid: 'u', controller: false }] }, data: { a: '' } });
  const custom = { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w', generateName: '' }, spec: { n: 0 } };
  dropOmittedZeros(custom);
  assert.deepEqual(custom, { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w', generateName: '' }, spec: { n: 0 } });
});
