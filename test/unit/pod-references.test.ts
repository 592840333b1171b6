/**
 * What a pod's spec names (api/pod-references.ts), as upstream's podutil visitors: every source of
 * each kind, in the order the visitors meet them (image pull secrets, init, regular and ephemeral
 * containers' envFrom then env, then volumes), each name once, empty names skipped; a pod naming
 * many objects keeps the same answer past the short list's search (a Set from 16 names).
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Pod } from 'kubernetes-types/core/v1.js';
import { podClaimNames, podConfigMapNames, podSecretNames } from '../../src/api/pod-references.js';

const pod = (spec: Partial<NonNullable<Pod['spec']>>): Pod => ({ metadata: { name: 'p', namespace: 'ns' }, spec: { containers: [], ...spec } });

describe('pod references', () => {
  const full = pod({
    imagePullSecrets: [{ name: 'pull' }, { name: '' }],
    initContainers: [{ name: 'i', envFrom: [{ secretRef: { name: 'init-s' } }, { configMapRef: { name: 'init-cm' } }] }],
    containers: [{
      name: 'c',
      envFrom: [{ secretRef: { name: 'pull' } }],
      env: [
        { name: 'A', valueFrom: { secretKeyRef: { name: 'env-s', key: 'k' } } },
        { name: 'B', valueFrom: { configMapKeyRef: { name: 'env-cm', key: 'k' } } },
        { name: 'C', value: 'x' },
      ],
    }],
    ephemeralContainers: [{ name: 'e', env: [{ name: 'D', valueFrom: { secretKeyRef: { name: 'eph-s', key: 'k' } } }] }],
    volumes: [
      { name: 'v1', secret: { secretName: 'vol-s' } },
      { name: 'v2', csi: { driver: 'd', nodePublishSecretRef: { name: 'csi-s' } } },
      { name: 'v3', projected: { sources: [{ secret: { name: 'proj-s' } }, { configMap: { name: 'proj-cm' } }, { serviceAccountToken: { path: 'token' } }] } },
      { name: 'v4', configMap: { name: 'env-cm' } },
      { name: 'v5', persistentVolumeClaim: { claimName: 'claim' } },
      { name: 'v6', ephemeral: { volumeClaimTemplate: { spec: {} } } },
      { name: 'v7', persistentVolumeClaim: { claimName: 'claim' } },
    ],
  });

  const cases: Array<[string, (p: Pod) => string[], string[]]> = [
    ['secrets', podSecretNames, ['pull', 'init-s', 'env-s', 'eph-s', 'vol-s', 'csi-s', 'proj-s']],
    ['configmaps', podConfigMapNames, ['init-cm', 'env-cm', 'proj-cm']],
    ['claims (an ephemeral volume claims <pod>-<volume>)', podClaimNames, ['claim', 'p-v6']],
  ];
  for (const [what, names, want] of cases) {
    it(`${what}: each once, in the visitors' order`, () => assert.deepEqual(names(full), want));
  }

  it('a pod without a spec or volumes names nothing', () => {
    for (const names of [podSecretNames, podConfigMapNames, podClaimNames]) {
      assert.deepEqual(names({ metadata: { name: 'p' } }), []);
      assert.deepEqual(names(pod({})), []);
    }
  });

  it('many names: each once, in order, past the short list', () => {
    const names = Array.from({ length: 40 }, (_, i) => `s${i % 25}`);
    const p = pod({ volumes: names.map((n, i) => ({ name: `v${i}`, secret: { secretName: n } })) });
    assert.deepEqual(podSecretNames(p), Array.from({ length: 25 }, (_, i) => `s${i}`));
  });
});
