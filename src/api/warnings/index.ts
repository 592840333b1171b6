/**
 * A write's warnings by kind (upstream's strategies' WarningsOnCreate and
 * WarningsOnUpdate), keyed like resources.ts's `kindKey` ('v1/Pod',
 * 'apps/v1/Deployment'). Valid objects only: the store asks after
 * validation passed, and only for writes of the main resource (a status,
 * binding or ephemeral containers write has none, as upstream's
 * subresource strategies).
 */
import type { PodTemplateSpec } from 'kubernetes-types/core/v1.js';
import type { ObjectMeta } from 'kubernetes-types/meta/v1.js';
import { podSpecWarnings } from './pod.js';

type Obj = { metadata?: ObjectMeta; spec?: unknown; template?: PodTemplateSpec };

/** Where a kind keeps its pod template, and the path upstream names it by. */
const templates: Readonly<Record<string, { at: (o: Obj) => PodTemplateSpec | undefined; path: string }>> = {
  'apps/v1/Deployment': { at: (o) => (o.spec as { template?: PodTemplateSpec })?.template, path: 'spec.template.' },
  'apps/v1/ReplicaSet': { at: (o) => (o.spec as { template?: PodTemplateSpec })?.template, path: 'spec.template.' },
  'apps/v1/DaemonSet': { at: (o) => (o.spec as { template?: PodTemplateSpec })?.template, path: 'spec.template.' },
  'apps/v1/StatefulSet': { at: (o) => (o.spec as { template?: PodTemplateSpec })?.template, path: 'spec.template.' },
  'v1/ReplicationController': { at: (o) => (o.spec as { template?: PodTemplateSpec })?.template, path: 'spec.template.' },
  'batch/v1/Job': { at: (o) => (o.spec as { template?: PodTemplateSpec })?.template, path: 'spec.template.' },
  'batch/v1/CronJob': { at: (o) => (o.spec as { jobTemplate?: { spec?: { template?: PodTemplateSpec } } })?.jobTemplate?.spec?.template, path: 'spec.jobTemplate.spec.template.' },
  'v1/PodTemplate': { at: (o) => o.template, path: 'template.' },
};

export function warningsOnCreate(key: string, obj: Obj): string[] | undefined {
  if (key === 'v1/Pod') return podSpecWarnings('', obj.spec as never, obj.metadata);
  const t = templates[key];
  if (!t) return undefined;
  const template = t.at(obj);
  return template ? podSpecWarnings(t.path, template.spec, template.metadata) : undefined;
}

/**
 * A pod is warned on every update of its own; a workload only when its spec changed (its
 * generation moved), and a PodTemplate on every update, as upstream.
 */
export function warningsOnUpdate(key: string, obj: Obj, old: Obj): string[] | undefined {
  if (key !== 'v1/Pod' && key !== 'v1/PodTemplate' && obj.metadata?.generation === old.metadata?.generation) return undefined;
  return warningsOnCreate(key, obj);
}
