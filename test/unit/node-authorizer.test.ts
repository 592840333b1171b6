/**
 * The Node authorizer's graph and decisions (upstream node_authorizer_test
 * cases): paths node ← pod ← secret/configmap/PVC/service account,
 * ← PVC ← PV ← secret; what a node may read of nodes and pods by name and
 * field selector; the static node rules for the rest; NoOpinion for users
 * that are not nodes.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Pod, PersistentVolume } from 'kubernetes-types/core/v1.js';
import { NodeGraph } from '../../src/apiserver/authz/node/graph.js';
import { NodeAuthorizer } from '../../src/apiserver/authz/node/authorizer.js';
import { parseFieldSelector } from '../../src/api/fields.js';
import type { AuthorizationAttributes } from '../../src/apiserver/authz/types.js';

const pod = (name: string, nodeName: string | undefined, spec: Partial<Pod['spec']> = {}): Pod => ({
  metadata: { name, namespace: 'ns' },
  spec: { nodeName, containers: [{ name: 'c', image: 'i' }], ...spec } as Pod['spec'],
});

const pv = (name: string, claim?: string, secret?: string): PersistentVolume => ({
  metadata: { name },
  spec: {
    ...(claim ? { claimRef: { namespace: 'ns', name: claim } } : {}),
    csi: { driver: 'd', volumeHandle: 'h', ...(secret ? { nodePublishSecretRef: { namespace: 'ns', name: secret } } : {}) },
  },
});

describe('node authorizer graph', () => {
  it('reaches the objects a pod on the node names, and only those', () => {
    const g = new NodeGraph();
    g.setPod(pod('p', 'n1', {
      serviceAccountName: 'sa',
      imagePullSecrets: [{ name: 'pull' }],
      containers: [{ name: 'c', image: 'i', env: [{ name: 'A', valueFrom: { configMapKeyRef: { name: 'env-cm', key: 'k' } } }] }],
      initContainers: [{ name: 'i', image: 'i', envFrom: [{ secretRef: { name: 'init-secret' } }] }],
      volumes: [
        { name: 'v1', secret: { secretName: 'vol-secret' } },
        { name: 'v2', projected: { sources: [{ configMap: { name: 'proj-cm' } }] } },
        { name: 'v3', persistentVolumeClaim: { claimName: 'claim' } },
        { name: 'v4', ephemeral: { volumeClaimTemplate: { spec: {} } } },
      ],
    }));
    g.setPV(pv('vol', 'claim', 'pv-secret'));
    for (const [type, name] of [['secret', 'pull'], ['secret', 'init-secret'], ['secret', 'vol-secret'], ['secret', 'pv-secret'],
      ['configmap', 'env-cm'], ['configmap', 'proj-cm'], ['persistentvolumeclaim', 'claim'], ['persistentvolumeclaim', 'p-v4'],
      ['serviceaccount', 'sa'], ['pod', 'p']] as const) {
      assert.ok(g.hasPath('n1', type, 'ns', name), `${type} ${name} reaches n1`);
      assert.ok(!g.hasPath('n2', type, 'ns', name), `${type} ${name} does not reach n2`);
      assert.ok(!g.hasPath('n1', type, 'other', name), `${type} other/${name} does not reach n1`);
    }
    assert.ok(g.hasPath('n1', 'persistentvolume', '', 'vol'));
    assert.ok(!g.hasPath('n1', 'secret', 'ns', 'unused'));
  });

  it('follows pods as they change and go', () => {
    const g = new NodeGraph();
    g.setPod(pod('p', undefined, { volumes: [{ name: 'v', secret: { secretName: 's' } }] }));
    assert.ok(!g.hasPath('n1', 'secret', 'ns', 's'), 'an unscheduled pod reaches no node');
    g.setPod(pod('p', 'n1', { volumes: [{ name: 'v', secret: { secretName: 's' } }] }));
    assert.ok(g.hasPath('n1', 'secret', 'ns', 's'));
    g.setPod(pod('p', 'n1', { volumes: [{ name: 'v', secret: { secretName: 's2' } }] }));
    assert.ok(!g.hasPath('n1', 'secret', 'ns', 's'), 'a reference dropped by an update is gone');
    assert.ok(g.hasPath('n1', 'secret', 'ns', 's2'));
    g.setPod(pod('q', 'n2', { volumes: [{ name: 'v', secret: { secretName: 's2' } }] }));
    g.deletePod('ns', 'p');
    assert.ok(!g.hasPath('n1', 'secret', 'ns', 's2'));
    assert.ok(g.hasPath('n2', 'secret', 'ns', 's2'), 'another pod keeps its own reference');
  });

  it('counts the pods of one node naming an object: the node keeps its path until the last one goes', () => {
    const g = new NodeGraph();
    const spec = { serviceAccountName: 'sa', volumes: [{ name: 'v', configMap: { name: 'cm' } }] };
    g.setPod(pod('a', 'n1', spec));
    g.setPod(pod('b', 'n1', spec));
    g.setPod(pod('c', 'n2', spec));
    g.setPod(pod('a', 'n1', spec)); // a status write: nothing changes
    g.deletePod('ns', 'a');
    assert.ok(g.hasPath('n1', 'configmap', 'ns', 'cm'), 'b is still on n1');
    assert.ok(g.hasPath('n1', 'serviceaccount', 'ns', 'sa'));
    g.setPod(pod('b', 'n2', spec)); // moved (a delete and a create of the same name)
    assert.ok(!g.hasPath('n1', 'configmap', 'ns', 'cm'), 'no pod naming it is left on n1');
    assert.ok(!g.hasPath('n1', 'pod', 'ns', 'b'));
    assert.ok(g.hasPath('n2', 'pod', 'ns', 'b'));
    g.deletePod('ns', 'b');
    g.deletePod('ns', 'c');
    assert.ok(!g.hasPath('n2', 'configmap', 'ns', 'cm'));
    assert.ok(!g.hasPath('n2', 'serviceaccount', 'ns', 'sa'));
  });

  it('pods of two namespaces naming the same names reach only their own namespace\'s objects', () => {
    const g = new NodeGraph();
    const spec = { serviceAccountName: 'default', volumes: [{ name: 'v', projected: { sources: [{ configMap: { name: 'kube-root-ca.crt' } }] } }] };
    g.setPod(pod('a', 'n1', spec));
    g.setPod({ ...pod('b', 'n2', spec), metadata: { name: 'b', namespace: 'other' } });
    g.setPod(pod('c', 'n3', spec)); // the same references as a: one shared entry, its own node
    for (const [node, ns] of [['n1', 'ns'], ['n2', 'other'], ['n3', 'ns']] as const) {
      const otherNs = ns === 'ns' ? 'other' : 'ns';
      assert.ok(g.hasPath(node, 'configmap', ns, 'kube-root-ca.crt'), `${node} reaches ${ns}/kube-root-ca.crt`);
      assert.ok(g.hasPath(node, 'serviceaccount', ns, 'default'));
      assert.ok(!g.hasPath(node, 'configmap', otherNs, 'kube-root-ca.crt'), `${node} does not reach ${otherNs}/kube-root-ca.crt`);
    }
    g.deletePod('ns', 'a');
    assert.ok(!g.hasPath('n1', 'configmap', 'ns', 'kube-root-ca.crt'));
    assert.ok(g.hasPath('n3', 'configmap', 'ns', 'kube-root-ca.crt'), 'c keeps the shared references');
  });

  it('after a relist keeps only what the list returned', () => {
    const g = new NodeGraph();
    const spec = { volumes: [{ name: 'v', secret: { secretName: 's' } }, { name: 'c', persistentVolumeClaim: { claimName: 'claim' } }] };
    g.setPod(pod('a', 'n1', spec));
    g.setPod(pod('b', 'n2', spec));
    g.setPV(pv('vol1', 'claim'));
    g.setPV(pv('vol2', 'claim', 'pv-secret'));
    g.setVolumeAttachment({ metadata: { name: 'va' }, spec: { nodeName: 'n1', attacher: 'a', source: {} } });
    assert.ok(g.hasPath('n2', 'secret', 'ns', 'pv-secret'), 'through vol2, its claim and b');
    g.retainPods([pod('b', 'n2', spec)]);
    g.retainPVs([pv('vol1', 'claim')]);
    g.retainVolumeAttachments([]);
    assert.ok(!g.hasPath('n1', 'pod', 'ns', 'a'));
    assert.ok(!g.hasPath('n1', 'secret', 'ns', 's'));
    assert.ok(g.hasPath('n2', 'secret', 'ns', 's'));
    assert.ok(!g.hasPath('n2', 'secret', 'ns', 'pv-secret'), 'vol2 is gone');
    assert.ok(!g.hasPath('n1', 'volumeattachment', '', 'va'));
  });

  it('keeps volume attachments by node and PVs by claim', () => {
    const g = new NodeGraph();
    g.setVolumeAttachment({ metadata: { name: 'va' }, spec: { nodeName: 'n1', attacher: 'a', source: {} } });
    assert.ok(g.hasPath('n1', 'volumeattachment', '', 'va'));
    g.deleteVolumeAttachment('va');
    assert.ok(!g.hasPath('n1', 'volumeattachment', '', 'va'));
    g.setPV(pv('vol', 'claim'));
    assert.ok(!g.hasPath('n1', 'persistentvolume', '', 'vol'), 'a PV reaches a node only through a pod using its claim');
  });
});

describe('node authorizer decisions', () => {
  const g = new NodeGraph();
  g.setPod(pod('p', 'n1', { volumes: [{ name: 'v', secret: { secretName: 's' } }] }));
  const authz = new NodeAuthorizer(g);
  const node1 = { name: 'system:node:n1', groups: ['system:nodes', 'system:authenticated'] };
  const attrs = (a: Partial<AuthorizationAttributes>): AuthorizationAttributes => ({
    user: node1, verb: 'get', isResourceRequest: true, path: '', apiGroup: '', apiVersion: 'v1', namespace: 'ns', resource: 'secrets', subresource: '', name: '', ...a,
  });
  const decide = (a: Partial<AuthorizationAttributes>) => authz.authorize(attrs(a));

  it('has no opinion on users that are not nodes', () => {
    assert.deepEqual(decide({ user: { name: 'alice', groups: ['system:authenticated'] }, name: 's' }), { decision: 'noOpinion', reason: '' });
    assert.deepEqual(decide({ user: { name: 'system:node:n1', groups: [] }, name: 's' }), { decision: 'noOpinion', reason: '' });
    assert.deepEqual(decide({ user: { name: 'kubelet', groups: ['system:nodes'] }, name: 's' }), { decision: 'noOpinion', reason: '' });
    assert.equal(decide({ user: { name: 'system:node:', groups: ['system:nodes'] }, name: 's' }).reason, 'unknown node for user "system:node:"');
  });

  it('reads secrets by relationship, one at a time', () => {
    assert.equal(decide({ name: 's' }).decision, 'allow');
    assert.equal(decide({ verb: 'watch', name: 's' }).decision, 'allow');
    assert.deepEqual(decide({ name: 'other' }), { decision: 'noOpinion', reason: "no relationship found between node 'n1' and this object" });
    assert.deepEqual(decide({ verb: 'list' }), { decision: 'noOpinion', reason: 'No Object name found' });
    assert.deepEqual(decide({ verb: 'update', name: 's' }), { decision: 'noOpinion', reason: 'can only read resources of this type' });
    assert.deepEqual(decide({ name: 's', namespace: '' }), { decision: 'noOpinion', reason: 'can only read namespaced object of this type' });
  });

  it('reads its own Node, lists pods bound to it by field selector', () => {
    assert.equal(decide({ resource: 'nodes', namespace: '', name: 'n1' }).decision, 'allow');
    assert.equal(decide({ resource: 'nodes', namespace: '', name: 'n2' }).reason, "node 'n1' cannot read 'n2', only its own Node object");
    assert.equal(decide({ resource: 'nodes', namespace: '', verb: 'list' }).reason, "node 'n1' cannot read all nodes, only its own Node object");
    assert.equal(decide({ resource: 'pods', namespace: '', verb: 'watch', fieldSelector: parseFieldSelector('spec.nodeName=n1') }).decision, 'allow');
    assert.equal(decide({ resource: 'pods', namespace: '', verb: 'list', fieldSelector: parseFieldSelector('spec.nodeName=n2') }).reason,
      'can only list/watch pods with spec.nodeName field selector');
    assert.equal(decide({ resource: 'pods', name: 'p' }).decision, 'allow');
    assert.equal(decide({ resource: 'pods', name: 'q' }).decision, 'noOpinion');
    assert.equal(decide({ resource: 'pods', subresource: 'status', verb: 'patch', name: 'q' }).decision, 'allow', 'NodeRestriction narrows status writes');
    assert.equal(decide({ resource: 'pods', subresource: 'exec', verb: 'create', name: 'p' }).decision, 'noOpinion');
  });

  it('its own Lease in kube-node-lease; the static node rules for the rest', () => {
    const lease = { apiGroup: 'coordination.k8s.io', resource: 'leases', namespace: 'kube-node-lease' };
    assert.equal(decide({ ...lease, verb: 'update', name: 'n1' }).decision, 'allow');
    assert.equal(decide({ ...lease, verb: 'update', name: 'n2' }).reason, 'can only access node lease with the same name as the requesting node');
    assert.equal(decide({ ...lease, verb: 'get', name: 'n1', namespace: 'default' }).reason, 'can only access leases in the "kube-node-lease" system namespace');
    assert.equal(decide({ resource: 'services', verb: 'list', namespace: '' }).decision, 'allow');
    assert.equal(decide({ resource: 'events', verb: 'create' }).decision, 'allow');
    assert.equal(decide({ apiGroup: 'apps', resource: 'deployments', verb: 'list' }).decision, 'noOpinion');
    assert.equal(decide({ resource: 'serviceaccounts', subresource: 'token', verb: 'create', name: 'default' }).reason,
      "no relationship found between node 'n1' and this object");
  });
});
