/**
 * Column-definition builders, so every printer spells the shared columns
 * (NAME, AGE, CONTAINERS, IMAGES) exactly as upstream's AddHandlers does.
 */
import { swaggerDoc, type SwaggerDocKey } from './descriptions.js';
import type { ColumnDefinition } from './types.js';

export interface ColumnOptions {
  type?: string;
  /** 1 for columns kubectl shows only with `-o wide`. */
  priority?: number;
  format?: string;
}

/** A column whose description is free text written in printers.go. */
export function column(name: string, description: string, opts: ColumnOptions = {}): ColumnDefinition {
  return { name, type: opts.type ?? 'string', format: opts.format ?? '', description, priority: opts.priority ?? 0 };
}

/** A column whose description is a field's SwaggerDoc string. */
export function docColumn(name: string, key: SwaggerDocKey, opts: ColumnOptions = {}): ColumnDefinition {
  return column(name, swaggerDoc[key], opts);
}

/** `{Name: "Name", Type: "string", Format: "name", Description: ObjectMeta name}` */
export const nameColumn = (): ColumnDefinition => docColumn('Name', 'metav1.ObjectMeta.name', { format: 'name' });

/** `{Name: "Age", Type: "string", Description: ObjectMeta creationTimestamp}` */
export const ageColumn = (): ColumnDefinition => docColumn('Age', 'metav1.ObjectMeta.creationTimestamp');

export const containersColumn = (): ColumnDefinition =>
  column('Containers', 'Names of each container in the template.', { priority: 1 });

export const imagesColumn = (): ColumnDefinition =>
  column('Images', 'Images referenced by each container in the template.', { priority: 1 });
