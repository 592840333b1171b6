/**
 * FlowSchema and PriorityLevelConfiguration (flowcontrol.apiserver.k8s.io/v1),
 * as upstream's printFlowSchema and printPriorityLevelConfiguration. MISSINGPL
 * is the status of the Dangling condition (registry/flowschema-status.ts), `?` until written.
 */
import type { FlowSchema, PriorityLevelConfiguration } from 'kubernetes-types/flowcontrol/v1.js';
import { ageColumn, column, docColumn, nameColumn } from './columns.js';
import { timestampSince } from './duration.js';
import type { KindPrinter, TableRow } from './types.js';

export const flowSchemaPrinter: KindPrinter = {
  columns: [
    nameColumn(),
    docColumn('PriorityLevel', 'flowcontrolv1.PriorityLevelConfigurationReference.name'),
    docColumn('MatchingPrecedence', 'flowcontrolv1.FlowSchemaSpec.matchingPrecedence'),
    docColumn('DistinguisherMethod', 'flowcontrolv1.FlowSchemaSpec.distinguisherMethod'),
    ageColumn(),
    column('MissingPL', 'references a broken or non-existent PriorityLevelConfiguration'),
  ],
  row(fs: FlowSchema, ctx): TableRow {
    const dangling = fs.status?.conditions?.find((c) => c.type === 'Dangling');
    return {
      cells: [
        fs.metadata?.name ?? '', fs.spec?.priorityLevelConfiguration?.name ?? '', fs.spec?.matchingPrecedence ?? 0,
        fs.spec?.distinguisherMethod?.type ?? '<none>', timestampSince(fs.metadata?.creationTimestamp, ctx.now), dangling?.status ?? '?',
      ],
    };
  },
};

export const priorityLevelConfigurationPrinter: KindPrinter = {
  columns: [
    nameColumn(),
    docColumn('Type', 'flowcontrolv1.PriorityLevelConfigurationSpec.type'),
    docColumn('NominalConcurrencyShares', 'flowcontrolv1.LimitedPriorityLevelConfiguration.nominalConcurrencyShares'),
    docColumn('Queues', 'flowcontrolv1.QueuingConfiguration.queues'),
    docColumn('HandSize', 'flowcontrolv1.QueuingConfiguration.handSize'),
    docColumn('QueueLengthLimit', 'flowcontrolv1.QueuingConfiguration.queueLengthLimit'),
    ageColumn(),
  ],
  row(pl: PriorityLevelConfiguration, ctx): TableRow {
    const limited = pl.spec?.limited;
    const q = limited?.limitResponse?.queuing;
    const none = '<none>';
    return {
      cells: [
        pl.metadata?.name ?? '', pl.spec?.type ?? '', limited ? (limited.nominalConcurrencyShares ?? 0) : none,
        q ? (q.queues ?? 0) : none, q ? (q.handSize ?? 0) : none, q ? (q.queueLengthLimit ?? 0) : none,
        timestampSince(pl.metadata?.creationTimestamp, ctx.now),
      ],
    };
  },
};
