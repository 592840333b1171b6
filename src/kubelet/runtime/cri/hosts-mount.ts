/**
 * The kubelet's hosts file for a container on a real node (upstream
 * kubelet_pods.go makeMounts / makeHostsMount), so spec.hostAliases and a
 * subdomain's FQDN reach /etc/hosts as they do in simulated containers:
 *
 *  1. Written once the sandbox has an IP, to the pod's directory
 *     (pods/UID/etc-hosts), and bind-mounted read-write at /etc/hosts.
 *  2. Not mounted where the container mounts a volume at /etc/hosts itself.
 *  3. Its content is hosts-file.ts's: the managed file on the pod network,
 *     the node's /etc/hosts for a hostNetwork pod, the aliases after either.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Container, Pod } from 'kubernetes-types/core/v1.js';
import type * as cri from './types.js';
import { podDir } from './volumes.js';
import { managedHostsFile, nodeHostsFile, podHostnameAndDomain } from '../../hosts-file.js';

const etcHosts = '/etc/hosts';

export function hostsMount(pod: Pod, c: Container, opts: { podIP?: string; rootDir: string; clusterDomain: string; nodeHostsPath?: string }): cri.Mount | undefined {
  if (!opts.podIP || (c.volumeMounts ?? []).some((m) => m.mountPath === etcHosts)) return undefined;
  const aliases = pod.spec?.hostAliases;
  let text: string;
  if (pod.spec?.hostNetwork) {
    text = nodeHostsFile(readFileSync(opts.nodeHostsPath ?? etcHosts, 'utf8'), aliases);
  } else {
    const { hostname, domain } = podHostnameAndDomain(pod, opts.clusterDomain);
    text = managedHostsFile(opts.podIP, hostname, { domain, aliases });
  }
  const dir = podDir(opts.rootDir, pod.metadata!.uid!);
  mkdirSync(dir, { recursive: true, mode: 0o750 });
  const hostPath = join(dir, 'etc-hosts');
  writeFileSync(hostPath, text, { mode: 0o644 });
  return { containerPath: etcHosts, hostPath, readonly: false, propagation: 'PROPAGATION_PRIVATE' };
}
