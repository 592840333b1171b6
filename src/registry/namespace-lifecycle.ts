/**
 * Namespace deletion (upstream's namespace controller, kept beside the store
 * because it must reach every namespaced resource): a Terminating namespace
 * has its content deleted, and once nothing is left its "kubernetes"
 * finalizer is removed so the namespace itself goes.
 */
import type { Registry } from './registry.js';
import type { Logger } from '../util/log.js';
import { statusCode } from './status-code.js';

const recheckMs = 1000;

export class NamespaceLifecycle {
  private readonly pending = new Set<string>();
  private readonly running = new Set<string>();
  private timer?: NodeJS.Timeout;
  private stopWatch?: () => void;
  private closed = false;

  constructor(private readonly registry: Registry, private readonly logger: Logger) {}

  async start(): Promise<void> {
    const w = await this.registry.namespaces.watch(undefined, {}, (ev) => {
      if (ev.type !== 'DELETED' && ev.object.metadata.deletionTimestamp) this.enqueue(ev.object.metadata.name);
    }, () => {});
    this.stopWatch = () => w.close();
  }

  private enqueue(ns: string): void {
    if (this.closed) return;
    this.pending.add(ns);
    if (!this.running.has(ns)) void this.run(ns);
  }

  private async run(ns: string): Promise<void> {
    this.running.add(ns);
    try {
      while (this.pending.delete(ns)) {
        const empty = await this.deleteContent(ns);
        if (empty) await this.finalize(ns);
        else this.schedule(ns);
      }
    } catch (e) {
      this.logger.warn('namespace cleanup failed, retrying', { namespace: ns, err: e });
      this.schedule(ns);
    } finally {
      this.running.delete(ns);
    }
  }

  private schedule(ns: string): void {
    if (this.closed) return;
    this.timer = setTimeout(() => this.enqueue(ns), recheckMs);
    this.timer.unref();
  }

  /** Deletes everything in the namespace; true when nothing is left. */
  private async deleteContent(ns: string): Promise<boolean> {
    let empty = true;
    for (const store of this.registry.all()) {
      if (!store.info.namespaced) continue;
      const { items } = await store.list(ns);
      for (const item of items) {
        empty = false;
        if (item.metadata.deletionTimestamp) continue;
        try {
          await store.delete(ns, item.metadata.name, { propagationPolicy: 'Background' });
        } catch (e) {
          if (statusCode(e) !== 404 && statusCode(e) !== 409) throw e;
        }
      }
    }
    return empty;
  }

  private async finalize(ns: string): Promise<void> {
    try {
      await this.registry.namespaces.guaranteedUpdate(undefined, ns, (cur) => {
        cur.spec = { ...(cur.spec ?? {}), finalizers: (cur.spec?.finalizers ?? []).filter((f: string) => f !== 'kubernetes') };
        return cur;
      });
    } catch (e) {
      if (statusCode(e) !== 404) throw e;
    }
  }

  close(): void {
    this.closed = true;
    this.stopWatch?.();
    if (this.timer) clearTimeout(this.timer);
  }
}
