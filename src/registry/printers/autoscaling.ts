/** autoscaling/v2 HorizontalPodAutoscaler (v1 objects are printed from their v2 form), as upstream's printHorizontalPodAutoscaler. */
import type { HorizontalPodAutoscaler, MetricSpec, MetricStatus } from 'kubernetes-types/autoscaling/v2.js';
import type { HorizontalPodAutoscaler as HPAv1 } from 'kubernetes-types/autoscaling/v1.js';
import { hpaV1ToV2 } from '../../api/hpa-conversion.js';
import { canonicalQuantity } from '../../api/quantity.js';
import { ageColumn, docColumn, nameColumn } from './columns.js';
import { timestampSince } from './duration.js';
import type { KindPrinter, TableRow } from './types.js';

const q = (v: string | number | undefined) => (v === undefined ? '0' : (canonicalQuantity(v) ?? String(v)));

/** One metric as `current/target`; current is `<unknown>` until the autoscaler has measured it. */
function formatMetric(spec: MetricSpec, status: MetricStatus | undefined): string {
  switch (spec.type) {
    case 'External':
    case 'Object': {
      const src = spec.type === 'External' ? spec.external : spec.object;
      const cur = spec.type === 'External' ? status?.external?.current : status?.object?.current;
      if (src?.target?.averageValue !== undefined) {
        return `${cur?.averageValue !== undefined ? q(cur.averageValue) : '<unknown>'}/${q(src.target.averageValue)} (avg)`;
      }
      return `${cur ? q(cur.value) : '<unknown>'}/${q(src?.target?.value)}`;
    }
    case 'Pods':
      return `${status?.pods ? q(status.pods.current?.averageValue) : '<unknown>'}/${q(spec.pods?.target?.averageValue)}`;
    case 'Resource':
    case 'ContainerResource': {
      const src = spec.type === 'Resource' ? spec.resource : spec.containerResource;
      const cur = spec.type === 'Resource' ? status?.resource : status?.containerResource;
      if (src?.target?.averageValue !== undefined) {
        return `${src.name}: ${cur ? q(cur.current?.averageValue) : '<unknown>'}/${q(src.target.averageValue)}`;
      }
      const current = cur?.current?.averageUtilization !== undefined ? `${cur.current.averageUtilization}%` : '<unknown>';
      const target = src?.target?.averageUtilization !== undefined ? `${src.target.averageUtilization}%` : '<auto>';
      return `${src?.name ?? ''}: ${current}/${target}`;
    }
    default:
      return '<unknown type>';
  }
}

/** formatHPAMetrics: the first two metrics, then `+ N more...`; `<none>` without metrics. */
export function formatHPAMetrics(specs: MetricSpec[] | undefined, statuses: MetricStatus[] | undefined): string {
  if (!specs?.length) return '<none>';
  const max = 2;
  const list = specs.map((s, i) => formatMetric(s, statuses?.[i]));
  const shown = list.slice(0, max).join(', ');
  return list.length > max ? `${shown} + ${list.length - max} more...` : shown;
}

export const horizontalPodAutoscalerPrinter: KindPrinter = {
  columns: [
    nameColumn(),
    docColumn('Reference', 'autoscalingv2beta1.HorizontalPodAutoscalerSpec.scaleTargetRef'),
    docColumn('Targets', 'autoscalingv2beta1.HorizontalPodAutoscalerSpec.metrics'),
    docColumn('MinPods', 'autoscalingv2beta1.HorizontalPodAutoscalerSpec.minReplicas'),
    docColumn('MaxPods', 'autoscalingv2beta1.HorizontalPodAutoscalerSpec.maxReplicas'),
    docColumn('Replicas', 'autoscalingv2beta1.HorizontalPodAutoscalerStatus.currentReplicas'),
    ageColumn(),
  ],
  row(hpa: HorizontalPodAutoscaler, ctx): TableRow {
    const ref = hpa.spec?.scaleTargetRef;
    const minPods = hpa.spec?.minReplicas !== undefined ? String(hpa.spec.minReplicas) : '<unset>';
    return {
      cells: [
        hpa.metadata?.name ?? '', `${ref?.kind ?? ''}/${ref?.name ?? ''}`, formatHPAMetrics(hpa.spec?.metrics, hpa.status?.currentMetrics),
        minPods, hpa.spec?.maxReplicas ?? 0, hpa.status?.currentReplicas ?? 0, timestampSince(hpa.metadata?.creationTimestamp, ctx.now),
      ],
    };
  },
};

/** autoscaling/v1 objects print as upstream prints every version: from the v2 (internal) form. */
export const horizontalPodAutoscalerV1Printer: KindPrinter = {
  columns: horizontalPodAutoscalerPrinter.columns,
  row: (hpa: HPAv1, ctx) => horizontalPodAutoscalerPrinter.row(hpaV1ToV2(hpa), ctx),
};
