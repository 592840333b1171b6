/**
 * The JSON text of a cached object, kept beside it while it is recent: a write's text (seeded
 * from the stored value) or a rendering asked for with renderedJSON, until the cache's ring
 * drops the object's event or the object's next version replaces it (forgetRenderedJSON). While it is recent its watchers, the list
 * pages and the next update's private copy reuse the text instead of calling JSON.stringify
 * again; after that, only the decoded object stays. Keeping the text of every cached object
 * for as long as it is current doubled the cache (bench/memory.ts: a running pod is about
 * 8.6 KB decoded and 4.6 KB of text); upstream's cacher keeps objects only and serializes
 * each list, sharing a serialization among the watchers of one event (cachingObject).
 * Cached objects are never mutated, so a kept text cannot go stale; a WeakMap lets both go
 * when the cache replaces the object.
 */
const rendered = new WeakMap<object, string>();

/** The object's text, rendered once and kept (a write's answer, a live event's watchers). */
export function renderedJSON(object: object): string {
  let json = rendered.get(object);
  if (json === undefined) {
    json = JSON.stringify(object);
    rendered.set(object, json);
  }
  return json;
}

/** The object's kept text, or a rendering that is not kept (list pages, watch replays, copies). */
export function objectJSON(object: object): string {
  return rendered.get(object) ?? JSON.stringify(object);
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

/** The object is no longer recent (its event left the cache's ring): its text goes, the object stays. */
export function forgetRenderedJSON(object: object): void {
  rendered.delete(object);
}
