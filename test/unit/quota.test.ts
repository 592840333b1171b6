/** Quota arithmetic, evaluators, scopes and the admission decision (upstream pkg/quota/v1, plugin/pkg/admission/resourcequota). */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import {
  addLists, evaluatorFor, lessThanOrEqual, maskList, objectCountName, parseResourceList, podMatchesScope, podRequests, podLimits,
  prettyPrint, removeZeros, resourceListJSON, subtractLists, usageOf,
} from '../../src/api/quota/index.js';
import { checkQuotas } from '../../src/apiserver/admission/quota-check.js';
import { quotaStatus, resourcesToCount } from '../../src/controllers/resourcequota/usage.js';

const now = new Date('2026-01-01T00:00:00Z');
const list = (o: Record<string, string>) => parseResourceList(o);
const json = (l: ReturnType<typeof list>) => resourceListJSON(l);

const container = (name: string, requests?: Record<string, string>, limits?: Record<string, string>) =>
  ({ name, image: 'x', resources: { ...(requests ? { requests } : {}), ...(limits ? { limits } : {}) } });
const pod = (name: string, containers: any[], extra: Record<string, any> = {}) =>
  ({ metadata: { name, namespace: 'ns' }, spec: { containers, ...extra }, status: { phase: 'Pending' } });
const quota = (name: string, hard: Record<string, string>, used?: Record<string, string>, spec: Record<string, any> = {}) =>
  ({ metadata: { name, namespace: 'ns' }, spec: { hard, ...spec }, status: used ? { hard, used } : {} });

describe('ResourceList arithmetic', () => {
  it('adds exactly, keeping names of either side', () => {
    assert.deepEqual(json(addLists(list({ cpu: '100m', memory: '1Gi' }), list({ cpu: '1900m', pods: '1' }))), { cpu: '2', memory: '1Gi', pods: '1' });
  });
  it('subtracts the names of the left side', () => assert.deepEqual(json(subtractLists(list({ cpu: '2' }), list({ cpu: '500m', pods: '1' }))), { cpu: '1500m' }));
  it('masks to names and removes zeros', () => {
    assert.deepEqual(json(maskList(list({ cpu: '1', pods: '2' }), ['pods'])), { pods: '2' });
    assert.deepEqual(json(removeZeros(list({ cpu: '0', pods: '2' }))), { pods: '2' });
  });
  it('lessThanOrEqual reports the exceeded names, sorted; names missing on the right are unlimited', () => {
    assert.deepEqual(lessThanOrEqual(list({ pods: '3', cpu: '3', memory: '1' }), list({ cpu: '2', pods: '2' })), { allowed: false, exceeded: ['cpu', 'pods'] });
    assert.deepEqual(lessThanOrEqual(list({ cpu: '2' }), list({ cpu: '2000m' })), { allowed: true, exceeded: [] });
  });
  it('prettyPrint sorts name=quantity pairs', () => assert.equal(prettyPrint(list({ pods: '1', cpu: '1500m' })), 'cpu=1500m,pods=1'));
});

describe('pod requests and limits', () => {
  it('containers add up; an init container needs only the largest; overhead is added', () => {
    const spec = {
      containers: [container('a', { cpu: '100m' }, { cpu: '200m' }), container('b', { cpu: '200m' })],
      initContainers: [container('i', { cpu: '1' }, { cpu: '1' })],
      overhead: { cpu: '10m' },
    };
    assert.deepEqual(json(podRequests(spec as any)), { cpu: '1010m' });
    assert.deepEqual(json(podLimits(spec as any)), { cpu: '1010m' });
  });
  it('sidecars (restartPolicy Always) add to the total', () => {
    const spec = { containers: [container('a', { cpu: '1' })], initContainers: [{ ...container('s', { cpu: '500m' }), restartPolicy: 'Always' }] };
    assert.deepEqual(json(podRequests(spec as any)), { cpu: '1500m' });
  });
});

