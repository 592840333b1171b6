/**
 * PersistentVolume, PersistentVolumeClaim (core/v1) and StorageClass
 * (storage.k8s.io/v1), as upstream's printPersistentVolume,
 * printPersistentVolumeClaim and printStorageClass.
 */
import type { PersistentVolume, PersistentVolumeClaim } from 'kubernetes-types/core/v1.js';
import type { StorageClass } from 'kubernetes-types/storage/v1.js';
import { canonicalQuantity } from '../../api/quantity.js';
import { ageColumn, column, docColumn, nameColumn } from './columns.js';
import { timestampSince } from './duration.js';
import { accessModesAsString } from './format.js';
import type { KindPrinter, TableRow } from './types.js';

const BETA_STORAGE_CLASS_ANNOTATION = 'volume.beta.kubernetes.io/storage-class';
const IS_DEFAULT_CLASS = 'storageclass.kubernetes.io/is-default-class';
const BETA_IS_DEFAULT_CLASS = 'storageclass.beta.kubernetes.io/is-default-class';

/** Quantity.String() of a capacity, canonical ('1024Mi' → '1Gi'); a missing quantity is the zero Quantity, "0". */
const quantity = (q: string | number | undefined) => (q === undefined ? '0' : (canonicalQuantity(q) ?? String(q)));

/** helper.GetPersistentVolumeClass: the beta annotation wins over spec.storageClassName. */
function volumeClass(pv: PersistentVolume): string {
  const ann = pv.metadata?.annotations ?? {};
  return BETA_STORAGE_CLASS_ANNOTATION in ann ? ann[BETA_STORAGE_CLASS_ANNOTATION] : (pv.spec?.storageClassName ?? '');
}

/** helper.GetPersistentVolumeClaimClass: likewise for claims. */
function claimClass(pvc: PersistentVolumeClaim): string {
  const ann = pvc.metadata?.annotations ?? {};
  return BETA_STORAGE_CLASS_ANNOTATION in ann ? ann[BETA_STORAGE_CLASS_ANNOTATION] : (pvc.spec?.storageClassName ?? '');
}

export const persistentVolumePrinter: KindPrinter = {
  columns: [
    nameColumn(),
    docColumn('Capacity', 'corev1.PersistentVolumeSpec.capacity'),
    docColumn('Access Modes', 'corev1.PersistentVolumeSpec.accessModes'),
    docColumn('Reclaim Policy', 'corev1.PersistentVolumeSpec.persistentVolumeReclaimPolicy'),
    docColumn('Status', 'corev1.PersistentVolumeStatus.phase'),
    docColumn('Claim', 'corev1.PersistentVolumeSpec.claimRef'),
    column('StorageClass', 'StorageClass of the pv'),
    column('VolumeAttributesClass', 'VolumeAttributesClass of the pv'),
    docColumn('Reason', 'corev1.PersistentVolumeStatus.reason'),
    ageColumn(),
    docColumn('VolumeMode', 'corev1.PersistentVolumeSpec.volumeMode', { priority: 1 }),
  ],
  row(pv: PersistentVolume, ctx): TableRow {
    const ref = pv.spec?.claimRef;
    const claim = ref ? `${ref.namespace ?? ''}/${ref.name ?? ''}` : '';
    const phase = pv.metadata?.deletionTimestamp ? 'Terminating' : (pv.status?.phase ?? '');
    return {
      cells: [
        pv.metadata?.name ?? '', quantity(pv.spec?.capacity?.storage), accessModesAsString(pv.spec?.accessModes),
        pv.spec?.persistentVolumeReclaimPolicy ?? '', phase, claim, volumeClass(pv), pv.spec?.volumeAttributesClassName ?? '<unset>',
        pv.status?.reason ?? '', timestampSince(pv.metadata?.creationTimestamp, ctx.now), pv.spec?.volumeMode ?? '<unset>',
      ],
    };
  },
};

export const persistentVolumeClaimPrinter: KindPrinter = {
  columns: [
    nameColumn(),
    docColumn('Status', 'corev1.PersistentVolumeClaimStatus.phase'),
    docColumn('Volume', 'corev1.PersistentVolumeClaimSpec.volumeName'),
    docColumn('Capacity', 'corev1.PersistentVolumeClaimStatus.capacity'),
    docColumn('Access Modes', 'corev1.PersistentVolumeClaimStatus.accessModes'),
    column('StorageClass', 'StorageClass of the pvc'),
    column('VolumeAttributesClass', 'VolumeAttributesClass of the pvc'),
    ageColumn(),
    docColumn('VolumeMode', 'corev1.PersistentVolumeClaimSpec.volumeMode', { priority: 1 }),
  ],
  row(pvc: PersistentVolumeClaim, ctx): TableRow {
    const phase = pvc.metadata?.deletionTimestamp ? 'Terminating' : (pvc.status?.phase ?? '');
    // CAPACITY and ACCESS MODES come from the status, and only once the claim names a volume.
    const bound = Boolean(pvc.spec?.volumeName);
    return {
      cells: [
        pvc.metadata?.name ?? '', phase, pvc.spec?.volumeName ?? '', bound ? quantity(pvc.status?.capacity?.storage) : '',
        bound ? accessModesAsString(pvc.status?.accessModes) : '', claimClass(pvc), pvc.spec?.volumeAttributesClassName ?? '<unset>',
        timestampSince(pvc.metadata?.creationTimestamp, ctx.now), pvc.spec?.volumeMode ?? '<unset>',
      ],
    };
  },
};

export const storageClassPrinter: KindPrinter = {
  columns: [
    nameColumn(),
    docColumn('Provisioner', 'storagev1.StorageClass.provisioner'),
    docColumn('ReclaimPolicy', 'storagev1.StorageClass.reclaimPolicy'),
    docColumn('VolumeBindingMode', 'storagev1.StorageClass.volumeBindingMode'),
    docColumn('AllowVolumeExpansion', 'storagev1.StorageClass.allowVolumeExpansion'),
    ageColumn(),
  ],
  row(sc: StorageClass, ctx): TableRow {
    const ann = sc.metadata?.annotations ?? {};
    const isDefault = ann[IS_DEFAULT_CLASS] === 'true' || ann[BETA_IS_DEFAULT_CLASS] === 'true';
    return {
      cells: [
        `${sc.metadata?.name ?? ''}${isDefault ? ' (default)' : ''}`, sc.provisioner ?? '', sc.reclaimPolicy ?? 'Delete',
        sc.volumeBindingMode ?? 'Immediate', sc.allowVolumeExpansion ?? false, timestampSince(sc.metadata?.creationTimestamp, ctx.now),
      ],
    };
  },
};
