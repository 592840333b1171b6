/**
 * The RuntimeClass and DefaultIngressClass admission plugins (upstream
 * plugin/pkg/admission/runtimeclass and network/defaultingressclass), and
 * MergeTolerations, with the classes given as the cache would hold them.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Pod } from 'kubernetes-types/core/v1.js';
import type { IngressClass, Ingress } from 'kubernetes-types/networking/v1.js';
import type { RuntimeClass } from 'kubernetes-types/node/v1.js';
import { runtimeClassAdmission } from '../../src/apiserver/admission/runtimeclass.js';
import { defaultIngressClassAdmission } from '../../src/apiserver/admission/default-ingress-class.js';
import { mergeTolerations } from '../../src/api/tolerations.js';
import { findResource } from '../../src/api/resources.js';
import { StatusError } from '../../src/api/status.js';

const pods = findResource('', 'v1', 'pods')!;
const ingresses = findResource('networking.k8s.io', 'v1', 'ingresses')!;
const kataFc: RuntimeClass = { metadata: { name: 'kata-fc' }, handler: 'kata-fc', overhead: { podFixed: { memory: '120Mi', cpu: '250m' } } };
const gpu: RuntimeClass = {
  metadata: { name: 'gpu' }, handler: 'runc',
  scheduling: { nodeSelector: { accelerator: 'yes' }, tolerations: [{ key: 'accelerator', operator: 'Exists', effect: 'NoSchedule' }] },
};
const pod = (spec: Partial<Pod['spec']> = {}): Pod => ({ metadata: { name: 'test-pod' }, spec: { containers: [{ name: 'c', image: 'nginx' }], ...spec } });
const message = (fn: () => unknown) => { try { fn(); } catch (e) { return (e as StatusError).status.message; } return undefined; };

describe('RuntimeClass admission', () => {
  const lookedUp: string[] = [];
  const stored = new Map<string, RuntimeClass>([['late', { metadata: { name: 'late' }, handler: 'runc' }]]);
  const plugin = runtimeClassAdmission({
    classes: { get: (_ns, name) => [kataFc, gpu].find((c) => c.metadata!.name === name) },
    lookup: async (name) => { lookedUp.push(name); return stored.get(name); },
  });

  it('copies the class\'s overhead to the pod, which then validates', () => {
    const p = pod({ runtimeClassName: 'kata-fc' });
    assert.equal(plugin.admit('create', pods, p), undefined); // a cached class: no promise
    assert.deepEqual(p.spec!.overhead, { memory: '120Mi', cpu: '250m' });
    assert.equal(plugin.validate('create', pods, p), undefined);
  });

  it('refuses an overhead that differs from the class\'s, and one without a class; an equal one in other units passes', () => {
    assert.equal(message(() => plugin.admit('create', pods, pod({ runtimeClassName: 'kata-fc', overhead: { cpu: '1' } }))),
      'pods "test-pod" is forbidden: pod rejected: Pod\'s Overhead doesn\'t match RuntimeClass\'s defined Overhead');
    assert.equal(message(() => plugin.validate('create', pods, pod({ overhead: { cpu: '1' } }))),
      'pods "test-pod" is forbidden: pod rejected: Pod Overhead set without corresponding RuntimeClass defined Overhead');
    const p = pod({ runtimeClassName: 'kata-fc', overhead: { cpu: '0.25', memory: '125829120' } });
    plugin.admit('create', pods, p);
    assert.deepEqual(p.spec!.overhead, { memory: '120Mi', cpu: '250m' });
  });

  it('merges the class\'s nodeSelector and tolerations; a selector key with another value is a conflict', () => {
    const p = pod({ runtimeClassName: 'gpu', nodeSelector: { disk: 'ssd' }, tolerations: [{ key: 'accelerator', operator: 'Equal', value: 'a', effect: 'NoSchedule' }] });
    plugin.admit('create', pods, p);
    assert.deepEqual(p.spec!.nodeSelector, { disk: 'ssd', accelerator: 'yes' });
    // The class's Exists toleration tolerates a superset of the pod's Equal one: only it is kept.
    assert.deepEqual(p.spec!.tolerations, [{ key: 'accelerator', operator: 'Exists', effect: 'NoSchedule' }]);
    assert.equal(message(() => plugin.admit('create', pods, pod({ runtimeClassName: 'gpu', nodeSelector: { accelerator: 'no' } }))),
      'pods "test-pod" is forbidden: conflict: runtimeClass.scheduling.nodeSelector[accelerator] = yes; pod.spec.nodeSelector[accelerator] = no');
  });

  it('looks a class the cache misses up in storage; one that is nowhere refuses the pod', async () => {
    await plugin.admit('create', pods, pod({ runtimeClassName: 'late' }));
    await assert.rejects(async () => plugin.admit('create', pods, pod({ runtimeClassName: 'kata' })),
      (e: StatusError) => e.status.code === 403 && e.status.message === 'pods "test-pod" is forbidden: pod rejected: RuntimeClass "kata" not found');
    assert.deepEqual(lookedUp, ['late', 'kata']);
  });

  it('leaves updates, other resources and pods without a class alone', () => {
    const p = pod({ runtimeClassName: 'missing' });
    assert.equal(plugin.admit('update', pods, p), undefined);
    const plain = pod();
    plugin.admit('create', pods, plain);
    assert.deepEqual(plain, pod());
  });
});

describe('DefaultIngressClass admission', () => {
  const cls = (name: string, isDefault?: string): IngressClass => ({
    metadata: { name, ...(isDefault ? { annotations: { 'ingressclass.kubernetes.io/is-default-class': isDefault } } : {}) }, spec: { controller: 'k8s.io/ingress-nginx' },
  });
  const ing = (o: Partial<Ingress> = {}): Ingress => ({ metadata: { name: 'test-ingress' }, spec: {}, ...o });

  it('an Ingress without a class gets the default one; a class or the old annotation is kept', () => {
    const plugin = defaultIngressClassAdmission({ list: () => [cls('other'), cls('nginx-example', 'true'), cls('off', 'false')] });
    const a = ing(); plugin('create', ingresses, a);
    assert.equal(a.spec!.ingressClassName, 'nginx-example');
    const b = ing({ spec: { ingressClassName: 'other' } }); plugin('create', ingresses, b);
    assert.equal(b.spec!.ingressClassName, 'other');
    const c = ing({ metadata: { name: 'x', annotations: { 'kubernetes.io/ingress.class': 'nginx' } } }); plugin('create', ingresses, c);
    assert.equal(c.spec!.ingressClassName, undefined);
    const d = ing(); plugin('update', ingresses, d);
    assert.equal(d.spec!.ingressClassName, undefined);
  });

  it('two defaults refuse the Ingress in upstream\'s words; none leaves it without a class', () => {
    const two = defaultIngressClassAdmission({ list: () => [cls('a', 'true'), cls('b', 'true')] });
    assert.equal(message(() => two('create', ingresses, ing())),
      'ingresses.networking.k8s.io "test-ingress" is forbidden: Internal error occurred: 2 default IngressClasses were found, only 1 allowed');
    const none = ing();
    defaultIngressClassAdmission({ list: () => [cls('a')] })('create', ingresses, none);
    assert.equal(none.spec!.ingressClassName, undefined);
  });
});

describe('mergeTolerations', () => {
  it('keeps the superset of two, the first of two equal ones, and both of unrelated ones', () => {
    const any = { key: 'k', operator: 'Exists' };
    const eq = { key: 'k', operator: 'Equal', value: 'v', effect: 'NoSchedule' };
    const other = { key: 'o', operator: 'Exists' };
    assert.deepEqual(mergeTolerations([eq], [any]), [any]);
    assert.deepEqual(mergeTolerations([any, other], [eq, other]), [any, other]);
    assert.deepEqual(mergeTolerations([{ operator: 'Exists' }], [eq, other]), [{ operator: 'Exists' }]);
    const short = { key: 'n', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 10 };
    const long = { key: 'n', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 60 };
    assert.deepEqual(mergeTolerations([short], [long]), [long]);
    assert.deepEqual(mergeTolerations(undefined, undefined), []);
  });
});
