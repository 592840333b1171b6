/**
 * The dynamic catalogue: the custom resources being served, one entry per
 * served version of each Established CRD. Discovery, OpenAPI, tables,
 * selectors and the stores read it (through Registry), so a CRD becomes
 * visible everywhere at once and disappears everywhere when it goes.
 */
import type { ResourceInfo, SubresourceInfo } from '../../api/resources.js';
import type {
  CustomResourceColumnDefinition, CustomResourceDefinition, CustomResourceDefinitionVersion, Schema,
} from '../../api/apiextensions/types.js';

/** One served version of a custom resource. */
export interface CustomVersion {
  info: ResourceInfo;
  /** The CRD's metadata.name: `crontabs.stable.example.com`. */
  crdName: string;
  schema: Schema;
  /** The version objects are stored as (conversion None: only apiVersion differs). */
  storageVersion: string;
  /**
   * The schemas of the CRD's versions that declare defaults, by version
   * name: an object read from storage gets the defaults of the version it
   * is stored in (upstream's storage codec runs the structural defaulter
   * before converting), so an object written before a default was added
   * reads with it.
   */
  defaultingSchemas: Record<string, Schema>;
  columns: CustomResourceColumnDefinition[];
  selectableFields: string[];
  scale?: { specReplicasPath: string; statusReplicasPath: string; labelSelectorPath?: string };
  deprecationWarning?: string;
}

const crud = ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'];

/** The ResourceInfo of each served version of an Established CRD, names from status.acceptedNames. */
export function versionsOf(crd: CustomResourceDefinition): CustomVersion[] {
  const spec = crd.spec;
  const names = crd.status?.acceptedNames ?? spec.names;
  const storageVersion = spec.versions.find((v) => v.storage)?.name ?? spec.versions[0]?.name;
  const defaultingSchemas: Record<string, Schema> = {};
  for (const v of spec.versions) {
    const schema = v.schema?.openAPIV3Schema as Schema | undefined;
    if (schema && schemaHasDefaults(schema)) defaultingSchemas[v.name] = schema;
  }
  return spec.versions.filter((v) => v.served).map((v) => ({
    info: {
      group: spec.group, version: v.name, kind: names.kind, listKind: names.listKind ?? `${names.kind}List`,
      plural: names.plural, singular: names.singular || names.kind.toLowerCase(), namespaced: spec.scope === 'Namespaced',
      shortNames: names.shortNames ?? [], categories: names.categories ?? [], verbs: crud, subresources: subresourcesOf(spec.group, v, names.kind),
    },
    crdName: crd.metadata!.name!,
    schema: (v.schema?.openAPIV3Schema ?? { type: 'object', 'x-kubernetes-preserve-unknown-fields': true }) as Schema,
    storageVersion: storageVersion!,
    defaultingSchemas,
    columns: v.additionalPrinterColumns ?? [],
    selectableFields: (v.selectableFields ?? []).map((f) => f.jsonPath.replace(/^\./, '')),
    scale: v.subresources?.scale as CustomVersion['scale'],
    deprecationWarning: v.deprecated ? (v.deprecationWarning ?? `${spec.group}/${v.name} ${names.kind} is deprecated`) : undefined,
  }));
}

/** Whether a `default` appears anywhere in the schema (most schemas have none: reads then skip defaulting). */
function schemaHasDefaults(s: Schema): boolean {
  return JSON.stringify(s).includes('"default"');
}

function subresourcesOf(group: string, v: CustomResourceDefinitionVersion, kind: string): SubresourceInfo[] {
  const subs: SubresourceInfo[] = [];
  if (v.subresources?.status) subs.push({ name: 'status', group, version: v.name, kind, verbs: ['get', 'patch', 'update'] });
  if (v.subresources?.scale) subs.push({ name: 'scale', group: 'autoscaling', version: 'v1', kind: 'Scale', verbs: ['get', 'patch', 'update'] });
  return subs;
}

export class CustomCatalogue {
  private readonly byCRD = new Map<string, CustomVersion[]>();
  /** CRDs being deleted: their objects are still served, but no new ones are created. */
  private readonly terminating = new Set<string>();
  private readonly listeners: (() => void)[] = [];
  /** Bumped on every change, so cached documents (OpenAPI) know to rebuild. */
  generation = 0;

  /** Serves exactly these versions of the CRD (replacing what was served before). */
  set(crdName: string, versions: CustomVersion[]): void {
    this.byCRD.set(crdName, versions);
    this.changed();
  }

  remove(crdName: string): void {
    this.terminating.delete(crdName);
    if (this.byCRD.delete(crdName)) this.changed();
  }

  markTerminating(crdName: string): void { this.terminating.add(crdName); }

  isTerminating(crdName: string): boolean { return this.terminating.has(crdName); }

  versions(): CustomVersion[] { return [...this.byCRD.values()].flat(); }

  resources(): ResourceInfo[] { return this.versions().map((v) => v.info); }

  find(group: string, version: string, plural: string): CustomVersion | undefined {
    return this.versions().find((v) => v.info.group === group && v.info.version === version && v.info.plural === plural);
  }

  onChange(fn: () => void): void { this.listeners.push(fn); }

  private changed(): void {
    this.generation++;
    for (const fn of this.listeners) fn();
  }
}
