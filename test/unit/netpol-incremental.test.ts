/**
 * The NetworkPolicy agent's model and incremental transactions (src/netpol/model.ts,
 * table.ts) without a kernel: which events write nothing, and what the others
 * write. test/e2e/netpol-incremental.test.ts checks on real nftables that the
 * transactions hold the same table as a whole rewrite.
 */
import { describe, it, beforeEach } from 'node:test';
import assert from 'node:assert/strict';
import type { Pod } from 'kubernetes-types/core/v1.js';
import type { NetworkPolicy } from 'kubernetes-types/networking/v1.js';
import { PolicyModel } from '../../src/netpol/model.js';
import { ProgrammedTable } from '../../src/netpol/table.js';

const pod = (ns: string, name: string, ip: string, labels: Record<string, string>, node = 'n1', rv = '1'): Pod => ({
  metadata: { namespace: ns, name, labels, resourceVersion: rv },
  spec: { nodeName: node, containers: [{ name: 'c', ports: [{ name: 'http', containerPort: 8080 }] }] },
  status: { phase: 'Running', podIP: ip },
});
const np = (ns: string, name: string, spec: NetworkPolicy['spec'], labels: Record<string, string> = {}): NetworkPolicy => ({ metadata: { namespace: ns, name, labels }, spec });
const fromWeb = (ns: string, name: string) => np(ns, name, { podSelector: { matchLabels: { app: 'db' } }, ingress: [{ from: [{ podSelector: { matchLabels: { app: 'web' } } }] }] });

describe('NetworkPolicy incremental sync', () => {
  let model: PolicyModel;
  let table: ProgrammedTable;
  /** The transaction of what changed since the last one (and records it as applied). */
  const sync = () => {
    model.resolve();
    const tx = table.partial(model, model.takeDirty());
    tx.commit();
    return tx.script;
  };

  beforeEach(() => {
    model = new PolicyModel('n1');
    table = new ProgrammedTable();
    model.setNamespace('x', { metadata: { name: 'x', labels: { team: 'a' } } });
    model.setPod('x/web', pod('x', 'web', '10.0.0.1', { app: 'web' }));
    model.setPod('x/db', pod('x', 'db', '10.0.0.2', { app: 'db' }));
    model.setPolicy('x/p', fromWeb('x', 'p'));
    model.resolve();
    model.takeDirty();
    table.full(model).commit();
  });

  it('a pod status update, a policy metadata update and an unchanged namespace write nothing', () => {
    model.setPod('x/web', { ...pod('x', 'web', '10.0.0.1', { app: 'web' }, 'n1', '2'), status: { phase: 'Running', podIP: '10.0.0.1', conditions: [{ type: 'Ready', status: 'True' }] } });
    model.setPolicy('x/p', np('x', 'p', fromWeb('x', 'p').spec, { touched: 'yes' }));
    model.setNamespace('x', { metadata: { name: 'x', labels: { team: 'a' }, annotations: { a: 'b' } } });
    assert.equal(model.changed, false);
    assert.equal(sync(), '');
  });

  it('a policy about no local pod brings nothing to this node', () => {
    model.setPod('x/db2', pod('x', 'db2', '10.0.0.3', { app: 'db' }, 'n2'));
    model.setPolicy('x/q', np('x', 'q', { podSelector: { matchLabels: { app: 'other' } } }));
    assert.equal(sync(), '', 'a remote db pod is in no set, and q selects no local pod');
    assert.equal(model.activePolicies, 1);
  });

  it('a web pod added: one element in the peer set, nothing else', () => {
    model.setPod('x/web2', pod('x', 'web2', '10.0.0.4', { app: 'web' }, 'n2'));
    assert.match(sync(), /^add set inet k8ts-netpol peer-\w+ \{ type ipv4_addr ; elements = \{ 10\.0\.0\.4 \} ; \}\n$/);
  });

  it('an invalid update removes the policy (its chain, set and map element go in one transaction)', () => {
    model.setPolicy('x/p', np('x', 'p', { podSelector: { matchExpressions: [{ key: 'a', operator: 'Near' }] } }));
    assert.match(model.invalid.get('x/p')!, /^x\/p: "Near" is not a valid label selector operator/);
    const script = sync();
    assert.match(script, /^delete element inet k8ts-netpol ingress-pods \{ 10\.0\.0\.2 \}$/m);
    assert.match(script, /^delete chain inet k8ts-netpol ingress-\w+-x\/p$/m);
    assert.match(script, /^delete set inet k8ts-netpol peer-\w+$/m);
    assert.ok(script.indexOf('delete element') < script.indexOf('delete chain') && script.indexOf('delete chain') < script.indexOf('delete set'), 'what points at an object goes before it');
    assert.equal(model.activePolicies, 0);
  });

  it('a new pod reusing a leaving pod\'s address keeps the address isolated until both are gone', () => {
    model.setPod('x/db-new', pod('x', 'db-new', '10.0.0.2', { app: 'db' }));
    assert.equal(sync(), '', 'the address is isolated the same way');
    model.setPod('x/db', undefined);
    assert.equal(sync(), '');
    model.setPod('x/db-new', undefined);
    assert.match(sync(), /^delete element inet k8ts-netpol ingress-pods \{ 10\.0\.0\.2 \}$/m);
  });
});
