/**
 * Keeps each FlowSchema's Dangling condition (api/flowcontrol/dangling.ts),
 * as kube-apiserver's APF configuration consumer does, from watches of the
 * FlowSchemas and priority levels. A write happens only when a condition
 * changes: once per schema on a fresh store, then when a level a schema
 * names is created or deleted. start() writes what the store lacks before it
 * returns, all at once (one group commit), so the server is ready with the
 * conditions written and no status write trails readiness into the requests
 * that follow (the per-request storage counts are asserted by tests). k8ts'
 * fairness does not otherwise read these objects (docs/api.md).
 */
import type { FlowSchema } from 'kubernetes-types/flowcontrol/v1.js';
import { danglingCondition, danglingUpToDate } from '../api/flowcontrol/dangling.js';
import type { Logger } from '../util/log.js';
import type { Registry } from './registry.js';
import type { Store, Watch } from './store.js';
import { statusCode } from './status-code.js';

const group = 'flowcontrol.apiserver.k8s.io';
const manager = { manager: 'api-priority-and-fairness-config-consumer-v1', subresource: 'status' };

export class FlowSchemaStatus {
  private readonly schemas: Store;
  private readonly levels: Store;
  private readonly levelNames = new Set<string>();
  private readonly known = new Map<string, FlowSchema>();
  private readonly pending = new Set<string>();
  private readonly watches: Watch[] = [];
  private draining = false;
  private closed = false;

  constructor(registry: Registry, private readonly logger: Logger, private readonly now: () => Date) {
    this.schemas = registry.store(group, 'v1', 'flowschemas')!;
    this.levels = registry.store(group, 'v1', 'prioritylevelconfigurations')!;
  }

  /** Writes the conditions the stored schemas lack, then follows changes. */
  async start(): Promise<void> {
    // Consistent lists (the cache caught up with the bootstrap's creates): a schema the cache had
    // not seen yet would have its condition written by the watch below, after readiness.
    for (const l of (await this.levels.list(undefined, {})).items) this.levelNames.add(l.metadata.name);
    const schemas: FlowSchema[] = (await this.schemas.list(undefined, {})).items;
    await Promise.all(schemas.map((fs) => this.write(fs)));
    this.watches.push(await this.levels.watch(undefined, {}, (ev) => {
      const name: string = ev.object.metadata.name;
      if (ev.type === 'DELETED') this.levelNames.delete(name); else this.levelNames.add(name);
      for (const fs of this.known.values()) if (fs.spec?.priorityLevelConfiguration?.name === name) this.enqueue(fs.metadata!.name!);
    }, () => {}));
    this.watches.push(await this.schemas.watch(undefined, {}, (ev) => {
      const fs: FlowSchema = ev.object;
      if (ev.type === 'DELETED') { this.known.delete(fs.metadata!.name!); return; }
      this.known.set(fs.metadata!.name!, fs);
      this.enqueue(fs.metadata!.name!);
    }, () => {}));
  }

  close(): void {
    this.closed = true;
    for (const w of this.watches) w.close();
  }

  private enqueue(name: string): void {
    if (this.closed) return;
    this.pending.add(name);
    if (!this.draining) void this.drain();
  }

  /** One schema at a time, in arrival order; a failed write is logged and redone at the schema's next change. */
  private async drain(): Promise<void> {
    this.draining = true;
    try {
      for (const name of this.pending) {
        this.pending.delete(name);
        const fs = this.known.get(name);
        if (fs && !this.closed) await this.write(fs);
      }
    } finally {
      this.draining = false;
    }
  }

  /** Writes the schema's Dangling condition if it is not the stored one; a failure is logged. */
  private async write(fs: FlowSchema): Promise<void> {
    const name = fs.metadata!.name!;
    const wanted = danglingCondition(fs, this.levelNames.has(fs.spec?.priorityLevelConfiguration?.name ?? ''), this.now().toISOString().replace(/\.\d+Z$/, 'Z'));
    if (danglingUpToDate(fs, wanted)) return;
    await this.schemas.guaranteedUpdate(undefined, name, (cur: FlowSchema) => {
      const others = (cur.status?.conditions ?? []).filter((c) => c.type !== 'Dangling');
      return { ...cur, status: { ...cur.status, conditions: [...others, wanted] } };
    }, { subresource: 'status', fieldManager: manager }).catch((e) => {
      if (statusCode(e) !== 404) this.logger.warn('cannot write the FlowSchema\'s Dangling condition', { flowSchema: name, err: e });
    });
  }
}
