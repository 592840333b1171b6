/**
 * Taints: identity, printing, and the `kubectl taint` spec syntax
 * (upstream: `k8s.io/api/core/v1/taint.go`, kubectl `pkg/cmd/taint/utils.go`).
 *
 * A taint spec is one of
 *   `key=value:Effect`  add (value must be a valid label value)
 *   `key:Effect`        add with an empty value
 *   `key-`              remove every taint with the key
 *   `key:Effect-`       remove the taint with that key and effect
 *   `key=value:Effect-` likewise (the value is ignored)
 * Keys are qualified names; effects NoSchedule, PreferNoSchedule, NoExecute.
 * Taints are identified by key and effect: adding one that exists replaces it.
 * Results are values: `{ error }` carries kubectl's message.
 */
import type { Taint } from 'kubernetes-types/core/v1.js';
import { isQualifiedName, isValidLabelValue } from './names.js';

export type { Taint };

export const taintEffects = ['NoSchedule', 'PreferNoSchedule', 'NoExecute'] as const;
export type TaintEffect = (typeof taintEffects)[number];

/** Taint.MatchTaint: the same key and effect. */
export function matchTaint(a: Taint, b: Taint): boolean {
  return a.key === b.key && (a.effect ?? '') === (b.effect ?? '');
}

/** Taint.ToString(): `key=value:effect`, `key=value:`, `key:effect` or `key`. */
export function taintToString(t: Taint): string {
  const value = t.value ?? '';
  const effect = t.effect ?? '';
  if (effect === '') return value === '' ? t.key : `${t.key}=${value}:`;
  return value === '' ? `${t.key}:${effect}` : `${t.key}=${value}:${effect}`;
}

/** True when a taint with the same key and effect is in the list. */
export function taintExists(taints: readonly Taint[] | undefined, taint: Taint): boolean {
  return (taints ?? []).some((t) => matchTaint(t, taint));
}

/** The taints without those having the key, and whether any was removed. */
export function deleteTaintsByKey(taints: readonly Taint[] | undefined, key: string): { taints: Taint[]; deleted: boolean } {
  const kept = (taints ?? []).filter((t) => t.key !== key);
  return { taints: kept, deleted: kept.length !== (taints ?? []).length };
}

/** The taints without those matching `taint` by key and effect, and whether any was removed. */
export function deleteTaint(taints: readonly Taint[] | undefined, taint: Taint): { taints: Taint[]; deleted: boolean } {
  const kept = (taints ?? []).filter((t) => !matchTaint(taint, t));
  return { taints: kept, deleted: kept.length !== (taints ?? []).length };
}

export interface TaintSpec {
  taint: Taint;
  /** A trailing '-': remove by key (effect empty) or by key and effect. */
  remove: boolean;
}

export type Failure = { error: string };

const isTaintEffect = (e: string): e is TaintEffect => (taintEffects as readonly string[]).includes(e);

/** kubectl's parseTaint: `key`, `key:effect` or `key=value:effect`, without the trailing '-'. */
export function parseTaint(st: string): Taint | Failure {
  const parts = st.split(':');
  let key: string;
  let value = '';
  let effect = '';
  if (parts.length === 1) {
    key = parts[0];
  } else if (parts.length === 2) {
    effect = parts[1];
    if (!isTaintEffect(effect)) return { error: `invalid taint effect: ${effect}, unsupported taint effect` };
    const kv = parts[0].split('=');
    if (kv.length > 2) return { error: `invalid taint spec: ${st}` };
    key = kv[0];
    if (kv.length === 2) {
      value = kv[1];
      const errs = isValidLabelValue(value);
      if (errs.length > 0) return { error: `invalid taint spec: ${st}, ${errs.join('; ')}` };
    }
  } else {
    return { error: `invalid taint spec: ${st}` };
  }
  const errs = isQualifiedName(key);
  if (errs.length > 0) return { error: `invalid taint spec: ${st}, ${errs.join('; ')}` };
  const taint: Taint = { key, effect };
  if (value !== '') taint.value = value;
  return taint;
}

/** One `kubectl taint` argument: a taint to add (effect required) or to remove. */
export function parseTaintSpec(spec: string): TaintSpec | Failure {
  if (spec.endsWith('-')) {
    const parsed = parseTaint(spec.slice(0, -1));
    if ('error' in parsed) return parsed;
    const taint: Taint = { key: parsed.key, effect: parsed.effect };
    return { taint, remove: true };
  }
  const parsed = parseTaint(spec);
  if ('error' in parsed) return parsed;
  if (!parsed.effect) return { error: `invalid taint spec: ${spec}` };
  return { taint: parsed, remove: false };
}

/** Go's `%v` of a corev1.Taint: `{key value effect <nil>}`. */
const goTaint = (t: Taint) => `{${t.key} ${t.value ?? ''} ${t.effect ?? ''} ${t.timeAdded ?? '<nil>'}}`;

/** kubectl's parseTaints: the taints to add and to remove; a key and effect may be added once. */
export function parseTaints(specs: readonly string[]): { add: Taint[]; remove: Taint[] } | Failure {
  const add: Taint[] = [];
  const remove: Taint[] = [];
  for (const spec of specs) {
    const parsed = parseTaintSpec(spec);
    if ('error' in parsed) return parsed;
    if (parsed.remove) {
      remove.push(parsed.taint);
      continue;
    }
    if (taintExists(add, parsed.taint)) return { error: `duplicated taints with the same key and effect: ${goTaint(parsed.taint)}` };
    add.push(parsed.taint);
  }
  return { add, remove };
}

/** What `kubectl taint` reports: `node/n modified|tainted|untainted`. */
export type TaintOperation = 'modified' | 'tainted' | 'untainted';

/**
 * kubectl's reorganizeTaints: the node's new taint list (the added taints
 * first, then old taints not replaced, minus the removed ones), the word
 * kubectl prints, and a `taint "k:E" not found` error per removal that
 * matched nothing.
 */
export function reorganizeTaints(
  nodeTaints: readonly Taint[] | undefined, overwrite: boolean, add: readonly Taint[], remove: readonly Taint[],
): { operation: TaintOperation; taints: Taint[]; errors: string[] } {
  let taints = [...add];
  for (const old of nodeTaints ?? []) {
    if (!taints.some((t) => matchTaint(t, old))) taints.push(old);
  }
  const added = (nodeTaints ?? []).length !== taints.length;
  const errors: string[] = [];
  let deleted = false;
  for (const r of remove) {
    const result = r.effect ? deleteTaint(taints, r) : deleteTaintsByKey(taints, r.key);
    taints = result.taints;
    deleted = result.deleted;
    if (!deleted) errors.push(`taint ${JSON.stringify(taintToString(r))} not found`);
  }
  const operation: TaintOperation = (added && deleted) || overwrite ? 'modified' : added ? 'tainted' : 'untainted';
  return { operation, taints, errors };
}

/** kubectl's checkIfTaintsAlreadyExists: the keys of `taints` the node already has by key and effect, comma-joined. */
export function checkIfTaintsAlreadyExist(nodeTaints: readonly Taint[] | undefined, taints: readonly Taint[]): string {
  const keys: string[] = [];
  for (const t of taints) {
    for (const old of nodeTaints ?? []) if (matchTaint(t, old)) keys.push(t.key);
  }
  return keys.join(',');
}
