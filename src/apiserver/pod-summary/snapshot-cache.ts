/**
 * The summary's answers, made once per change: the text (and its gzip, made
 * when a caller first asks for it) of the last summary per namespace, kept
 * while the summary's generation is unchanged. A summary depends only on the
 * namespace asked for; who asks is authorized before it is read, per request.
 * At 5,000 nodes the text is ~880 KiB and its gzip tens of milliseconds of
 * CPU: several pages loading the map at once, or one reloading, share them.
 */
import { gzipBody } from '../../util/http-gzip.js';

interface Generational { readonly generation: number }

export interface CachedSnapshot { readonly text: string; gzip(): Promise<Buffer> }

/** Namespaces kept at most: a namespace's entry is small once made, but the set of names is the callers'. */
const maxEntries = 16;

export class SnapshotCache {
  private readonly entries = new Map<string, CachedSnapshot & { generation: number }>();

  constructor(private readonly source: Generational, private readonly make: (namespace: string | undefined) => string) {}

  get(namespace: string | undefined): CachedSnapshot {
    const key = namespace ?? '';
    const generation = this.source.generation;
    const hit = this.entries.get(key);
    if (hit?.generation === generation) return hit;
    const text = this.make(namespace);
    let gz: Promise<Buffer> | undefined;
    const entry = { generation, text, gzip: () => gz ??= gzipBody(text) };
    this.entries.delete(key);
    if (this.entries.size >= maxEntries) this.entries.delete(this.entries.keys().next().value!);
    this.entries.set(key, entry);
    return entry;
  }
}
