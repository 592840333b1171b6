/**
 * @kubernetes/client-node for the compatibility tests. It is not a dependency
 * of the project (58 MB a newcomer's `npm install` would carry for six test
 * files): `npm test`'s pretest step installs the pinned version into
 * build/test-deps (scripts/fetch-test-deps.sh), and this module loads it from
 * there. The types come from the same place through tsconfig.json's `paths`,
 * or from test/types/client-node.d.ts when it has not been fetched yet, so
 * the build never needs it.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type * as ClientNode from '@kubernetes/client-node';

/** dist/test/e2e/ -> the repository. */
const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
const testDeps = path.join(repo, 'build', 'test-deps');
/** Where the package and its dependencies are (podnet.test.ts mounts them into a pod). */
export const testDepsModules = path.join(testDeps, 'node_modules');
const entry = path.join(testDepsModules, '@kubernetes', 'client-node', 'dist', 'index.js');
if (!existsSync(entry)) {
  throw new Error(`@kubernetes/client-node is not installed in ${testDeps}: run \`bash scripts/fetch-test-deps.sh\` (npm test's pretest step does)`);
}
const k8s: typeof ClientNode = await import(pathToFileURL(entry).href);

// Each name as a value and as a type, as the package exports them.
export const { CoreV1Api, StorageV1Api, AuthenticationV1Api, AuthorizationV1Api, CustomObjectsApi, Exec, KubeConfig, PatchStrategy, PortForward, Watch, makeInformer, setHeaderOptions } = k8s;
export type CoreV1Api = ClientNode.CoreV1Api;
export type StorageV1Api = ClientNode.StorageV1Api;
export type AuthenticationV1Api = ClientNode.AuthenticationV1Api;
export type AuthorizationV1Api = ClientNode.AuthorizationV1Api;
export type CustomObjectsApi = ClientNode.CustomObjectsApi;
export type Exec = ClientNode.Exec;
export type KubeConfig = ClientNode.KubeConfig;
export type PortForward = ClientNode.PortForward;
export type Watch = ClientNode.Watch;
export type Informer<T extends ClientNode.KubernetesObject> = ClientNode.Informer<T>;
export type ObjectCache<T> = ClientNode.ObjectCache<T>;
export type V1Pod = ClientNode.V1Pod;
