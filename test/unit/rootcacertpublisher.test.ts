/** The kube-root-ca.crt ConfigMap the root CA publisher keeps in each namespace. */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { planRootCAConfigMap, rootCACertConfigMapName, descriptionAnnotation, description } from '../../src/controllers/rootcacertpublisher/index.js';

const ca = '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n';
const published = () => ({ metadata: { name: rootCACertConfigMapName, namespace: 'a', annotations: { [descriptionAnnotation]: description } }, data: { 'ca.crt': ca } });

describe('planRootCAConfigMap', () => {
  it('creates the ConfigMap with ca.crt and its description when absent', () => {
    assert.deepEqual(planRootCAConfigMap(undefined, ca), {
      create: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'kube-root-ca.crt', annotations: { 'kubernetes.io/description': description } }, data: { 'ca.crt': ca } },
    });
  });
  it('leaves a published one alone', () => {
    assert.equal(planRootCAConfigMap(published(), ca), undefined);
  });
  it('puts back changed data, dropping keys someone added', () => {
    const cm = published();
    (cm.data as Record<string, string>) = { 'ca.crt': 'tampered', extra: 'x' };
    assert.deepEqual(planRootCAConfigMap(cm, ca), { update: published() });
  });
  it('puts back the description, keeping other annotations and labels', () => {
    const cm: any = published();
    cm.metadata.annotations = { mine: 'yes' };
    cm.metadata.labels = { l: '1' };
    const action = planRootCAConfigMap(cm, ca) as { update: any };
    assert.deepEqual(action.update.metadata.annotations, { mine: 'yes', [descriptionAnnotation]: description });
    assert.deepEqual(action.update.metadata.labels, { l: '1' });
    assert.equal(cm.metadata.annotations[descriptionAnnotation], undefined, 'the cached object is not changed');
  });
  it('follows a new CA bundle', () => {
    const action = planRootCAConfigMap(published(), 'new') as { update: any };
    assert.deepEqual(action.update.data, { 'ca.crt': 'new' });
  });
});
