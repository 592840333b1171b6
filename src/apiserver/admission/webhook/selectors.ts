/**
 * namespaceSelector and objectSelector, as upstream's webhook predicates
 * (namespace.Matcher.MatchNamespaceSelector, object.Matcher.MatchObjectSelector):
 *  - namespaceSelector: cluster-scoped requests (other than namespaces) always
 *    match; an empty selector matches all; a Namespace is judged by its own labels
 *    (the old object's on DELETE); others by their namespace's labels, read from
 *    the watch-fed cache;
 *  - objectSelector: an empty selector matches all; otherwise the new or the old
 *    object's labels must match (either: a label removed by an update still counts).
 */
import type { LabelSelector } from 'kubernetes-types/meta/v1.js';
import type { Namespace } from 'kubernetes-types/core/v1.js';
import { labelSelectorAsSelector, type Selector } from '../../../api/validation/labels.js';
import type { AdmissionAttributes } from './attributes.js';

/** Parsed selectors, by the (immutable, cached) selector object. */
const parsed = new WeakMap<object, Selector | undefined>();

function selectorOf(sel: LabelSelector | undefined): Selector | undefined {
  if (!sel) return { empty: true, matches: () => true };
  if (!parsed.has(sel)) parsed.set(sel, labelSelectorAsSelector(sel));
  return parsed.get(sel);
}

const labelsOf = (obj: any): Record<string, string> => obj?.metadata?.labels ?? {};

export type NamespaceGetter = (name: string) => Namespace | undefined;

/** True when the request's namespace matches; an unparsable selector matches nothing. */
export function namespaceSelectorMatches(sel: LabelSelector | undefined, a: AdmissionAttributes, getNamespace: NamespaceGetter): boolean {
  const isNamespace = a.info.group === '' && a.info.plural === 'namespaces';
  if (!isNamespace && !a.info.namespaced) return true;
  const s = selectorOf(sel);
  if (!s) return false;
  if (s.empty) return true;
  if (isNamespace) return s.matches(labelsOf(a.object ?? a.oldObject));
  return s.matches(labelsOf(getNamespace(a.namespace)));
}

export function objectSelectorMatches(sel: LabelSelector | undefined, a: AdmissionAttributes): boolean {
  const s = selectorOf(sel);
  if (!s) return false;
  if (s.empty) return true;
  return (a.object !== undefined && s.matches(labelsOf(a.object))) || (a.oldObject !== undefined && s.matches(labelsOf(a.oldObject)));
}
