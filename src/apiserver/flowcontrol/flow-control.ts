/**
 * API Priority and Fairness as the server applies it to a request: the
 * FlowSchema it matches (classify.ts), upstream's response headers naming
 * that schema and its priority level by UID, and the seat of that level a
 * mutating request waits for (seats.ts, levels.ts).
 *
 * The schemas and levels are kube-apiserver's defaults (api/flowcontrol/bootstrap.ts),
 * the objects `k8ts` also stores and serves: an edit of the stored objects is
 * not obeyed (docs/known-gaps.md).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { FlowSchema, PriorityLevelConfiguration } from 'kubernetes-types/flowcontrol/v1.js';
import { mandatoryFlowSchemas, mandatoryPriorityLevels, suggestedFlowSchemas, suggestedPriorityLevels } from '../../api/flowcontrol/bootstrap.js';
import type { UserInfo } from '../auth/types.js';
import type { RequestInfo } from '../request-info.js';
import { Classifier, type Schema } from './classify.js';
import { PriorityLevels, type Level } from './levels.js';
import { seatAfterBody } from './seats.js';

/** Upstream's response headers (flowcontrol.ResponseHeaderMatchedFlowSchemaUID, ...PriorityLevelConfigurationUID). */
export const flowSchemaUIDHeader = 'X-Kubernetes-PF-FlowSchema-UID';
export const priorityLevelUIDHeader = 'X-Kubernetes-PF-PriorityLevel-UID';

interface Matched { level: Level | undefined; uids?: { schema: string; level: string } }

export class FlowControl {
  readonly classifier = new Classifier([...mandatoryFlowSchemas(), ...suggestedFlowSchemas()]);
  /** Undefined when the server's seats are unlimited (`--max-mutating-requests-inflight 0`). */
  readonly levels: PriorityLevels | undefined;
  private readonly matched = new Map<Schema, Matched>();

  constructor(serverSeats: number) {
    const configs: PriorityLevelConfiguration[] = [...mandatoryPriorityLevels(), ...suggestedPriorityLevels()];
    this.levels = Number.isFinite(serverSeats) ? new PriorityLevels(configs, serverSeats) : undefined;
    for (const schema of this.classifier.all) this.matched.set(schema, { level: this.levels?.byName.get(schema.priorityLevel) });
  }

  /**
   * Classifies an authenticated, authorized request: the headers naming its schema and level,
   * and for a mutating one of a Limited level the seat it takes after its body (seats.ts).
   */
  admit(req: IncomingMessage, res: ServerResponse, user: UserInfo, info: RequestInfo): void {
    const schema = this.classifier.classify(user, info);
    if (!schema) return;
    const m = this.matched.get(schema)!;
    if (m.uids) {
      res.setHeader(flowSchemaUIDHeader, m.uids.schema);
      res.setHeader(priorityLevelUIDHeader, m.uids.level);
    }
    if (!seatAfterBody(m.level, schema, req, res, user, info)) schema.dispatched++;
  }

  /** The stored objects' UIDs, for the headers (read after the server has ensured the objects). */
  setUIDs(schemas: FlowSchema[], levels: PriorityLevelConfiguration[]): void {
    const levelUID = new Map(levels.map((pl) => [pl.metadata?.name, pl.metadata?.uid]));
    for (const fs of schemas) {
      const schema = this.classifier.all.find((s) => s.name === fs.metadata?.name);
      const uid = fs.metadata?.uid;
      const plUID = levelUID.get(fs.spec?.priorityLevelConfiguration.name);
      if (schema && uid && plUID) this.matched.get(schema)!.uids = { schema: uid, level: plUID };
    }
  }
}
