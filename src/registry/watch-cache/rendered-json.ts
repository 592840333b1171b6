/**
 * The JSON text of a cached object, rendered once and kept beside it for as long as the
 * object is current: every list page and every JSON watcher that sends it reuses the text
 * instead of calling JSON.stringify again. Cached objects are never mutated, so the text
 * cannot go stale; a WeakMap lets both go when the cache replaces the object.
 */
const rendered = new WeakMap<object, string>();

export function renderedJSON(object: object): string {
  let json = rendered.get(object);
  if (json === undefined) {
    json = JSON.stringify(object);
    rendered.set(object, json);
  }
  return json;
}

/**
 * Records `json` as the text of `object`, which the caller has just written as exactly that
 * (JSON.stringify(object) === json): the store's answer to a write, spliced from the stored value.
 */
export function seedRenderedJSON(object: object, json: string): void {
  if (!rendered.has(object)) rendered.set(object, json);
}

/** Whether `object`'s text is known already (rendered, or seeded by its write's event). */
export function hasRenderedJSON(object: object): boolean {
  return rendered.has(object);
}
