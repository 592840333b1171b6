/** core/v1 ReplicationController, as upstream's printReplicationController. */
import type { ReplicationController } from 'kubernetes-types/core/v1.js';
import { ageColumn, column, containersColumn, imagesColumn, nameColumn } from './columns.js';
import { timestampSince } from './duration.js';
import { formatLabels, layoutContainerCells } from './format.js';
import type { KindPrinter, TableRow } from './types.js';

const rcDoc = 'More info: https://kubernetes.io/docs/concepts/workloads/controllers/replicationcontroller#what-is-a-replicationcontroller';

export const replicationControllerPrinter: KindPrinter = {
  columns: [
    nameColumn(),
    column('Desired', `Replicas is the number of desired replicas. This is a pointer to distinguish between explicit zero and unspecified. Defaults to 1. ${rcDoc}`, { type: 'integer' }),
    column('Current', `Replicas is the most recently observed number of replicas. ${rcDoc}`, { type: 'integer' }),
    column('Ready', 'The number of ready replicas for this replication controller.', { type: 'integer' }),
    ageColumn(),
    containersColumn(),
    imagesColumn(),
    column('Selector', 'Selector is a label query over pods that should match the Replicas count. If Selector is empty, it is defaulted to the labels present on the Pod template. Label keys and values that must match in order to be controlled by this replication controller, if empty defaulted to labels on Pod template. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/labels/#label-selectors', { priority: 1 }),
  ],
  row(rc: ReplicationController, ctx): TableRow {
    const [names, images] = layoutContainerCells(rc.spec?.template?.spec?.containers);
    return {
      cells: [
        rc.metadata?.name ?? '', rc.spec?.replicas ?? 1, rc.status?.replicas ?? 0, rc.status?.readyReplicas ?? 0,
        timestampSince(rc.metadata?.creationTimestamp, ctx.now), names, images, formatLabels(rc.spec?.selector),
      ],
    };
  },
};
