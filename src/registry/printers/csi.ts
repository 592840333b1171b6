/**
 * CSIDriver, CSINode, VolumeAttachment and CSIStorageCapacity
 * (storage.k8s.io/v1), as upstream's printCSIDriver, printCSINode,
 * printVolumeAttachment and printCSIStorageCapacity.
 */
import type { CSIDriver, CSINode, CSIStorageCapacity, VolumeAttachment } from 'kubernetes-types/storage/v1.js';
import { canonicalQuantity } from '../../api/quantity.js';
import { ageColumn, column, docColumn, nameColumn } from './columns.js';
import { timestampSince } from './duration.js';
import type { KindPrinter, TableRow } from './types.js';

export const csiDriverPrinter: KindPrinter = {
  columns: [
    nameColumn(),
    docColumn('AttachRequired', 'storagev1.CSIDriverSpec.attachRequired', { type: 'boolean' }),
    docColumn('PodInfoOnMount', 'storagev1.CSIDriverSpec.podInfoOnMount', { type: 'boolean' }),
    docColumn('StorageCapacity', 'storagev1.CSIDriverSpec.storageCapacity', { type: 'boolean' }),
    docColumn('TokenRequests', 'storagev1.CSIDriverSpec.tokenRequests'),
    docColumn('RequiresRepublish', 'storagev1.CSIDriverSpec.requiresRepublish', { type: 'boolean' }),
    docColumn('Modes', 'storagev1.CSIDriverSpec.volumeLifecycleModes'),
    ageColumn(),
  ],
  row(d: CSIDriver, ctx): TableRow {
    const spec = d.spec;
    const audiences = (spec?.tokenRequests ?? []).map((t) => t.audience);
    const modes = (spec?.volumeLifecycleModes ?? []).join(',');
    return {
      cells: [
        d.metadata?.name ?? '', spec?.attachRequired ?? true, spec?.podInfoOnMount ?? false, spec?.storageCapacity ?? false,
        audiences.length > 0 ? audiences.join(',') : '<unset>', spec?.requiresRepublish ?? false, modes || '<none>',
        timestampSince(d.metadata?.creationTimestamp, ctx.now),
      ],
    };
  },
};

export const csiNodePrinter: KindPrinter = {
  columns: [nameColumn(), column('Drivers', 'Drivers indicates the number of CSI drivers registered on the node', { type: 'integer' }), ageColumn()],
  row(n: CSINode, ctx): TableRow {
    return { cells: [n.metadata?.name ?? '', n.spec?.drivers?.length ?? 0, timestampSince(n.metadata?.creationTimestamp, ctx.now)] };
  },
};

export const volumeAttachmentPrinter: KindPrinter = {
  columns: [
    nameColumn(),
    docColumn('Attacher', 'storagev1.VolumeAttachmentSpec.attacher', { format: 'name' }),
    docColumn('PV', 'storagev1.VolumeAttachmentSource.persistentVolumeName'),
    docColumn('Node', 'storagev1.VolumeAttachmentSpec.nodeName'),
    docColumn('Attached', 'storagev1.VolumeAttachmentStatus.attached', { type: 'boolean' }),
    ageColumn(),
  ],
  row(va: VolumeAttachment, ctx): TableRow {
    return {
      cells: [
        va.metadata?.name ?? '', va.spec?.attacher ?? '', va.spec?.source?.persistentVolumeName ?? '', va.spec?.nodeName ?? '',
        va.status?.attached ?? false, timestampSince(va.metadata?.creationTimestamp, ctx.now),
      ],
    };
  },
};

/** Upstream prints no AGE for capacities. */
export const csiStorageCapacityPrinter: KindPrinter = {
  columns: [
    nameColumn(),
    docColumn('StorageClassName', 'storagev1.CSIStorageCapacity.storageClassName'),
    docColumn('Capacity', 'storagev1.CSIStorageCapacity.capacity'),
  ],
  row(c: CSIStorageCapacity): TableRow {
    const capacity = c.capacity === undefined ? '<unset>' : (canonicalQuantity(c.capacity) ?? String(c.capacity));
    return { cells: [c.metadata?.name ?? '', c.storageClassName ?? '', capacity] };
  },
};
