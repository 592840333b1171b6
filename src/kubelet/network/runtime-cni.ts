/**
 * Where the runtime reads its CNI networks: containerd's CRI plugin reports
 * its configuration in a verbose Status (info.config, with cni.confDir), so
 * the agent writes the conflist where that containerd (the machine's, or a
 * test's private one) looks, with no flag to keep in step.
 */
import { CRIClient } from '../runtime/cri/client.js';

export const defaultCNIConfDir = '/etc/cni/net.d';

export async function runtimeCNIConfDir(endpoint: string): Promise<string> {
  const client = new CRIClient(endpoint);
  try {
    const { info } = await client.status(true);
    const config = info.config ? (JSON.parse(info.config) as { cni?: { confDir?: unknown } }) : undefined;
    return typeof config?.cni?.confDir === 'string' && config.cni.confDir ? config.cni.confDir : defaultCNIConfDir;
  } finally {
    client.close();
  }
}
