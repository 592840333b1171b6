/**
 * The static-pod side of `k8ts agent`: its flags, and the standalone kubelet
 * that runs when no --kubeconfig is given (static pods only, no API server).
 */
import { resolve } from 'node:path';
import type { Logger } from '../util/log.js';
import { mustParseDuration, type PodRuntime, type NodeAgentOptions } from '../kubelet/index.js';
import { StandaloneKubelet, type StaticPodsOptions } from '../kubelet/staticpods/index.js';

export { staticPodFlagOptions, staticPodFlagsHelp } from './agent-flags.js';

/** The static pod options from the parsed flags; undefined without --pod-manifest-path. */
export function staticPodOptions(values: Record<string, string | boolean | undefined>): Omit<StaticPodsOptions, 'nodeName' | 'deleteDelayMs'> | undefined {
  const dir = values['pod-manifest-path'];
  if (typeof dir !== 'string' || !dir) return undefined;
  return {
    manifestPath: resolve(dir),
    fileCheckIntervalMs: Math.max(1, mustParseDuration('file-check-frequency', String(values['file-check-frequency']))),
    mirrorSyncIntervalMs: Math.max(1, mustParseDuration('sync-frequency', String(values['sync-frequency']))),
  };
}

/** Runs a standalone kubelet until `waitForSignal` resolves; returns the exit code. */
export async function runStandaloneAgent(
  deps: { runtime: PodRuntime; logger: Logger },
  opts: NodeAgentOptions & { staticPods: Omit<StaticPodsOptions, 'nodeName' | 'deleteDelayMs'> },
  waitForSignal: (shutdown: () => Promise<void>) => Promise<number>,
): Promise<number> {
  const kubelet = new StandaloneKubelet(deps, { ...opts, ...opts.staticPods });
  try {
    await kubelet.start();
  } catch (e) {
    await kubelet.stop().catch(() => {});
    throw e;
  }
  deps.logger.info('standalone kubelet running: static pods only, no API server', {
    node: opts.nodeName, podManifestPath: opts.staticPods.manifestPath, pods: kubelet.staticPods.pods().length,
  });
  return waitForSignal(() => kubelet.stop());
}
