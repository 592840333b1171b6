/** `k8ts up`: a local control plane in ./.k8ts, for a first look with kubectl. */
import { parseArgs } from 'node:util';
import { resolve } from 'node:path';
import { startControlPlane } from './control-plane.js';

export const upHelp = `Start a local k8ts cluster.

Usage:
  k8ts up [--data-dir .k8ts] [--port 6443]

Starts the API server on 127.0.0.1 and prints how to point kubectl at it.
Nodes (simulated or real) are not part of this release yet.`;

export async function runUp(args: string[]): Promise<number> {
  const { values } = parseArgs({ args, strict: true, options: { 'data-dir': { type: 'string', default: '.k8ts' }, port: { type: 'string', default: '6443' } } });
  const dataDir = resolve(values['data-dir']!);
  const cp = await startControlPlane({ dataDir, port: Number(values.port), bind: '127.0.0.1' });
  console.log(`k8ts control plane is up at ${cp.url}\n\n  export KUBECONFIG=${cp.kubeconfigPath}\n  kubectl get namespaces\n\nNo nodes are registered yet (this release has the API server only). Ctrl-C stops it; data stays in ${dataDir}.`);
  return cp.waitForSignal();
}
