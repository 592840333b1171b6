/**
 * Appends a list to another in place. `out.push(...list)` passes every element
 * as an argument, on the stack, and a list a body controls (one error per
 * container of a million-container Pod) overflows it: "Maximum call stack
 * size exceeded". A loop costs the same and has no limit.
 */
export function appendAll<T>(out: T[], list: readonly T[]): T[] {
  for (let i = 0; i < list.length; i++) out.push(list[i]);
  return out;
}
