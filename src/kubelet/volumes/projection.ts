/**
 * The files of configMap, secret, downwardAPI and projected volumes
 * (upstream pkg/volume/{configmap,secret,downwardapi,projected}), v1.32:
 *
 *  1. configMap / secret: every key of data and binaryData (Secret data is
 *     base64 in the API, raw bytes in the file), or only `items` (key → path,
 *     with an optional mode). A missing object fails the mount
 *     (`configmap "x" not found`, `secret "x" not found`) unless the source is
 *     optional, which gives an empty volume; an item naming a missing key
 *     fails it (`configmap references non-existent config key: k`) unless
 *     optional.
 *  2. downwardAPI: one file per item, from fieldRef (downward.ts) or
 *     resourceFieldRef of a named container.
 *  3. projected: the files of each source together, under the projected
 *     volume's defaultMode. A serviceAccountToken source is a token of the
 *     pod's service account bound to the pod (its audience, else the API
 *     server's; expirationSeconds), mode 0600 when the pod has an fsGroup;
 *     clusterTrustBundle sources are not served yet.
 *  4. Modes: item mode, else the source's defaultMode, else 0644.
 */
import type { ServiceAccountTokenProjection } from 'kubernetes-types/core/v1.js';
import type { ConfigMap, ConfigMapProjection, DownwardAPIVolumeFile, KeyToPath, Pod, Secret, SecretProjection, Volume } from 'kubernetes-types/core/v1.js';
import { MountError, getOptional, type PodObjectGetter } from './objects.js';
import { podFieldValue, resourceFieldValue, type NodeAllocatable } from './downward.js';

export interface FileProjection { data: Buffer; mode: number }
/** Relative path in the volume → content. */
export type Payload = Map<string, FileProjection>;

const defaultMode = 0o644;

/** The volume types this module projects. */
export const isProjectedVolume = (v: Volume) => !!(v.configMap || v.secret || v.downwardAPI || v.projected);

/** The directory kind upstream gives each type (pods/<uid>/volumes/kubernetes.io~<kind>/<name>). */
export function volumePluginDir(v: Volume): string {
  return v.configMap ? 'kubernetes.io~configmap' : v.secret ? 'kubernetes.io~secret' : v.downwardAPI ? 'kubernetes.io~downward-api' : 'kubernetes.io~projected';
}

interface Ctx { pod: Pod; volume: string; get: PodObjectGetter | undefined; node: NodeAllocatable }

const setUpFailed = (ctx: Ctx, why: string) => new MountError(`MountVolume.SetUp failed for volume "${ctx.volume}" : ${why}`);

function put(out: Payload, path: string, data: Buffer, mode: number, ctx: Ctx): void {
  if (!path || path.startsWith('/') || path.split('/').includes('..')) throw setUpFailed(ctx, `invalid path ${JSON.stringify(path)}`);
  out.set(path, { data, mode });
}

function keyedFiles(out: Payload, ctx: Ctx, what: 'configmap' | 'secret', values: Map<string, Buffer>, items: KeyToPath[] | undefined, mode: number, optional: boolean): void {
  if (!items?.length) {
    for (const [k, data] of values) put(out, k, data, mode, ctx);
    return;
  }
  for (const it of items) {
    const data = values.get(it.key);
    if (!data) {
      if (optional) continue;
      throw setUpFailed(ctx, what === 'configmap' ? `configmap references non-existent config key: ${it.key}` : `references non-existent secret key: ${it.key}`);
    }
    put(out, it.path, data, it.mode ?? mode, ctx);
  }
}

const configMapValues = (cm: ConfigMap) => new Map<string, Buffer>([
  ...Object.entries(cm.data ?? {}).map(([k, v]) => [k, Buffer.from(v, 'utf8')] as [string, Buffer]),
  ...Object.entries(cm.binaryData ?? {}).map(([k, v]) => [k, Buffer.from(v, 'base64')] as [string, Buffer]),
]);
const secretValues = (s: Secret) => new Map<string, Buffer>(Object.entries(s.data ?? {}).map(([k, v]) => [k, Buffer.from(v, 'base64')]));

async function fetch<T>(ctx: Ctx, kind: 'configMap' | 'secret', name: string): Promise<T | undefined> {
  if (!ctx.get) throw setUpFailed(ctx, `${kind} volumes need the API server`);
  const g = ctx.get;
  const ns = ctx.pod.metadata!.namespace!;
  return getOptional(() => (kind === 'configMap' ? g.configMap(ns, name) : g.secret(ns, name)) as Promise<T>);
}

