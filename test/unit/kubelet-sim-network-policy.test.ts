/**
 * NetworkPolicy between simulated pods (runtime/simulated/network-policy.ts),
 * one case per rule of its comment, in that order.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Pod } from 'kubernetes-types/core/v1.js';
import type { NetworkPolicy } from 'kubernetes-types/networking/v1.js';
import { connectionAllowed, type PolicyEnd, type PolicyInputs } from '../../src/kubelet/runtime/simulated/network-policy.js';

const end = (name: string, ip: string, labels: Record<string, string>, namespace = 'default', ports: { name: string; containerPort: number }[] = []): PolicyEnd => ({
  ip, pod: { metadata: { name, namespace, labels }, spec: { containers: [{ name: 'c', ports }] } } as Pod,
});
const policy = (namespace: string, spec: NetworkPolicy['spec']): NetworkPolicy => ({ metadata: { name: 'p', namespace }, spec });
const inputs = (policies: NetworkPolicy[], namespaces: Record<string, Record<string, string>> = { default: {}, other: { team: 'a' } }): PolicyInputs => ({
  policies: (ns) => policies.filter((p) => p.metadata?.namespace === ns),
  namespaceLabels: (name) => namespaces[name],
});

const nginx = end('nginx', '10.244.0.5', { app: 'nginx' }, 'default', [{ name: 'http', containerPort: 80 }]);
const client = end('busybox', '10.244.1.7', { run: 'busybox' });
const allowed = end('busybox', '10.244.1.8', { run: 'busybox', access: 'true' });
const accessNginx = policy('default', { podSelector: { matchLabels: { app: 'nginx' } }, ingress: [{ from: [{ podSelector: { matchLabels: { access: 'true' } } }] }] });

describe('connectionAllowed: NetworkPolicy on the simulated pod network', () => {
  it('1. a pod no policy selects allows everything; one selected for ingress is isolated (the Declare Network Policy page)', () => {
    assert.equal(connectionAllowed(client, nginx, 80, inputs([])), true);
    assert.equal(connectionAllowed(client, nginx, 80, inputs([accessNginx])), false);
    assert.equal(connectionAllowed(allowed, nginx, 80, inputs([accessNginx])), true);
    // The policy selects nginx only: a connection to the client is not policed.
    assert.equal(connectionAllowed(nginx, client, 80, inputs([accessNginx])), true);
  });

  it('1. policyTypes: absent means Ingress (plus Egress with egress rules); Egress isolates the sender', () => {
    const denyEgress = policy('default', { podSelector: {}, policyTypes: ['Egress'] });
    assert.equal(connectionAllowed(client, nginx, 80, inputs([denyEgress])), false);
    const egressOnly = policy('default', { podSelector: { matchLabels: { run: 'busybox' } }, egress: [{ to: [{ podSelector: { matchLabels: { app: 'nginx' } } }] }] });
    assert.equal(connectionAllowed(client, nginx, 80, inputs([egressOnly])), true);
    assert.equal(connectionAllowed(client, end('x', '10.244.2.2', { app: 'other' }), 80, inputs([egressOnly])), false);
  });

  it('2. an isolated pod allows what one rule matches; a rule without peers or ports matches all', () => {
    const allowAll = policy('default', { podSelector: {}, ingress: [{}] });
    assert.equal(connectionAllowed(client, nginx, 80, inputs([accessNginx, allowAll])), true);
    const denyAll = policy('default', { podSelector: {} });
    assert.equal(connectionAllowed(allowed, nginx, 80, inputs([denyAll])), false);
  });

  it('3. peers: podSelector in the policy\'s namespace, namespaceSelector, both, ipBlock with except', () => {
    const elsewhere = end('busybox', '10.244.1.9', { access: 'true' }, 'other');
    assert.equal(connectionAllowed(elsewhere, nginx, 80, inputs([accessNginx])), false);
    const byNamespace = policy('default', { podSelector: {}, ingress: [{ from: [{ namespaceSelector: { matchLabels: { team: 'a' } } }] }] });
    assert.equal(connectionAllowed(end('x', '10.244.1.10', {}, 'other'), nginx, 80, inputs([byNamespace])), true);
    assert.equal(connectionAllowed(client, nginx, 80, inputs([byNamespace])), false);
    const both = policy('default', { podSelector: {}, ingress: [{ from: [{ namespaceSelector: { matchLabels: { team: 'a' } }, podSelector: { matchLabels: { access: 'true' } } }] }] });
    assert.equal(connectionAllowed(elsewhere, nginx, 80, inputs([both])), true);
    assert.equal(connectionAllowed(end('x', '10.244.1.10', {}, 'other'), nginx, 80, inputs([both])), false);
    const block = policy('default', { podSelector: {}, ingress: [{ from: [{ ipBlock: { cidr: '10.244.1.0/24', except: ['10.244.1.8/32'] } }] }] });
    assert.equal(connectionAllowed(client, nginx, 80, inputs([block])), true);
    assert.equal(connectionAllowed(allowed, nginx, 80, inputs([block])), false);
  });

  it('4. ports: a number (up to endPort), a name of the destination\'s container ports, TCP only', () => {
    const port = (ports: NonNullable<NetworkPolicy['spec']>['ingress']) => inputs([policy('default', { podSelector: {}, ingress: ports })]);
    assert.equal(connectionAllowed(client, nginx, 80, port([{ ports: [{ port: 80 }] }])), true);
    assert.equal(connectionAllowed(client, nginx, 81, port([{ ports: [{ port: 80 }] }])), false);
    assert.equal(connectionAllowed(client, nginx, 85, port([{ ports: [{ port: 80, endPort: 90 }] }])), true);
    assert.equal(connectionAllowed(client, nginx, 80, port([{ ports: [{ port: 'http' }] }])), true);
    assert.equal(connectionAllowed(client, nginx, 80, port([{ ports: [{ port: 'metrics' }] }])), false);
    assert.equal(connectionAllowed(client, nginx, 80, port([{ ports: [{ port: 80, protocol: 'UDP' }] }])), false);
  });
});
