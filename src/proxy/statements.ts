/**
 * The nft statements kube-proxy writes.
 *
 * nft 1.0.6 (Debian's) reads every table, chain, set, object and flowtable of
 * the network namespace from the kernel before it evaluates an `add rule`,
 * an `add element` or any `delete` (its cache; any form: by name or handle,
 * text or JSON), so those statements cost time that grows with the table
 * (a 3.5 MB dump at 10,000 Services), however small the transaction. A chain
 * declared with its rules in a block (`add chain T c { ... }`), a set or map
 * declared with its elements (`add map T m { type ... ; elements = { ... } ; }`)
 * and `flush chain` make it read only the list of tables, `flush map` the
 * list of sets too (docs/design-notes.md has the strace and the timings).
 * Full and partial syncs use only those; deletes wait for the cleanup, or
 * go in a separate transaction when an element's value changes.
 */
import { table } from './names.js';
import { baseMaps, isSet } from './base-table.js';

/** A chain and its rules in one block: a known chain is flushed first, in the same transaction. */
export function chainBlock(name: string, body: string, exists: boolean): string[] {
  const out = exists ? [`flush chain ${table} ${name}`] : [];
  if (!body) return exists ? out : [`add chain ${table} ${name}`];
  out.push(`add chain ${table} ${name} {`, ...body.split('\n').map((r) => `  ${r}`), '}');
  return out;
}

/** Affinity sets as upstream's: addresses that expire `timeout` seconds after their last packet. */
export const addSet = (name: string, timeout: number) => `add set ${table} ${name} { type ipv4_addr ; flags dynamic,timeout ; timeout ${timeout}s ; }`;

/** A map element as nft writes it: `key` or `key : value`. */
export const elementText = (key: string, value: string | undefined) => `${key}${value ? ` : ${value}` : ''}`;

/**
 * Elements added by declaring their map again with them: an `add` of an
 * existing map with the same type adds the elements and leaves the map, and
 * nft then needs no cache to know the key's type.
 */
export function elementsBlock(map: string, elements: string[]): string {
  const decl = baseMaps.find(([m]) => m === map);
  if (!decl) throw new Error(`unknown map ${map}`);
  const [, type, comment] = decl;
  return `add ${isSet(map) ? 'set' : 'map'} ${table} ${map} { ${type} comment "${comment}" ; elements = { ${elements.join(', ')} } ; }`;
}

export const addElement = (map: string, key: string, value: string | undefined) => `add element ${table} ${map} { ${elementText(key, value)} }`;
export const deleteElement = (map: string, key: string) => `delete element ${table} ${map} { ${key} }`;
