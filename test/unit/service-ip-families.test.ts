/**
 * A new Service's IP families on k8ts's single-stack (IPv4) clusters, as
 * upstream's initIPFamilyFields fills and refuses them (service-ip-families.ts).
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Service } from 'kubernetes-types/core/v1.js';
import { initIPFamilyFields } from '../../src/registry/service-ip-families.js';
import { fieldErrorMessage } from '../../src/api/field-errors.js';

const svc = (spec: Service['spec']): Service => ({ apiVersion: 'v1', kind: 'Service', metadata: { name: 's' }, spec: { ipFamilyPolicy: 'SingleStack', ...spec } });
const messages = (s: Service) => initIPFamilyFields(s).map(fieldErrorMessage);

describe('Service IP families on a single-stack IPv4 cluster', () => {
  it('defaults to IPv4; IPv4 asked for, or PreferDualStack, gets IPv4 only', () => {
    for (const spec of [{}, { ipFamilies: ['IPv4'] }, { ipFamilyPolicy: 'PreferDualStack' }, { clusterIP: '10.96.0.9', clusterIPs: ['10.96.0.9'] }]) {
      const s = svc({ selector: { app: 'a' }, ...spec });
      assert.deepEqual(messages(s), []);
      assert.deepEqual(s.spec!.ipFamilies, ['IPv4'], JSON.stringify(spec));
    }
  });

  it('refuses IPv6 and RequireDualStack with upstream\'s words', () => {
    assert.deepEqual(messages(svc({ selector: { app: 'a' }, ipFamilies: ['IPv6'] })), ['spec.ipFamilies[0]: Invalid value: "IPv6": not configured on this cluster']);
    assert.deepEqual(messages(svc({ selector: { app: 'a' }, ipFamilyPolicy: 'RequireDualStack' })),
      ['spec.ipFamilyPolicy: Invalid value: "RequireDualStack": this cluster is not configured for dual-stack services']);
    assert.deepEqual(messages(svc({ clusterIP: 'fd00::10', clusterIPs: ['fd00::10'] })),
      ['spec.clusterIPs[0]: Invalid value: []string{"fd00::10"}: IPv6 is not configured on this cluster']);
    assert.deepEqual(messages(svc({ ipFamilies: ['IPv4', 'IPv6'] })),
      ['spec.ipFamilyPolicy: Invalid value: "SingleStack": must be RequireDualStack or PreferDualStack when multiple IP families are specified']);
  });

  it('a headless Service without a selector gets both families unless SingleStack', () => {
    const both = svc({ clusterIP: 'None', clusterIPs: ['None'], ipFamilyPolicy: 'RequireDualStack' });
    assert.deepEqual(messages(both), []);
    assert.deepEqual(both.spec!.ipFamilies, ['IPv4', 'IPv6']);
    const one = svc({ clusterIP: 'None', clusterIPs: ['None'] });
    assert.deepEqual(messages(one), []);
    assert.deepEqual(one.spec!.ipFamilies, ['IPv4']);
    const withSelector = svc({ clusterIP: 'None', clusterIPs: ['None'], selector: { app: 'a' }, ipFamilyPolicy: 'PreferDualStack' });
    assert.deepEqual(messages(withSelector), []);
    assert.deepEqual(withSelector.spec!.ipFamilies, ['IPv4']);
  });
});
