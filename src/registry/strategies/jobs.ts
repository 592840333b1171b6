/**
 * Jobs generate their selector and pod labels from the uid, which the store
 * assigns after prepareForCreate; so, like upstream's job strategy (whose
 * comment wishes UID generation came earlier), generation happens at validation.
 */
import type { Job } from 'kubernetes-types/batch/v1.js';
import type { ResourceInfo } from '../../api/resources.js';
import { controllerUidLabel, jobNameLabel, legacyControllerUidLabel, legacyJobNameLabel } from '../../api/validation/job.js';
import type { Strategy } from '../strategy.js';
import { genericStrategy } from './generic.js';

/**
 * generateSelector: the job-name labels (friendly, nearly unique) and the
 * controller-uid labels (unique) go on the template unless the user set them
 * (a conflict then fails validation); the selector matches controller-uid.
 */
export function generateSelector(job: Job): void {
  const spec = job.spec!;
  // Validation reports a missing template; until then an empty one takes the labels.
  const template = (spec.template ??= {});
  const meta = (template.metadata ??= {});
  const labels = (meta.labels ??= {});
  for (const k of [legacyJobNameLabel, jobNameLabel]) labels[k] ??= job.metadata!.name!;
  for (const k of [legacyControllerUidLabel, controllerUidLabel]) labels[k] ??= job.metadata!.uid!;
  const selector = (spec.selector ??= {});
  const matchLabels = (selector.matchLabels ??= {});
  matchLabels[controllerUidLabel] ??= job.metadata!.uid!;
}

export function jobStrategy(info: ResourceInfo): Strategy {
  const base = genericStrategy(info);
  return {
    ...base,
    validate(obj) {
      if (obj?.spec && typeof obj.spec === 'object' && obj.spec.manualSelector !== true) {
        generateSelector(obj);
        // Upstream defaults the Job's labels from the template again on every read, so the generated ones show there.
        if (Object.keys(obj.metadata.labels ?? {}).length === 0) obj.metadata.labels = { ...obj.spec.template.metadata.labels };
      }
      return base.validate(obj);
    },
  };
}
