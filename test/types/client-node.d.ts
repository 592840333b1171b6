/**
 * The part of @kubernetes/client-node 2.0's declarations that the tests use,
 * for compiling them before scripts/fetch-test-deps.sh has installed the
 * package (a fresh `npm install` builds the tests too). tsconfig.json's
 * `paths` prefers the installed package's own declarations, so `npm test`
 * (whose pretest step installs it) type-checks against the real ones; keep
 * these signatures copied from them. Loaded at run time by
 * test/e2e/client-node-package.ts, never from here.
 */
import type { Readable, Writable } from 'node:stream';
import type { WebSocket } from 'ws';
import type { Pod, PodList } from 'kubernetes-types/core/v1.js';
import type { ObjectMeta, Status } from 'kubernetes-types/meta/v1.js';
import type { SelfSubjectAccessReview, SelfSubjectRulesReview } from 'kubernetes-types/authorization/v1.js';
import type { SelfSubjectReview } from 'kubernetes-types/authentication/v1.js';
import type { CSIDriver, CSIDriverList } from 'kubernetes-types/storage/v1.js';

export type V1Pod = Pod;
/** kubernetes-types 1.30 leaves `verbs` and `resources` out of ResourceRule; client-node has them. */
export interface V1ResourceRule { verbs: string[]; apiGroups?: string[]; resources?: string[]; resourceNames?: string[] }
export type V1SelfSubjectRulesReview = Omit<SelfSubjectRulesReview, 'status'> & {
  status?: { resourceRules: V1ResourceRule[]; nonResourceRules: { verbs: string[]; nonResourceURLs?: string[] }[]; incomplete: boolean; evaluationError?: string };
};
export interface KubernetesObject { apiVersion?: string; kind?: string; metadata?: ObjectMeta }
export interface Context { name: string; cluster: string; user: string; namespace?: string }

export declare class KubeConfig {
  loadFromFile(file: string): void;
  loadFromCluster(pathPrefix?: string): void;
  getCurrentContext(): string;
  getContextObject(name: string): Context | null;
  makeApiClient<T>(apiClientType: new (...args: any[]) => T): T;
}

/** Options of one request, as setHeaderOptions makes them. */
export interface ConfigurationOptions { readonly __configurationOptions: never }
export declare function setHeaderOptions(key: string, value: string, opt?: ConfigurationOptions): ConfigurationOptions;
export declare const PatchStrategy: {
  readonly JsonPatch: 'application/json-patch+json';
  readonly MergePatch: 'application/merge-patch+json';
  readonly StrategicMergePatch: 'application/strategic-merge-patch+json';
  readonly ServerSideApply: 'application/apply-patch+yaml';
};
export type PatchStrategy = (typeof PatchStrategy)[keyof typeof PatchStrategy];

export declare class CoreV1Api {
  listNamespacedPod(param: { namespace: string; labelSelector?: string }, options?: ConfigurationOptions): Promise<PodList & { items: Pod[] }>;
}
export declare class StorageV1Api {
  createCSIDriver(param: { body: CSIDriver }, options?: ConfigurationOptions): Promise<CSIDriver>;
  listCSIDriver(param?: { labelSelector?: string }, options?: ConfigurationOptions): Promise<CSIDriverList & { items: CSIDriver[] }>;
}
export declare class AuthorizationV1Api {
  createSelfSubjectAccessReview(param: { body: SelfSubjectAccessReview }, options?: ConfigurationOptions): Promise<SelfSubjectAccessReview>;
  createSelfSubjectRulesReview(param: { body: SelfSubjectRulesReview }, options?: ConfigurationOptions): Promise<V1SelfSubjectRulesReview>;
}
export declare class AuthenticationV1Api {
  createSelfSubjectReview(param: { body: SelfSubjectReview }, options?: ConfigurationOptions): Promise<SelfSubjectReview>;
}
interface CustomObjectRef { group: string; version: string; namespace: string; plural: string }
export declare class CustomObjectsApi {
  createNamespacedCustomObject(param: CustomObjectRef & { body: object }, options?: ConfigurationOptions): Promise<any>;
  listNamespacedCustomObject(param: CustomObjectRef & { labelSelector?: string }, options?: ConfigurationOptions): Promise<any>;
  patchNamespacedCustomObject(param: CustomObjectRef & { name: string; body: object }, options?: ConfigurationOptions): Promise<any>;
  deleteNamespacedCustomObject(param: CustomObjectRef & { name: string }, options?: ConfigurationOptions): Promise<any>;
}

export declare class Watch {
  constructor(config: KubeConfig);
  watch(path: string, queryParams: Record<string, string | number | boolean | undefined>, callback: (phase: string, apiObj: any, watchObj?: any) => void, done: (err: any) => void): Promise<AbortController>;
}
export declare class Exec {
  constructor(config: KubeConfig);
  exec(namespace: string, podName: string, containerName: string, command: string | string[], stdout: Writable | null, stderr: Writable | null, stdin: Readable | null, tty: boolean, statusCallback?: (status: Status) => void): Promise<WebSocket>;
}
export declare class PortForward {
  constructor(config: KubeConfig);
  portForward(namespace: string, podName: string, targetPorts: number[], output: Writable, err: Writable | null, input: Readable, retryCount?: number): Promise<WebSocket | (() => WebSocket | null)>;
}

export interface ObjectCache<T> {
  get(name: string, namespace?: string): T | undefined;
  list(namespace?: string): ReadonlyArray<T>;
}
export interface Informer<T extends KubernetesObject> {
  on(verb: 'add' | 'update' | 'delete' | 'change', cb: (obj: T) => void): void;
  on(verb: 'error' | 'connect', cb: (err?: any) => void): void;
  start(): Promise<void>;
  stop(): Promise<void>;
}
export declare function makeInformer<T extends KubernetesObject>(kubeconfig: KubeConfig, path: string, listPromiseFn: () => Promise<{ items: T[] }>, labelSelector?: string): Informer<T> & ObjectCache<T>;
