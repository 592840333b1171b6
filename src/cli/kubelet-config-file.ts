/**
 * The kubelet's configuration file (`--config`, kubelet.config.k8s.io/v1beta1
 * KubeletConfiguration), as kubeadm writes it to /var/lib/kubelet/config.yaml
 * from the cluster's `kubelet-config` ConfigMap. k8ts's agent reads the DNS
 * fields (clusterDNS, clusterDomain) and allowedUnsafeSysctls; staticPodPath is written for kubeadm's
 * shape but the agent takes --pod-manifest-path, and other fields of the
 * kind are accepted and ignored. A flag given on the command line wins over
 * the file, as the kubelet's flag precedence says.
 */
import { readFileSync } from 'node:fs';
import { isIP } from 'node:net';
import { parse, stringify } from 'yaml';

export const kubeletConfigAPIVersion = 'kubelet.config.k8s.io/v1beta1';

/** The fields of KubeletConfiguration k8ts reads. */
export interface KubeletConfiguration {
  apiVersion: typeof kubeletConfigAPIVersion;
  kind: 'KubeletConfiguration';
  clusterDNS?: string[];
  clusterDomain?: string;
  staticPodPath?: string;
  allowedUnsafeSysctls?: string[];
}

/** kubeadm's defaults for a cluster whose kube-dns Service is at `dnsIP` (componentconfigs/kubelet.go). */
export function defaultKubeletConfiguration(dnsIP: string, clusterDomain = 'cluster.local'): KubeletConfiguration {
  return { apiVersion: kubeletConfigAPIVersion, kind: 'KubeletConfiguration', clusterDNS: [dnsIP], clusterDomain, staticPodPath: '/etc/kubernetes/manifests' };
}

export const kubeletConfigurationYAML = (c: KubeletConfiguration): string => stringify(c);

/**
 * Parses a KubeletConfiguration document; errors name the field as the
 * kubelet's validation does. `source` names the file or ConfigMap.
 */
export function parseKubeletConfiguration(text: string, source: string): KubeletConfiguration {
  let doc: unknown;
  try { doc = parse(text); } catch (e) { throw new Error(`failed to decode kubelet configuration from ${source}: ${(e as Error).message}`); }
  if (typeof doc !== 'object' || doc === null) throw new Error(`failed to decode kubelet configuration from ${source}: not an object`);
  const o = doc as Record<string, unknown>;
  if (o.kind !== 'KubeletConfiguration' || o.apiVersion !== kubeletConfigAPIVersion) {
    throw new Error(`failed to decode kubelet configuration from ${source}: no kind "${String(o.kind)}" is registered for version "${String(o.apiVersion)}" (want ${kubeletConfigAPIVersion} KubeletConfiguration)`);
  }
  const dns = o.clusterDNS ?? [];
  if (!Array.isArray(dns) || dns.some((ip) => typeof ip !== 'string' || isIP(ip) === 0)) {
    throw new Error(`invalid configuration: clusterDNS (--cluster-dns) ${JSON.stringify(dns)} must be a list of IP addresses`);
  }
  if (o.clusterDomain !== undefined && typeof o.clusterDomain !== 'string') throw new Error('invalid configuration: clusterDomain (--cluster-domain) must be a string');
  if (o.staticPodPath !== undefined && typeof o.staticPodPath !== 'string') throw new Error('invalid configuration: staticPodPath must be a string');
  const unsafe = o.allowedUnsafeSysctls;
  if (unsafe !== undefined && (!Array.isArray(unsafe) || unsafe.some((s) => typeof s !== 'string'))) {
    throw new Error('invalid configuration: allowedUnsafeSysctls (--allowed-unsafe-sysctls) must be a list of strings');
  }
  return {
    apiVersion: kubeletConfigAPIVersion, kind: 'KubeletConfiguration', clusterDNS: dns as string[],
    ...(o.clusterDomain !== undefined ? { clusterDomain: o.clusterDomain as string } : {}),
    ...(o.staticPodPath !== undefined ? { staticPodPath: o.staticPodPath as string } : {}),
    ...(unsafe !== undefined ? { allowedUnsafeSysctls: unsafe as string[] } : {}),
  };
}

export function readKubeletConfigFile(path: string): KubeletConfiguration {
  let text: string;
  try { text = readFileSync(path, 'utf8'); } catch (e) { throw new Error(`failed to load kubelet config file, path: ${path}, error: ${(e as Error).message}`); }
  return parseKubeletConfiguration(text, `file "${path}"`);
}
