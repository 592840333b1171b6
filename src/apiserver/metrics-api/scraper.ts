/**
 * Reads every node's kubelet summary (GET /stats/summary), as metrics-server's
 * scraper does, through the API server's kubelet client (its
 * apiserver-kubelet-client certificate):
 *
 *  1. One scrape serves every request for ttlMs (metrics-server scrapes every
 *     15 s); requests during a scrape share it.
 *  2. Nodes are read concurrently, each bounded by timeoutMs; a node that
 *     cannot be reached, answers other than 200 or sends no JSON is left out
 *     (and logged), so its metrics are "not available" rather than an error
 *     for the whole list.
 */
import type { IncomingMessage } from 'node:http';
import type { Node } from 'kubernetes-types/core/v1.js';
import type { Summary } from '../../api/stats-summary.js';
import type { Logger } from '../../util/log.js';
import type { KubeletClient } from '../kubelet-client/client.js';

export interface SummaryScraperOptions {
  kubelet: KubeletClient;
  nodes: () => Promise<Node[]>;
  logger: Logger;
  now?: () => number;
  ttlMs?: number;
  timeoutMs?: number;
}

async function readAll(res: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of res) chunks.push(c as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

export class SummaryScraper {
  private last?: { atMs: number; result: Promise<Map<string, Summary>> };

  constructor(private readonly opts: SummaryScraperOptions) {}

  /** Node name → its kubelet's latest summary. */
  summaries(): Promise<Map<string, Summary>> {
    const now = (this.opts.now ?? Date.now)();
    if (this.last && now - this.last.atMs < (this.opts.ttlMs ?? 10_000)) return this.last.result;
    const result = this.scrape();
    this.last = { atMs: now, result };
    result.catch(() => { if (this.last?.result === result) this.last = undefined; });
    return result;
  }

  private async scrape(): Promise<Map<string, Summary>> {
    const nodes = await this.opts.nodes();
    const out = new Map<string, Summary>();
    await Promise.all(nodes.map(async (n) => {
      const name = n.metadata!.name!;
      const s = await this.scrapeNode(name).catch((e) => { this.opts.logger.debug('unable to read the kubelet summary', { node: name, err: (e as Error).message }); });
      if (s) out.set(name, s);
    }));
    return out;
  }

  private async scrapeNode(name: string): Promise<Summary | undefined> {
    const endpoint = await this.opts.kubelet.endpoint(name);
    const res = await this.opts.kubelet.request({ endpoint, method: 'GET', path: '/stats/summary', signal: AbortSignal.timeout(this.opts.timeoutMs ?? 10_000) });
    const body = await readAll(res);
    if (res.statusCode !== 200) return undefined;
    const s = JSON.parse(body) as Summary;
    return s?.node && Array.isArray(s.pods) ? s : undefined;
  }
}
