/**
 * kubeconfig files (clientcmd v1 Config) as kubeadm writes them: cluster
 * "kubernetes", user "kubernetes-admin", context "kubernetes-admin@kubernetes".
 * The server's certificate must carry a SAN for the host in `server`; Go's TLS
 * ignores the CN.
 *
 * The YAML is emitted here rather than by the yaml package: the document is
 * small and fixed, and loading that package costs ~60 ms of start-up.
 */
import { writeFileAtomic } from './files.js';

export interface KubeconfigOptions {
  /** e.g. https://127.0.0.1:6443 */
  server: string;
  caCertPem: string;
  clusterName?: string;
  userName: string;
  clientCertPem?: string;
  clientKeyPem?: string;
  token?: string;
  /** Default `<userName>@<clusterName>`. */
  contextName?: string;
}

type Value = string | null | Mapping | Mapping[];
interface Mapping { [key: string]: Value }

// YAML 1.1 (go-yaml v2, which kubectl uses) reads these plain words as booleans or null.
const RESERVED = /^(y|n|yes|no|true|false|on|off|null|~)$/i;

/** A scalar: plain when it cannot be misread, else double-quoted (JSON's escapes are YAML's). */
function scalar(s: string): string {
  const plain = /^[A-Za-z][A-Za-z0-9_./+=:@-]*$/.test(s) && !s.endsWith(':') && !RESERVED.test(s);
  return plain ? s : JSON.stringify(s);
}

/** Block-style YAML, sequences at their key's indentation, as kubectl writes kubeconfigs. */
function block(map: Mapping, indent: string): string[] {
  const out: string[] = [];
  for (const [key, v] of Object.entries(map)) {
    if (v === null || typeof v === 'string') out.push(`${indent}${key}: ${v === null ? 'null' : scalar(v)}`);
    else if (Array.isArray(v)) {
      out.push(v.length ? `${indent}${key}:` : `${indent}${key}: []`);
      for (const item of v) {
        const lines = block(item, `${indent}  `);
        out.push(...(lines.length ? [`${indent}- ${lines[0]!.trimStart()}`, ...lines.slice(1)] : [`${indent}- {}`]));
      }
    } else if (Object.keys(v).length === 0) out.push(`${indent}${key}: {}`);
    else out.push(`${indent}${key}:`, ...block(v, `${indent}  `));
  }
  return out;
}

const toYaml = (doc: Mapping): string => `${block(doc, '').join('\n')}\n`;

const b64 = (pem: string) => Buffer.from(pem, 'utf8').toString('base64');

function clusterEntry(name: string, server: string, caCertPem: string): Mapping {
  return { cluster: { 'certificate-authority-data': b64(caCertPem), server }, name };
}

export function buildKubeconfig(opts: KubeconfigOptions): string {
  const clusterName = opts.clusterName ?? 'kubernetes';
  const contextName = opts.contextName ?? `${opts.userName}@${clusterName}`;
  if ((opts.clientCertPem === undefined) !== (opts.clientKeyPem === undefined)) {
    throw new Error('kubeconfig: clientCertPem and clientKeyPem go together');
  }
  const user: Record<string, string> = {};
  if (opts.clientCertPem !== undefined) user['client-certificate-data'] = b64(opts.clientCertPem);
  if (opts.clientKeyPem !== undefined) user['client-key-data'] = b64(opts.clientKeyPem);
  if (opts.token !== undefined) user.token = opts.token;
  return toYaml({
    apiVersion: 'v1',
    clusters: [clusterEntry(clusterName, opts.server, opts.caCertPem)],
    contexts: [{ context: { cluster: clusterName, user: opts.userName }, name: contextName }],
    'current-context': contextName,
    kind: 'Config',
    preferences: {},
    users: [{ name: opts.userName, user }],
  });
}

/**
 * The cluster-only kubeconfig kubeadm publishes as ConfigMap kube-public/cluster-info
 * (key `kubeconfig`), which bootstrap tokens sign: server and CA, no users.
 */
export function buildClusterInfoKubeconfig(opts: { server: string; caCertPem: string; clusterName?: string }): string {
  return toYaml({
    apiVersion: 'v1',
    clusters: [clusterEntry(opts.clusterName ?? '', opts.server, opts.caCertPem)],
    contexts: null,
    'current-context': '',
    kind: 'Config',
    preferences: {},
    users: null,
  });
}

/** Writes a kubeconfig with mode 0600 (it holds credentials), atomically. */
export function writeKubeconfig(path: string, yaml: string): Promise<void> {
  return writeFileAtomic(path, yaml, 0o600);
}
