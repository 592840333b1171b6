/** persistentVolumeClaim volumes resolved to the bound volume's directory (src/kubelet/runtime/cri/claims.ts). */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { PersistentVolume, PersistentVolumeClaim, Pod } from 'kubernetes-types/core/v1.js';
import { resolveClaims, type VolumeGetter } from '../../src/kubelet/runtime/cri/claims.js';
import { MountError } from '../../src/kubelet/runtime/cri/volumes.js';

const pod = (readOnly = false): Pod => ({
  metadata: { name: 'web-0', namespace: 'default', uid: 'u1' },
  spec: {
    containers: [{ name: 'c', image: 'i', volumeMounts: [{ name: 'www', mountPath: '/data' }, { name: 'tmp', mountPath: '/tmp' }] }],
    volumes: [{ name: 'www', persistentVolumeClaim: { claimName: 'www-web-0', readOnly } }, { name: 'tmp', emptyDir: {} }],
  },
});

function getter(claim: PersistentVolumeClaim | Error, volume?: PersistentVolume): VolumeGetter {
  return {
    claim: async () => { if (claim instanceof Error) throw claim; return claim; },
    volume: async (name) => { if (!volume || volume.metadata?.name !== name) throw new Error(`persistentvolumes "${name}" not found`); return volume; },
  };
}

const bound: PersistentVolumeClaim = { metadata: { name: 'www-web-0' }, spec: { volumeName: 'pv1' }, status: { phase: 'Bound' } };

describe('resolveClaims', () => {
  it('replaces a bound claim by the hostPath of its volume and keeps other volumes', async () => {
    const pv: PersistentVolume = { metadata: { name: 'pv1' }, spec: { hostPath: { path: '/var/lib/k8ts/storage/pv1_default_www-web-0', type: 'DirectoryOrCreate' } } };
    const out = await resolveClaims(pod(), getter(bound, pv));
    assert.deepEqual(out.spec!.volumes, [{ name: 'www', hostPath: { path: '/var/lib/k8ts/storage/pv1_default_www-web-0', type: 'DirectoryOrCreate' } }, { name: 'tmp', emptyDir: {} }]);
    assert.equal(out.spec!.containers[0].volumeMounts![0].readOnly, undefined);
  });

  it('a local volume must be a directory; readOnly claims mount read-only', async () => {
    const pv: PersistentVolume = { metadata: { name: 'pv1' }, spec: { local: { path: '/mnt/disk' } } };
    const out = await resolveClaims(pod(true), getter(bound, pv));
    assert.deepEqual(out.spec!.volumes![0], { name: 'www', hostPath: { path: '/mnt/disk', type: 'Directory' } });
    assert.equal(out.spec!.containers[0].volumeMounts![0].readOnly, true);
    assert.equal(out.spec!.containers[0].volumeMounts![1].readOnly, undefined);
  });

  it('an unbound or missing claim keeps the container waiting with upstream words', async () => {
    const pending: PersistentVolumeClaim = { metadata: { name: 'www-web-0' }, spec: {}, status: { phase: 'Pending' } };
    await assert.rejects(resolveClaims(pod(), getter(pending)), (e: Error) => e instanceof MountError
      && e.message === 'PVC default/www-web-0 has non-bound phase ("Pending") or empty pvc.Spec.VolumeName ("")');
    await assert.rejects(resolveClaims(pod(), getter(new Error('persistentvolumeclaims "www-web-0" not found'))), (e: Error) => e instanceof MountError
      && e.message === 'error processing PVC default/www-web-0: persistentvolumeclaims "www-web-0" not found');
    await assert.rejects(resolveClaims(pod(), undefined), MountError);
  });

  it('a volume source other than hostPath or local is refused; a pod without claims is returned as is', async () => {
    const nfs: PersistentVolume = { metadata: { name: 'pv1' }, spec: { nfs: { server: 's', path: '/x' } } };
    await assert.rejects(resolveClaims(pod(), getter(bound, nfs)), /volume type not supported by this kubelet yet/);
    const plain: Pod = { metadata: { name: 'p', namespace: 'default' }, spec: { containers: [] } };
    assert.equal(await resolveClaims(plain, undefined), plain);
  });
});
