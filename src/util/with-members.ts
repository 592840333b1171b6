/**
 * `{ ...base, ...members }` (a shallow copy of `base` with `members` set on it, in that order),
 * built so that the copies share one hidden class.
 *
 * Why: on Node 20 (V8 11.3) a copy made by a spread is not in V8's map transition tree, so a
 * member added to it, in the same literal (`{ ...base, name: v }`) or afterwards, gives the copy a
 * new map (hidden class) on every call: about 1 µs of CPU and one old-space map per member added
 * (the kubelet's containerStatus, eight members after a spread: 9.5 µs a call), and every object
 * so made is a new shape to the inline caches of whatever reads it. Members that `base` already
 * has are only overwritten and keep its map; a spread last in a literal (`{ a, ...rest }`) is
 * fine too. Object.assign onto a fresh `{}` follows the shared transitions instead.
 * bench/spread-maps.ts measures both forms.
 */
export function withMembers<T extends object, U extends object>(base: T | undefined, members: U): Omit<T, keyof U> & U {
  return Object.assign({}, base, members) as Omit<T, keyof U> & U;
}
