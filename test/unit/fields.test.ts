/**
 * Field selectors (parsing, escaping, matching) and the selectable fields of
 * each kind with upstream's "field label not supported" errors.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import {
  FieldSelectorError, checkFieldSelector, escapeValue, fieldLabelError, fieldSelectorFromSet, fieldSelectorToString,
  fieldsForObject, isEverythingFields, matchesFieldSelector, parseFieldSelector, requiresExactFieldMatch,
  supportedFieldLabels, unescapeValue,
} from '../../src/api/fields.js';
import type { FieldRequirement } from '../../src/api/fields.js';

describe('parseFieldSelector', () => {
  const table: [string, FieldRequirement[], string][] = [
    ['', [], ''],
    ['metadata.name=x', [{ field: 'metadata.name', operator: '=', value: 'x' }], 'metadata.name=x'],
    ['metadata.name==x', [{ field: 'metadata.name', operator: '=', value: 'x' }], 'metadata.name=x'],
    ['status.phase!=Running', [{ field: 'status.phase', operator: '!=', value: 'Running' }], 'status.phase!=Running'],
    ['spec.nodeName=', [{ field: 'spec.nodeName', operator: '=', value: '' }], 'spec.nodeName='],
    ['b=1,a=2', [{ field: 'a', operator: '=', value: '2' }, { field: 'b', operator: '=', value: '1' }], 'a=2,b=1'],
    [',a=1,,', [{ field: 'a', operator: '=', value: '1' }], 'a=1'],
    ['a=x\\,y', [{ field: 'a', operator: '=', value: 'x,y' }], 'a=x\\,y'],
    ['a=x\\=y\\\\z', [{ field: 'a', operator: '=', value: 'x=y\\z' }], 'a=x\\=y\\\\z'],
    ['a=!b', [{ field: 'a', operator: '=', value: '!b' }], 'a=!b'],
    ['=', [], ''],
    ['a=b,=', [{ field: 'a', operator: '=', value: 'b' }], 'a=b'],
    ['=x', [{ field: '', operator: '=', value: 'x' }], '=x'],
    ['spec.nodeName=node-1,status.phase!=Succeeded,status.phase!=Failed', [
      { field: 'spec.nodeName', operator: '=', value: 'node-1' },
      { field: 'status.phase', operator: '!=', value: 'Failed' },
      { field: 'status.phase', operator: '!=', value: 'Succeeded' },
    ], 'spec.nodeName=node-1,status.phase!=Failed,status.phase!=Succeeded'],
  ];
  for (const [input, reqs, str] of table) {
    it(JSON.stringify(input), () => {
      const sel = parseFieldSelector(input);
      assert.deepEqual(sel.requirements, reqs);
      assert.equal(fieldSelectorToString(sel), str);
    });
  }

  const errors: [string, string][] = [
    ['a', "invalid selector: 'a'; can't understand 'a'"],
    ['a=b,c', "invalid selector: 'a=b,c'; can't understand 'c'"],
    ['a=b=c', 'invalid field selector: unescaped character in value: 61'],
    ['a=b\\x', 'invalid field selector: invalid escape sequence: \\x'],
    ['a=b\\', 'invalid field selector: invalid escape sequence: \\'],
  ];
  for (const [input, message] of errors) {
    it(`error: ${JSON.stringify(input)}`, () => {
      assert.throws(() => parseFieldSelector(input), (e: unknown) => e instanceof FieldSelectorError && e.message === message);
    });
  }
});

describe('escapeValue / unescapeValue', () => {
  for (const raw of ['plain', 'a,b', 'a=b', 'a\\b', '\\,=', '', 'ünïcode,=']) {
    it(`round trip ${JSON.stringify(raw)}`, () => assert.equal(unescapeValue(escapeValue(raw)), raw));
  }
  it('escapes the three special characters', () => assert.equal(escapeValue('a\\b,c=d'), 'a\\\\b\\,c\\=d'));
});

describe('matchesFieldSelector', () => {
  const fields = { 'metadata.name': 'p', 'spec.nodeName': '', 'status.phase': 'Running' };
  const table: [string, boolean][] = [
    ['', true], ['metadata.name=p', true], ['metadata.name=q', false], ['metadata.name!=q', true], ['metadata.name!=p', false],
    ['spec.nodeName=', true], ['spec.nodeName!=', false], ['missing=', true], ['missing!=', false], ['missing=x', false],
    ['metadata.name=p,status.phase=Running', true], ['metadata.name=p,status.phase!=Running', false],
  ];
  for (const [sel, want] of table) it(`${JSON.stringify(sel)} → ${want}`, () => assert.equal(matchesFieldSelector(parseFieldSelector(sel), fields), want));
  it('fieldSelectorFromSet', () => {
    assert.equal(matchesFieldSelector(fieldSelectorFromSet({ 'metadata.name': 'p' }), fields), true);
    assert.equal(matchesFieldSelector(fieldSelectorFromSet({ 'metadata.name': 'x' }), fields), false);
  });
  it('requiresExactFieldMatch and isEverythingFields', () => {
    assert.equal(requiresExactFieldMatch(parseFieldSelector('metadata.name=x,a!=b'), 'metadata.name'), 'x');
    assert.equal(requiresExactFieldMatch(parseFieldSelector('metadata.name!=x'), 'metadata.name'), undefined);
    assert.equal(isEverythingFields(parseFieldSelector('')), true);
    assert.equal(isEverythingFields(parseFieldSelector('a=b')), false);
  });
});

describe('fieldsForObject', () => {
  it('pods: the fields of the pod registry, defaults included', () => {
    const pod = {
      metadata: { name: 'p', namespace: 'ns' },
      spec: { nodeName: 'n1', restartPolicy: 'Always', schedulerName: 'default-scheduler', serviceAccount: 'legacy', hostNetwork: true },
      status: { phase: 'Running', podIP: '10.0.0.9', podIPs: [{ ip: '10.0.0.1' }, { ip: 'fd00::1' }], nominatedNodeName: 'n2' },
    };
    assert.deepEqual(fieldsForObject('v1/Pod', pod), {
      'metadata.name': 'p', 'metadata.namespace': 'ns', 'spec.nodeName': 'n1', 'spec.host': 'n1', 'spec.restartPolicy': 'Always',
      'spec.schedulerName': 'default-scheduler', 'spec.serviceAccountName': 'legacy', 'spec.hostNetwork': 'true',
      'status.phase': 'Running', 'status.podIP': '10.0.0.1', 'status.podIPs': '', 'status.nominatedNodeName': 'n2',
    });
    const bare = fieldsForObject('v1/Pod', { metadata: { name: 'q' } });
    assert.equal(bare['spec.hostNetwork'], 'false');
    assert.equal(bare['spec.nodeName'], '');
    assert.equal(bare['status.podIP'], '');
  });
  it('pods: serviceAccountName wins over the deprecated serviceAccount; podIP without podIPs', () => {
    const f = fieldsForObject('v1/Pod', { spec: { serviceAccountName: 'sa', serviceAccount: 'old' }, status: { podIP: '1.2.3.4' } });
    assert.equal(f['spec.serviceAccountName'], 'sa');
    assert.equal(f['status.podIP'], '1.2.3.4');
  });
  it('kubelet-style selector spec.nodeName=n1 (and the legacy spec.host) select the pod', () => {
    const pod = { metadata: { name: 'p', namespace: 'd' }, spec: { nodeName: 'n1' } };
    assert.equal(matchesFieldSelector(parseFieldSelector('spec.nodeName=n1'), fieldsForObject('v1/Pod', pod)), true);
    assert.equal(matchesFieldSelector(parseFieldSelector('spec.host=n1'), fieldsForObject('v1/Pod', pod)), true);
    assert.equal(matchesFieldSelector(parseFieldSelector('spec.nodeName='), fieldsForObject('v1/Pod', pod)), false);
  });
  it('nodes: name and unschedulable only', () => {
    assert.deepEqual(fieldsForObject('v1/Node', { metadata: { name: 'n' }, spec: { unschedulable: true } }), { 'metadata.name': 'n', 'spec.unschedulable': 'true' });
    assert.deepEqual(fieldsForObject('v1/Node', { metadata: { name: 'n' } }), { 'metadata.name': 'n', 'spec.unschedulable': 'false' });
  });
  it('core events', () => {
    const ev = {
      metadata: { name: 'e', namespace: 'ns' }, reason: 'Scheduled', type: 'Normal', reportingComponent: 'default-scheduler',
      involvedObject: { kind: 'Pod', namespace: 'ns', name: 'p', uid: 'u', apiVersion: 'v1', resourceVersion: '7', fieldPath: 'spec.containers{c}' },
      source: { component: 'kubelet', host: 'n1' },
    };
    assert.deepEqual(fieldsForObject('v1/Event', ev), {
      'metadata.name': 'e', 'metadata.namespace': 'ns', 'involvedObject.kind': 'Pod', 'involvedObject.namespace': 'ns', 'involvedObject.name': 'p',
      'involvedObject.uid': 'u', 'involvedObject.apiVersion': 'v1', 'involvedObject.resourceVersion': '7', 'involvedObject.fieldPath': 'spec.containers{c}',
      reason: 'Scheduled', reportingComponent: 'default-scheduler', source: 'kubelet', type: 'Normal',
    });
    assert.equal(fieldsForObject('v1/Event', { reportingComponent: 'ctrl' }).source, 'ctrl', 'source falls back to the reporting controller');
  });
  const simple: [string, any, Record<string, string>][] = [
    ['v1/Namespace', { metadata: { name: 'ns' }, status: { phase: 'Terminating' } }, { 'metadata.name': 'ns', 'status.phase': 'Terminating' }],
    ['v1/Secret', { metadata: { name: 's', namespace: 'd' }, type: 'kubernetes.io/tls' }, { 'metadata.name': 's', 'metadata.namespace': 'd', type: 'kubernetes.io/tls' }],
    ['v1/Service', { metadata: { name: 's', namespace: 'd' }, spec: { clusterIP: 'None', type: 'ClusterIP' } },
      { 'metadata.name': 's', 'metadata.namespace': 'd', 'spec.clusterIP': 'None', 'spec.type': 'ClusterIP' }],
    ['v1/ReplicationController', { metadata: { name: 'r', namespace: 'd' }, status: { replicas: 3 } }, { 'metadata.name': 'r', 'metadata.namespace': 'd', 'status.replicas': '3' }],
    ['batch/v1/Job', { metadata: { name: 'j', namespace: 'd' }, status: { succeeded: 1 } }, { 'metadata.name': 'j', 'metadata.namespace': 'd', 'status.successful': '1' }],
    ['certificates.k8s.io/v1/CertificateSigningRequest', { metadata: { name: 'csr-1' }, spec: { signerName: 'kubernetes.io/kube-apiserver-client-kubelet' } },
      { 'metadata.name': 'csr-1', 'spec.signerName': 'kubernetes.io/kube-apiserver-client-kubelet' }],
    ['apps/v1/DaemonSet', { metadata: { name: 'ds', namespace: 'd' }, status: { numberReady: 1 } }, { 'metadata.name': 'ds', 'metadata.namespace': 'd' }],
    ['apps/v1/ReplicaSet', { metadata: { name: 'rs', namespace: 'd' }, status: { replicas: 2 } }, { 'metadata.name': 'rs', 'metadata.namespace': 'd' }],
    ['events.k8s.io/v1/Event', { metadata: { name: 'e', namespace: 'd' }, reason: 'x' }, { 'metadata.name': 'e', 'metadata.namespace': 'd' }],
    ['v1/ConfigMap', { metadata: { name: 'c', namespace: 'd' } }, { 'metadata.name': 'c', 'metadata.namespace': 'd' }],
    ['v1/PersistentVolume', { metadata: { name: 'pv' } }, { 'metadata.name': 'pv', 'metadata.namespace': '' }],
  ];
  for (const [key, obj, want] of simple) it(key, () => assert.deepEqual(fieldsForObject(key, obj), want));
});

describe('supported labels and upstream errors', () => {
  const table: [string, string, string | undefined][] = [
    ['v1/Pod', 'spec.nodeName', undefined],
    ['v1/Pod', 'status.podIPs', undefined],
    ['v1/Pod', 'spec.host', undefined],
    ['v1/Pod', 'spec.containers', 'field label not supported: spec.containers'],
    ['v1/Pod', 'foo', 'field label not supported: foo'],
    ['v1/Node', 'metadata.namespace', 'field label not supported: metadata.namespace'],
    ['v1/Node', 'spec.unschedulable', undefined],
    ['v1/Namespace', 'name', 'field label not supported: name'],
    ['v1/Event', 'involvedObject.uid', undefined],
    ['v1/Event', 'message', 'field label not supported: message'],
    ['certificates.k8s.io/v1/CertificateSigningRequest', 'metadata.namespace', 'field label not supported: metadata.namespace'],
    ['apps/v1/DaemonSet', 'metadata.name', undefined],
    ['apps/v1/ReplicaSet', 'status.replicas', '"status.replicas" is not a known field selector: only "metadata.name", "metadata.namespace"'],
    ['apps/v1/StatefulSet', 'spec.replicas', '"spec.replicas" is not a known field selector: only "metadata.name", "metadata.namespace"'],
    ['events.k8s.io/v1/Event', 'reason', '"reason" is not a known field selector: only "metadata.name", "metadata.namespace"'],
    ['v1/PersistentVolume', 'metadata.namespace', undefined],
  ];
  for (const [key, label, want] of table) it(`${key} ${label}`, () => assert.equal(fieldLabelError(key, label), want));

  it('supportedFieldLabels', () => {
    assert.deepEqual(supportedFieldLabels('v1/Node'), ['metadata.name', 'spec.unschedulable']);
    assert.deepEqual(supportedFieldLabels('apps/v1/DaemonSet'), ['metadata.name', 'metadata.namespace']);
  });
  it('checkFieldSelector reports the first unsupported label', () => {
    assert.equal(checkFieldSelector('v1/Pod', parseFieldSelector('spec.nodeName=a,status.phase=Running')), undefined);
    assert.equal(checkFieldSelector('v1/Pod', parseFieldSelector('spec.nodeName=a,zzz=1')), 'field label not supported: zzz');
  });
});
