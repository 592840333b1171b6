/**
 * A bound pod's stored text made from the pod's stored text, instead of JSON.stringify of the whole pod.
 *
 * setPodNodeNameAndMetadata (pod-binding.ts) changes two members a store keeps of a pod that has no
 * annotations to take from the Binding: spec.nodeName, which it adds as spec's last member (the pod
 * had none: an assigned pod is refused), and status.conditions, replaced where it is or added as
 * status's last member (withMembers keeps the members' order). metadata.resourceVersion, which it
 * moves, is not stored. So the store's encode of the bound pod (Store.encode: JSON.stringify with
 * metadata's resourceVersion left out) is the current stored text with those two edits: a walk of the
 * text and two splices instead of the stringify of a 2-4 KB pod on the server's main thread for every
 * pod scheduled (about 28 µs in sched10's profile, bench/RESULTS.md). Any other shape (a pod with a
 * nodeName member, even empty, or without a status object; text the walk cannot read) gives
 * undefined, and the store encodes as usual.
 */
import type { PodCondition } from 'kubernetes-types/core/v1.js';
import { objectMembers } from './stored-json.js';

interface Splice { at: number; end: number; text: string }

/** The stored text of the pod stored as `stored` once bound to `node` with these status conditions, or undefined. */
export function boundPodStoredText(stored: string, node: string, conditions: readonly PodCondition[]): string | undefined {
  const [spec, status] = objectMembers(stored, 0, ['"spec"', '"status"'])?.values ?? [];
  if (!spec || !status) return undefined;
  const specMembers = objectMembers(stored, spec.start, ['"nodeName"']);
  const statusMembers = objectMembers(stored, status.start, ['"conditions"']);
  if (!specMembers || specMembers.values[0] || !statusMembers) return undefined;
  const list = JSON.stringify(conditions);
  const held = statusMembers.values[0];
  const splices: Splice[] = [
    appended(specMembers.close, specMembers.lastKey, `"nodeName":${JSON.stringify(node)}`),
    held ? { at: held.start, end: held.end, text: list } : appended(statusMembers.close, statusMembers.lastKey, `"conditions":${list}`),
  ];
  if (splices[0].at > splices[1].at) splices.reverse();
  const [a, b] = splices;
  return `${stored.slice(0, a.at)}${a.text}${stored.slice(a.end, b.at)}${b.text}${stored.slice(b.end)}`;
}

/** A member added last to the object closing at `close` (after a comma unless the object is empty). */
function appended(close: number, lastKey: number, member: string): Splice {
  return { at: close, end: close, text: lastKey < 0 ? member : `,${member}` };
}