async function configMapFiles(out: Payload, ctx: Ctx, src: ConfigMapProjection, mode: number): Promise<void> {
  const cm = await fetch<ConfigMap>(ctx, 'configMap', src.name ?? '');
  if (!cm) {
    if (src.optional) return;
    throw setUpFailed(ctx, `configmap "${src.name}" not found`);
  }
  keyedFiles(out, ctx, 'configmap', configMapValues(cm), src.items, mode, !!src.optional);
}

async function secretFiles(out: Payload, ctx: Ctx, name: string, src: SecretProjection, mode: number): Promise<void> {
  const s = await fetch<Secret>(ctx, 'secret', name);
  if (!s) {
    if (src.optional) return;
    throw setUpFailed(ctx, `secret "${name}" not found`);
  }
  keyedFiles(out, ctx, 'secret', secretValues(s), src.items, mode, !!src.optional);
}

function downwardFiles(out: Payload, ctx: Ctx, items: DownwardAPIVolumeFile[], mode: number): void {
  for (const it of items) {
    let value: string | undefined;
    if (it.fieldRef) {
      value = podFieldValue(ctx.pod, it.fieldRef.fieldPath);
      if (value === undefined) throw setUpFailed(ctx, `unsupported fieldPath: ${it.fieldRef.fieldPath}`);
    } else if (it.resourceFieldRef) {
      const ref = it.resourceFieldRef;
      const c = ctx.pod.spec?.containers.find((x) => x.name === ref.containerName);
      if (!c) throw setUpFailed(ctx, `container ${ref.containerName} not found`);
      value = resourceFieldValue(c, ref.resource, ref.divisor, ctx.node);
    } else {
      value = '';
    }
    put(out, it.path, Buffer.from(value, 'utf8'), it.mode ?? mode, ctx);
  }
}

async function serviceAccountTokenFile(out: Payload, ctx: Ctx, src: ServiceAccountTokenProjection, mode: number): Promise<void> {
  const request = ctx.get?.serviceAccountToken;
  if (!request) throw setUpFailed(ctx, 'serviceAccountToken volumes need the API server');
  const pod = ctx.pod;
  let token: string;
  try {
    const tr = await request(pod.metadata!.namespace!, pod.spec?.serviceAccountName ?? 'default', {
      spec: {
        audiences: src.audience ? [src.audience] : [], expirationSeconds: src.expirationSeconds ?? 3600,
        boundObjectRef: { apiVersion: 'v1', kind: 'Pod', name: pod.metadata!.name!, uid: pod.metadata!.uid! },
      },
    });
    token = tr.status?.token ?? '';
  } catch (e) {
    throw setUpFailed(ctx, `failed to fetch token: ${(e as Error).message}`);
  }
  put(out, src.path, Buffer.from(token, 'utf8'), pod.spec?.securityContext?.fsGroup !== undefined ? 0o600 : mode, ctx);
}

/** The files of one configMap, secret, downwardAPI or projected volume of `pod`. */
export async function volumePayload(pod: Pod, v: Volume, get: PodObjectGetter | undefined, node: NodeAllocatable): Promise<Payload> {
  const ctx: Ctx = { pod, volume: v.name, get, node };
  const out: Payload = new Map();
  if (v.configMap) await configMapFiles(out, ctx, v.configMap, v.configMap.defaultMode ?? defaultMode);
  else if (v.secret) await secretFiles(out, ctx, v.secret.secretName ?? '', v.secret, v.secret.defaultMode ?? defaultMode);
  else if (v.downwardAPI) downwardFiles(out, ctx, v.downwardAPI.items ?? [], v.downwardAPI.defaultMode ?? defaultMode);
  else if (v.projected) {
    const mode = v.projected.defaultMode ?? defaultMode;
    for (const s of v.projected.sources ?? []) {
      if (s.configMap) await configMapFiles(out, ctx, s.configMap, mode);
      else if (s.secret) await secretFiles(out, ctx, s.secret.name ?? '', s.secret, mode);
      else if (s.downwardAPI) downwardFiles(out, ctx, s.downwardAPI.items ?? [], mode);
      else if (s.serviceAccountToken) await serviceAccountTokenFile(out, ctx, s.serviceAccountToken, mode);
      else throw setUpFailed(ctx, 'projected source type not supported by this kubelet yet (configMap, secret, downwardAPI and serviceAccountToken are)');
    }
  }
  return out;
}