describe('evaluators', () => {
  const ev = evaluatorFor('', 'pods');
  it('a pod uses pods, count/pods, requests as <r> and requests.<r>, limits as limits.<r>', () => {
    const p = pod('p', [container('c', { cpu: '1', memory: '1Gi', 'example.com/gpu': '1' }, { cpu: '2' })]);
    assert.deepEqual(json(ev.usage(p, now)), {
      'count/pods': '1', cpu: '1', 'limits.cpu': '2', memory: '1Gi', pods: '1', 'requests.cpu': '1', 'requests.example.com/gpu': '1', 'requests.memory': '1Gi',
    });
  });
  it('a finished pod counts only as an object', () => {
    assert.deepEqual(json(ev.usage({ ...pod('p', [container('c', { cpu: '1' })]), status: { phase: 'Succeeded' } }, now)), { 'count/pods': '1' });
  });
  it('must specify: each container must name the constrained resources', () => {
    const p = pod('p', [container('a', { cpu: '1' }), container('b')]);
    assert.equal(ev.constraints!(['cpu', 'limits.cpu', 'pods'], p), 'must specify cpu for: b; limits.cpu for: a,b');
    assert.equal(ev.constraints!(['pods'], p), undefined);
  });
  it('services count node ports and load balancers', () => {
    const svc = { spec: { type: 'LoadBalancer', ports: [{ port: 80 }, { port: 443 }] } };
    assert.deepEqual(json(evaluatorFor('', 'services').usage(svc, now)), { 'count/services': '1', services: '1', 'services.loadbalancers': '1', 'services.nodeports': '2' });
  });
  it('claims count storage, also per storage class', () => {
    const pvc = { spec: { storageClassName: 'fast', resources: { requests: { storage: '5Gi' } } } };
    assert.deepEqual(json(evaluatorFor('', 'persistentvolumeclaims').usage(pvc, now)), {
      'count/persistentvolumeclaims': '1', 'fast.storageclass.storage.k8s.io/persistentvolumeclaims': '1',
      'fast.storageclass.storage.k8s.io/requests.storage': '5Gi', persistentvolumeclaims: '1', 'requests.storage': '5Gi',
    });
  });
  it('other kinds count as count/<resource>.<group>, with the legacy names of configmaps and secrets', () => {
    assert.equal(objectCountName('apps', 'deployments'), 'count/deployments.apps');
    assert.deepEqual(json(evaluatorFor('', 'configmaps').usage({}, now)), { configmaps: '1', 'count/configmaps': '1' });
    assert.ok(evaluatorFor('apps', 'deployments').handles('count/deployments.apps'));
    assert.ok(!evaluatorFor('apps', 'deployments').handles('pods'));
  });
});

describe('scopes', () => {
  const best = pod('b', [container('c')]);
  const burst = pod('n', [container('c', { cpu: '1' })], { activeDeadlineSeconds: 30, priorityClassName: 'high' });
  const table: [string, any, boolean][] = [
    ['BestEffort', best, true], ['BestEffort', burst, false], ['NotBestEffort', burst, true],
    ['Terminating', burst, true], ['Terminating', best, false], ['NotTerminating', best, true],
  ];
  for (const [scope, p, want] of table) it(`${scope} ${p.metadata.name}: ${want}`, () => assert.equal(podMatchesScope({ scopeName: scope, operator: 'Exists' }, p), want));
  it('PriorityClass In/NotIn/Exists', () => {
    assert.equal(podMatchesScope({ scopeName: 'PriorityClass', operator: 'In', values: ['high'] }, burst), true);
    assert.equal(podMatchesScope({ scopeName: 'PriorityClass', operator: 'NotIn', values: ['high'] }, burst), false);
    assert.equal(podMatchesScope({ scopeName: 'PriorityClass', operator: 'Exists' }, best), false);
  });
  it('a scoped quota counts only the pods in its scope', () => {
    const q = quota('q', { pods: '10' }, { pods: '0' }, { scopes: ['BestEffort'] });
    assert.deepEqual(json(usageOf(q as any, evaluatorFor('', 'pods'), [best, burst], now)), { pods: '1' });
  });
});

