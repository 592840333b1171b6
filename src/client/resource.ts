/**
 * Per-resource operations (upstream's dynamic client): get/list/create/update/
 * patch/delete and watch streams for one group/version/resource.
 */
import type { RestClient, RequestOptions } from './rest.js';
import { ApiError } from './rest.js';
import { skipManagedFields } from './skip-managed-fields.js';

export interface GVR { group: string; version: string; resource: string; namespaced: boolean }

export interface ListOpts { labelSelector?: string; fieldSelector?: string; limit?: number; continue?: string; resourceVersion?: string }
export interface WatchOpts { labelSelector?: string; fieldSelector?: string; resourceVersion?: string; allowWatchBookmarks?: boolean; timeoutSeconds?: number }
export interface WatchEvent { type: 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK' | 'ERROR'; object: any }
export interface WatchHandle { close(): void; done: Promise<void> }
/**
 * How a watch stream is decoded: `skipManagedFields` leaves object.metadata.managedFields out of
 * every event (skip-managed-fields.ts), for a caller that would drop them (informers with
 * upstream's TransformStripManagedFields).
 */
export interface WatchDecodeOpts { skipManagedFields?: boolean }

export type PatchType = 'merge' | 'strategic' | 'json';
const patchContentType: Record<PatchType, string> = {
  merge: 'application/merge-patch+json', strategic: 'application/strategic-merge-patch+json', json: 'application/json-patch+json',
};

export class ResourceClient {
  constructor(private readonly rest: RestClient, readonly gvr: GVR) {}

  path(namespace?: string, name?: string, sub?: string): string {
    const base = this.gvr.group ? `/apis/${this.gvr.group}/${this.gvr.version}` : `/api/${this.gvr.version}`;
    const ns = this.gvr.namespaced && namespace ? `/namespaces/${namespace}` : '';
    return `${base}${ns}/${this.gvr.resource}${name ? `/${name}` : ''}${sub ? `/${sub}` : ''}`;
  }

  get(namespace: string | undefined, name: string): Promise<any> { return this.rest.request('GET', this.path(namespace, name)); }

  /** Lists everything, following continue tokens. */
  async list(namespace?: string, opts: ListOpts = {}): Promise<{ items: any[]; metadata: { resourceVersion: string } }> {
    const items: any[] = [];
    let cont: string | undefined;
    let rv = '';
    do {
      const page = await this.rest.request('GET', this.path(namespace), { query: { ...opts, limit: opts.limit ?? 500, continue: cont } });
      items.push(...page.items);
      rv = page.metadata.resourceVersion;
      cont = page.metadata.continue;
    } while (cont);
    return { items, metadata: { resourceVersion: rv } };
  }

