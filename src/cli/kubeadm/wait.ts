/** Waiting, as kubeadm's api-check and kubelet-check do: poll until healthy or the timeout. */
import https from 'node:https';
import type { Node } from 'kubernetes-types/core/v1.js';
import { isNotFound, type Clientset } from '../../client/index.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Polls `check` every `intervalMs` until it returns a value; throws `timeoutMessage` after `timeoutMs`. */
export async function poll<T>(check: () => Promise<T | undefined>, timeoutMs: number, timeoutMessage: () => string, intervalMs = 200): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await check().catch(() => undefined);
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(timeoutMessage());
    await sleep(intervalMs);
  }
}

/** GET url with the cluster CA; the status code, or undefined when nothing answers. */
export function httpsStatus(url: string, caPem: string): Promise<number | undefined> {
  return new Promise((resolve) => {
    const req = https.get(url, { ca: caPem, timeout: 5000 }, (res) => { res.resume(); resolve(res.statusCode); });
    req.on('error', () => resolve(undefined));
    req.on('timeout', () => { req.destroy(); resolve(undefined); });
  });
}

export async function waitForAPIServer(server: string, caPem: string, timeoutMs: number): Promise<void> {
  await poll(async () => ((await httpsStatus(`${server}/livez`, caPem)) === 200 ? true : undefined), timeoutMs,
    () => `the API server at ${server} did not become healthy within ${timeoutMs / 1000}s`);
}

export const isReady = (node: Node | undefined) => node?.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') ?? false;

export async function getNode(clients: Clientset, name: string): Promise<Node | undefined> {
  try {
    return await clients.nodes.get(undefined, name) as Node;
  } catch (e) {
    if (isNotFound(e)) return undefined;
    throw e;
  }
}

export async function waitForNodeReady(clients: Clientset, name: string, timeoutMs: number): Promise<Node> {
  return poll(async () => { const n = await getNode(clients, name); return isReady(n) ? n : undefined; }, timeoutMs,
    () => `the node "${name}" did not become Ready within ${timeoutMs / 1000}s`);
}
