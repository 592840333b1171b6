/**
 * The store of a served version of a CRD whose conversion strategy is
 * Webhook (upstream's webhookConverter behind the custom resource codec):
 * objects are stored in the storage version; a read in another version
 * converts through the webhook, a write converts to the storage version
 * before it is stored. A list is one ConversionReview, a watch converts
 * event by event in order. Objects already in the wanted version are not
 * sent (the storage version's reads and writes call no webhook).
 */
import type { KeyValue } from '../../storage/backend.js';
import { apiVersionOf } from '../../api/resources.js';
import { StatusError, internalError } from '../../api/status.js';
import type { ListOptions, WatchEventOut, WatchOptions } from '../types.js';
import type { ListResult, StoreDeps, Watch } from '../store.js';
import { CustomResourceStore } from './store.js';
import type { CustomVersion } from './catalogue.js';
import type { Unstructured } from '../../api/unstructured.js';

/** Converts objects to `desiredAPIVersion` (one ConversionReview); throws a StatusError with upstream's words. */
export type ConvertObjects = (objects: Unstructured[], desiredAPIVersion: string) => Promise<Unstructured[]>;

export class WebhookConvertedStore extends CustomResourceStore {
  constructor(custom: CustomVersion, deps: StoreDeps, convert: ConvertObjects) {
    super(custom, deps);
    const storageAPIVersion = apiVersionOf({ group: custom.info.group, version: custom.storageVersion });
    this.asyncConversion = {
      toServed: (objs) => convert(objs, this.apiVersion),
      toStored: async (obj) => (await convert([obj], storageAPIVersion))[0],
    };
  }

  /** The stored form: the watch cache and the generic flow hold it; the served version is made on the way out. */
  override decode(kv: KeyValue): Unstructured { return this.decodeStored(kv); }

  override decodedJSON(kv: KeyValue): string { return JSON.stringify(this.decode(kv)); }

  override async list(namespace: string | undefined, opts: ListOptions = {}): Promise<ListResult> {
    const stored = await super.list(namespace, opts);
    return { ...stored, items: await this.asyncConversion!.toServed(stored.items) };
  }

  override async listJSON(namespace: string | undefined, opts: ListOptions = {}): Promise<ListResult<string>> {
    const served = await this.list(namespace, opts);
    return { ...served, items: served.items.map((o) => JSON.stringify(o)) };
  }

  /**
   * Events are converted one at a time and sent in their order; the initial
   * events are sent before the watch is returned (so the initial-events-end
   * bookmark follows them). A conversion that fails ends the watch with an
   * ERROR event carrying the failure. Progress is claimed only up to the
   * events sent while others wait for their conversion.
   */
  override async watch(namespace: string | undefined, opts: WatchOptions, send: (ev: WatchEventOut) => void, onEnd: (err?: Error) => void): Promise<Watch> {
    const conversion = this.asyncConversion!;
    let chain: Promise<void> = Promise.resolve();
    let pending = 0;
    let ended = false;
    let sentRevision = 0;
    // Set once super.watch returns; a conversion may fail before then (during the initial events).
    const inner: { w?: Watch } = {};
    const inOrder = (step: () => Promise<void> | void) => {
      pending++;
      chain = chain.then(step).finally(() => { pending--; });
    };
    const end = (err?: Error) => { if (!ended) { ended = true; inner.w?.close(); onEnd(err); } };
    const converting = (ev: WatchEventOut) => inOrder(async () => {
      if (ended) return;
      if (ev.type === 'BOOKMARK' || ev.type === 'ERROR') { send(ev); return; }
      try {
        const [object] = await conversion.toServed([ev.object]);
        if (ended) return;
        sentRevision = Number(object?.metadata?.resourceVersion ?? sentRevision);
        send({ type: ev.type, object });
      } catch (e) {
        send({ type: 'ERROR', object: e instanceof StatusError ? e.status : internalError((e as Error).message).status });
        end(e as Error);
      }
    });
    const w = await super.watch(namespace, opts, converting, (err) => inOrder(() => end(err)));
    inner.w = w;
    await chain;
    if (ended) w.close();
    return {
      close: () => { ended = true; w.close(); },
      startRevision: w.startRevision,
      progress: () => (pending > 0 ? sentRevision : Math.max(sentRevision, w.progress?.() ?? 0)),
    };
  }
}
