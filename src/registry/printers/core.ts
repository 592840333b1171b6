/**
 * The small core/v1 kinds: ConfigMap, Secret, ServiceAccount, Namespace, as
 * upstream's printConfigMap, printSecret, printServiceAccount, printNamespace.
 */
import type { ConfigMap, Namespace, Secret, ServiceAccount } from 'kubernetes-types/core/v1.js';
import { ageColumn, column, docColumn, nameColumn } from './columns.js';
import { timestampSince } from './duration.js';
import { countKeys } from './format.js';
import type { KindPrinter, TableRow } from './types.js';

export const configMapPrinter: KindPrinter = {
  columns: [nameColumn(), docColumn('Data', 'corev1.ConfigMap.data'), ageColumn()],
  row(cm: ConfigMap, ctx): TableRow {
    // DATA counts data and binaryData keys together.
    return { cells: [cm.metadata?.name ?? '', countKeys(cm.data) + countKeys(cm.binaryData), timestampSince(cm.metadata?.creationTimestamp, ctx.now)] };
  },
};

export const secretPrinter: KindPrinter = {
  columns: [nameColumn(), docColumn('Type', 'corev1.Secret.type'), docColumn('Data', 'corev1.Secret.data'), ageColumn()],
  row(s: Secret, ctx): TableRow {
    return { cells: [s.metadata?.name ?? '', s.type ?? '', countKeys(s.data), timestampSince(s.metadata?.creationTimestamp, ctx.now)] };
  },
};

export const serviceAccountPrinter: KindPrinter = {
  columns: [nameColumn(), docColumn('Secrets', 'corev1.ServiceAccount.secrets'), ageColumn()],
  row(sa: ServiceAccount, ctx): TableRow {
    return { cells: [sa.metadata?.name ?? '', (sa.secrets ?? []).length, timestampSince(sa.metadata?.creationTimestamp, ctx.now)] };
  },
};

export const namespacePrinter: KindPrinter = {
  columns: [nameColumn(), column('Status', 'The status of the namespace'), ageColumn()],
  row(ns: Namespace, ctx): TableRow {
    return { cells: [ns.metadata?.name ?? '', ns.status?.phase ?? '', timestampSince(ns.metadata?.creationTimestamp, ctx.now)] };
  },
};
