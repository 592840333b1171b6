/** Helpers for decoded JSON documents. */

export type JSONMap = Record<string, unknown>;

/**
 * Sets an own member, also when the key is `__proto__` (a plain assignment
 * would replace the object's prototype instead of adding the member).
 */
export function setMember(obj: JSONMap, key: string, value: unknown): void {
  if (key === '__proto__') Object.defineProperty(obj, key, { value, enumerable: true, writable: true, configurable: true });
  else obj[key] = value;
}
