/**
 * The scheduler's assumed claims and volumes (upstream's AssumeCache,
 * `pkg/scheduler/util/assumecache`): what Reserve decided for one pod (a
 * claim's selected node, a volume's claimRef) shows in the very next
 * scheduling cycle, before PreBind's writes come back through the informer.
 * Without it, the second pod of a Deployment sharing a WaitForFirstConsumer
 * claim was placed while the claim still looked free, on another node than
 * the one its volume was provisioned on.
 *
 * An assumed object stands while the informer's copy is still the one it was
 * assumed from (same resourceVersion); once the informer's moves on (the
 * write arrived, or another one) or the object is gone, the informer's wins.
 * `restore` drops an assumption at once (Unreserve).
 */
import type { ObjectMeta } from 'kubernetes-types/meta/v1.js';
import { allObjects, type ObjectIndex } from '../../api/volumebinding.js';

interface Assumed<T> { readonly obj: T; readonly from: string | undefined }

export class AssumeCache<T extends { metadata?: ObjectMeta }> implements ObjectIndex<T> {
  private readonly assumed = new Map<string, Assumed<T>>();

  constructor(private readonly source: ObjectIndex<T>, private readonly keyOf: (obj: T) => string) {}

  get(key: string): T | undefined {
    const live = this.source.get(key);
    const a = this.assumed.get(key);
    if (!a) return live;
    if (live && live.metadata?.resourceVersion === a.from) return a.obj;
    this.assumed.delete(key);
    return live;
  }

  list(): T[] {
    const out = [...allObjects(this.source)];
    if (this.assumed.size === 0) return out;
    return out.map((o) => this.get(this.keyOf(o)) ?? o);
  }

  /** Assume `obj`, a changed copy of the informer's object (same resourceVersion). */
  assume(obj: T): void {
    this.assumed.set(this.keyOf(obj), { obj, from: obj.metadata?.resourceVersion });
  }

  restore(key: string): void { this.assumed.delete(key); }
}