  /**
   * `light` sends it through the client's undici pool (rest.ts requestLight): for a controller's
   * burst of creates (the DaemonSet controller's slow-start batches); `noResult` there leaves the
   * answer of a success undecoded (resolves to undefined).
   */
  create(namespace: string | undefined, obj: any, o: RequestOptions & { light?: boolean; noResult?: boolean } = {}): Promise<any> {
    const { light, noResult, ...rest } = o;
    if (light) return this.rest.requestLight('POST', this.path(namespace), { ...rest, body: obj, discardSuccessBody: noResult });
    return this.rest.request('POST', this.path(namespace), { ...rest, body: obj });
  }
  /**
   * `light` sends it through the client's undici pool (rest.ts requestLight): for a steady stream of small writes, the kubelet's Lease renewals and pod status.
   * `withoutManagedFields`: the answer is decoded without metadata.managedFields (RequestOptions.skipManagedFields).
   */
  update(obj: any, sub?: string, o: { light?: boolean; withoutManagedFields?: boolean } = {}): Promise<any> {
    const path = this.path(obj.metadata.namespace, obj.metadata.name, sub);
    const ro: RequestOptions = { body: obj, skipManagedFields: o.withoutManagedFields };
    return o.light ? this.rest.requestLight('PUT', path, ro) : this.rest.request('PUT', path, ro);
  }
  updateStatus(obj: any, o: { light?: boolean; withoutManagedFields?: boolean } = {}): Promise<any> { return this.update(obj, 'status', o); }
  patch(namespace: string | undefined, name: string, patch: unknown, type: PatchType = 'merge', sub?: string): Promise<any> {
    return this.rest.request('PATCH', this.path(namespace, name, sub), { body: patch, contentType: patchContentType[type] });
  }
  /**
   * Server-side apply as `fieldManager` (a JSON body is YAML). `force` takes the fields other
   * managers own, as a controller that is the fields' one writer does (client-go's Apply with
   * ApplyOptions.Force).
   */
  apply(namespace: string | undefined, name: string, obj: unknown, fieldManager: string, o: { force?: boolean; sub?: string } = {}): Promise<any> {
    return this.rest.request('PATCH', this.path(namespace, name, o.sub), {
      body: obj, contentType: 'application/apply-patch+yaml', query: { fieldManager, force: o.force ? 'true' : undefined },
    });
  }
  delete(namespace: string | undefined, name: string, opts: Record<string, unknown> = {}): Promise<any> {
    return this.rest.request('DELETE', this.path(namespace, name), { body: { kind: 'DeleteOptions', apiVersion: 'v1', ...opts } });
  }
  /**
   * POST to a subresource (pods/binding, pods/eviction); `light` sends it
   * through the client's undici pool (rest.ts requestLight), `noResult`
   * there leaves the answer of a success undecoded (resolves to undefined),
   * and `pipelined` lets it share a connection with others (light-pool.ts).
   */
  createSub(namespace: string | undefined, name: string, sub: string, body: unknown, o: { light?: boolean; noResult?: boolean; pipelined?: boolean } = {}): Promise<any> {
    const path = this.path(namespace, name, sub);
    return o.light ? this.rest.requestLight('POST', path, { body, discardSuccessBody: o.noResult, pipelined: o.pipelined }) : this.rest.request('POST', path, { body });
  }

  /** Opens a watch stream; events are delivered in order; `done` resolves when the stream ends. */
  async watch(namespace: string | undefined, opts: WatchOpts, onEvent: (e: WatchEvent) => void, decode: WatchDecodeOpts = {}): Promise<WatchHandle> {
    const res = await this.rest.raw('GET', this.path(namespace), { query: { ...opts, watch: 'true' } });
    if (res.statusCode !== 200) {
      const chunks: Buffer[] = [];
      for await (const c of res) chunks.push(c as Buffer);
      const text = Buffer.concat(chunks).toString();
      let st: any;
      try { st = JSON.parse(text); } catch { /* not a Status */ }
      throw new ApiError(res.statusCode ?? 0, st?.reason ?? '', st?.message ?? text, st);
    }
    const parse = decode.skipManagedFields ? parseWithoutManagedFields : JSON.parse;
    const onLine = (line: string) => { if (line.charCodeAt(0) === 123 /* { */ || line.trim()) onEvent(parse(line)); };
    // Lines are cut from the bytes and each decoded once: decoding every chunk to a string first (setEncoding)
    // and appending it to the unfinished line copied each event's text twice more (in the scheduler's process,
    // 5 KB of garbage a bound pod). A newline byte never occurs inside a UTF-8 sequence, so cutting bytes at it is exact.
    const pending: Buffer[] = []; // the unfinished last line, as the chunks that hold it
    const done = new Promise<void>((resolve) => {
      res.on('data', (chunk: Buffer) => {
        let nl = chunk.indexOf(10);
        if (nl < 0) { pending.push(chunk); return; }
        let start = 0;
        if (pending.length > 0) {
          pending.push(chunk.subarray(0, nl));
          const line = Buffer.concat(pending);
          pending.length = 0;
          start = nl + 1;
          nl = chunk.indexOf(10, start);
          onLine(line.toString('utf8'));
        }
        for (; nl >= 0; nl = chunk.indexOf(10, start)) {
          const line = chunk.toString('utf8', start, nl);
          start = nl + 1;
          onLine(line);
        }
        if (start < chunk.length) pending.push(chunk.subarray(start));
      });
      res.on('end', resolve);
      res.on('close', resolve);
      res.on('error', () => resolve());
    });
    return { close: () => res.destroy(), done };
  }
}

/** One event without object.metadata.managedFields; a cut that would not parse (never seen) falls back to the whole line. */
function parseWithoutManagedFields(line: string): WatchEvent {
  const cut = skipManagedFields(line);
  if (cut === line) return JSON.parse(line);
  try {
    return JSON.parse(cut);
  } catch {
    return JSON.parse(line);
  }
}
