/**
 * The ConfigMaps and Secrets a container's environment names (env
 * valueFrom configMapKeyRef/secretKeyRef, envFrom), fetched before the
 * container is configured (upstream kubelet_pods.go makeEnvironmentVariables):
 *
 *  1. Each object once per container start, through the API server.
 *  2. A missing object is an error (`configmap "x" not found`,
 *     `secret "x" not found`) unless every reference to it is optional;
 *     the container stays in CreateContainerConfigError with that message.
 *  3. Services (upstream getServiceEnvVarMap): the master service
 *     `kubernetes` of `default` always; unless the pod sets
 *     enableServiceLinks: false, every Service of the pod's namespace with
 *     a cluster IP too (one named `kubernetes` there wins over the master's).
 */
import type { ConfigMap, Container, Secret, Service } from 'kubernetes-types/core/v1.js';
import { getOptional, type PodObjectGetter } from './volumes/objects.js';
import { serviceEnvVars } from './serviceenv.js';

export interface EnvSources {
  /** Name → object; undefined when it does not exist (only optional references get this far). */
  configMaps: Map<string, ConfigMap | undefined>;
  secrets: Map<string, Secret | undefined>;
  /** The Services' variables (serviceenv.ts); absent without an API server. */
  services?: Map<string, string>;
}

export class EnvSourceError extends Error {}

interface Ref { kind: 'configmap' | 'secret'; name: string; optional: boolean }

function references(c: Container): Ref[] {
  const refs: Ref[] = [];
  for (const f of c.envFrom ?? []) {
    if (f.configMapRef) refs.push({ kind: 'configmap', name: f.configMapRef.name ?? '', optional: !!f.configMapRef.optional });
    if (f.secretRef) refs.push({ kind: 'secret', name: f.secretRef.name ?? '', optional: !!f.secretRef.optional });
  }
  for (const e of c.env ?? []) {
    const cm = e.valueFrom?.configMapKeyRef;
    if (cm) refs.push({ kind: 'configmap', name: cm.name ?? '', optional: !!cm.optional });
    const s = e.valueFrom?.secretKeyRef;
    if (s) refs.push({ kind: 'secret', name: s.name ?? '', optional: !!s.optional });
  }
  return refs;
}

export async function fetchEnvSources(namespace: string, c: Container, get: PodObjectGetter | undefined, enableServiceLinks = true): Promise<EnvSources> {
  // Best effort, as upstream lets static pods start before services were ever read: the control plane's
  // own static pods (kube-apiserver among them) start while no API server answers yet.
  const services = get && await serviceEnv(get, namespace, enableServiceLinks).catch(() => undefined);
  const out: EnvSources = { configMaps: new Map(), secrets: new Map(), ...(services?.size ? { services } : {}) };
  const refs = references(c);
  if (refs.length && !get) throw new EnvSourceError(`${refs[0].kind} references need the API server`);
  for (const r of refs) {
    const found = r.kind === 'configmap'
      ? await cached(out.configMaps, r.name, () => get!.configMap(namespace, r.name))
      : await cached(out.secrets, r.name, () => get!.secret(namespace, r.name));
    if (!found && !r.optional) throw new EnvSourceError(`${r.kind} "${r.name}" not found`);
  }
  return out;
}

const masterService = 'kubernetes';
const hasClusterIP = (s: Service) => !!s.spec?.clusterIP && s.spec.clusterIP !== 'None';

async function serviceEnv(get: PodObjectGetter, namespace: string, links: boolean): Promise<Map<string, string>> {
  const chosen = new Map<string, Service>();
  const own = links && get.services ? await get.services(namespace) : [];
  const master = own.find((s) => namespace === 'default' && s.metadata?.name === masterService)
    ?? (get.service && await getOptional(() => get.service!('default', masterService)));
  if (master && hasClusterIP(master)) chosen.set(masterService, master);
  for (const s of own) if (hasClusterIP(s)) chosen.set(s.metadata!.name!, s);
  const out = new Map<string, string>();
  for (const s of chosen.values()) for (const [k, v] of serviceEnvVars(s)) out.set(k, v);
  return out;
}

async function cached<T>(map: Map<string, T | undefined>, name: string, get: () => Promise<T>): Promise<T | undefined> {
  if (!map.has(name)) map.set(name, await getOptional(get));
  return map.get(name);
}
