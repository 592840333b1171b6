/**
 * Mutating and ValidatingWebhookConfigurations (admissionregistration.k8s.io/v1),
 * as upstream's printMutatingWebhook and printValidatingWebhook: name, the number
 * of webhooks, age.
 */
import type { MutatingWebhookConfiguration, ValidatingWebhookConfiguration } from 'kubernetes-types/admissionregistration/v1.js';
import { ageColumn, column, nameColumn } from './columns.js';
import { timestampSince } from './duration.js';
import type { KindPrinter, TableRow } from './types.js';

export const webhookConfigurationPrinter: KindPrinter = {
  columns: [
    nameColumn(),
    column('Webhooks', 'Webhooks indicates the number of webhooks registered in this configuration', { type: 'integer' }),
    ageColumn(),
  ],
  row(c: MutatingWebhookConfiguration | ValidatingWebhookConfiguration, ctx): TableRow {
    return { cells: [c.metadata?.name ?? '', c.webhooks?.length ?? 0, timestampSince(c.metadata?.creationTimestamp, ctx.now)] };
  },
};
