/**
 * The webhooks to consider, from the watch-fed caches of the configurations
 * (upstream's configuration managers over informers): configurations ordered
 * by name, webhooks in their order within each, as upstream's
 * mutating/validating webhook sources return them. Recomputed only when the
 * cache's objects changed, so a request reads one array (an empty one when
 * no webhook is installed).
 */
import type { MutatingWebhook, MutatingWebhookConfiguration, ValidatingWebhook, ValidatingWebhookConfiguration } from 'kubernetes-types/admissionregistration/v1.js';
import type { Lister } from '../../../registry/lister.js';

export interface Accessor<W> {
  /** `<configuration>/<index>`: which webhook this is, across reinvocations. */
  uid: string;
  configurationName: string;
  webhook: W;
}

type Configuration<W> = { metadata?: { name?: string }; webhooks?: W[] };

export class WebhookSource<W> {
  private seen: readonly object[] = [];
  private hooks: Accessor<W>[] = [];

  constructor(private readonly lister: Pick<Lister<Configuration<W>>, 'list'>) {}

  webhooks(): readonly Accessor<W>[] {
    const items = this.lister.list();
    if (items.length === 0) return (this.hooks = [], this.seen = [], this.hooks);
    if (items.length === this.seen.length && items.every((o, i) => o === this.seen[i])) return this.hooks;
    this.seen = items;
    const sorted = [...items].sort((a, b) => byName(a.metadata?.name ?? '', b.metadata?.name ?? ''));
    this.hooks = sorted.flatMap((c) => (c.webhooks ?? []).map((webhook, i) => ({ uid: `${c.metadata?.name}/${i}`, configurationName: c.metadata?.name ?? '', webhook })));
    return this.hooks;
  }
}

export type MutatingSource = WebhookSource<MutatingWebhook>;
export type ValidatingSource = WebhookSource<ValidatingWebhook>;
export type { MutatingWebhookConfiguration, ValidatingWebhookConfiguration };

/** Go's string order (bytes), as sort by name upstream. */
const byName = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