describe('checkQuotas (admission)', () => {
  const ev = evaluatorFor('', 'pods');
  const p = pod('x', [container('c', { cpu: '2' }, { cpu: '2' })]);
  it('refuses what would exceed hard, in upstream words', () => {
    const d = checkQuotas([quota('q', { cpu: '2' }, { cpu: '1' }) as any], ev, p, now);
    assert.deepEqual(d, { allowed: false, message: 'exceeded quota: q, requested: cpu=2, used: cpu=1, limited: cpu=2' });
  });
  it('the Memory and CPU Quotas page: used in the binary units of the pods (600Mi, not 629145600), in the status and the message', () => {
    const first = pod('quota-mem-cpu-demo', [container('c', { memory: '600Mi', cpu: '400m' }, { memory: '800Mi', cpu: '800m' })]);
    const hard = { 'requests.cpu': '1', 'requests.memory': '1Gi', 'limits.cpu': '2', 'limits.memory': '2Gi' };
    const q0 = quota('mem-cpu-demo', hard);
    assert.deepEqual(json(usageOf(q0 as any, ev, [first], now)),
      { 'limits.cpu': '800m', 'limits.memory': '800Mi', 'requests.cpu': '400m', 'requests.memory': '600Mi' });
    const zero = { 'requests.cpu': '0', 'requests.memory': '0', 'limits.cpu': '0', 'limits.memory': '0' };
    const charged = checkQuotas([quota('mem-cpu-demo', hard, zero) as any], ev, first, now);
    assert.deepEqual(charged.allowed && json(charged.charges[0]!.used), { 'limits.cpu': '800m', 'limits.memory': '800Mi', 'requests.cpu': '400m', 'requests.memory': '600Mi' });
    const second = pod('quota-mem-cpu-demo-2', [container('c', { memory: '700Mi', cpu: '400m' }, { memory: '1Gi', cpu: '800m' })]);
    const used = { 'limits.cpu': '800m', 'limits.memory': '800Mi', 'requests.cpu': '400m', 'requests.memory': '600Mi' };
    assert.deepEqual(checkQuotas([quota('mem-cpu-demo', hard, used) as any], ev, second, now), { allowed: false,
      message: 'exceeded quota: mem-cpu-demo, requested: requests.memory=700Mi, used: requests.memory=600Mi, limited: requests.memory=1Gi' });
  });
  it('charges every matching quota', () => {
    const d = checkQuotas([quota('a', { cpu: '4', pods: '2' }, { cpu: '1', pods: '1' }), quota('b', { services: '1' }, { services: '0' })] as any, ev, p, now);
    assert.equal(d.allowed, true);
    assert.deepEqual(d.allowed && d.charges.map((c) => [c.quota.metadata?.name, json(c.used)]), [['a', { cpu: '3', pods: '2' }]]);
  });
  it('a quota the controller has not counted yet refuses with status unknown', () => {
    const d = checkQuotas([quota('q', { pods: '2' }) as any], ev, p, now);
    assert.deepEqual(d, { allowed: false, message: 'status unknown for quota: q, resources: pods' });
  });
  it('constraints come first', () => {
    const d = checkQuotas([quota('q', { 'limits.memory': '1Gi' }, { 'limits.memory': '0' }) as any], ev, p, now);
    assert.deepEqual(d, { allowed: false, message: 'failed quota: q: must specify limits.memory for: c' });
  });
  it('quotas of other resources and out-of-scope quotas do not apply', () => {
    assert.deepEqual(checkQuotas([quota('q', { services: '0' }, { services: '0' }) as any], ev, p, now), { allowed: true, charges: [] });
    assert.deepEqual(checkQuotas([quota('q', { pods: '0' }, { pods: '0' }, { scopes: ['BestEffort'] }) as any], ev, p, now), { allowed: true, charges: [] });
  });
});

describe('quota status (controller)', () => {
  it('hard is spec.hard; used sums the namespace objects, zero where nothing is used', () => {
    const q = quota('q', { pods: '5', 'requests.cpu': '4', configmaps: '3', 'count/deployments.apps': '1' }) as any;
    const rs = resourcesToCount(q);
    assert.deepEqual(rs.map((r) => `${r.group}/${r.plural}`), ['/pods', '/configmaps', 'apps/deployments']);
    const objects = new Map(rs.map((r) => [r, r.plural === 'pods' ? [pod('a', [container('c', { cpu: '500m' })]), pod('b', [container('c', { cpu: '1' })])] : []]));
    assert.deepEqual(quotaStatus(q, objects, now), {
      hard: { configmaps: '3', 'count/deployments.apps': '1', pods: '5', 'requests.cpu': '4' },
      used: { configmaps: '0', 'count/deployments.apps': '0', pods: '2', 'requests.cpu': '1500m' },
    });
  });
});
