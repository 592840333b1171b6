/**
 * init's --config: the parts of kubeadm's configuration file (multi-document
 * YAML: InitConfiguration, ClusterConfiguration, ...) that k8ts honours. Today
 * that is ClusterConfiguration.etcd: `external` (endpoints and TLS files of an
 * etcd k8ts does not run) or `local.dataDir`. Other fields are accepted and
 * ignored; flags given on the command line still apply.
 */
import { readFileSync } from 'node:fs';
import { parseAllDocuments } from 'yaml';

export interface ExternalEtcd { endpoints: string[]; caFile?: string; certFile?: string; keyFile?: string }

export interface InitFileConfig { externalEtcd?: ExternalEtcd; localEtcdDataDir?: string }

interface ClusterConfigurationDoc {
  kind?: string;
  etcd?: { external?: Partial<ExternalEtcd>; local?: { dataDir?: string } };
}

/** Throws kubeadm-style messages (field paths as kubeadm's ValidateEtcd reports them). */
export function readInitConfig(path: string): InitFileConfig {
  const docs = parseAllDocuments(readFileSync(path, 'utf8'));
  const cc = docs.map((d) => d.toJS() as ClusterConfigurationDoc | null).find((d) => d?.kind === 'ClusterConfiguration');
  const etcd = cc?.etcd;
  if (!etcd) return {};
  if (etcd.external && etcd.local) throw new Error('etcd: Invalid value: "": either .Etcd.Local or .Etcd.External is required');
  if (etcd.local) return etcd.local.dataDir ? { localEtcdDataDir: etcd.local.dataDir } : {};
  const ext = etcd.external;
  if (!ext) return {};
  if (!ext.endpoints?.length) throw new Error('etcd.external.endpoints: Required value: must specify at least one endpoint');
  for (const url of ext.endpoints) {
    if (!/^https?:\/\/[^/]+/.test(url)) throw new Error(`etcd.external.endpoints: Invalid value: "${url}": URL parse error`);
  }
  if ((ext.certFile || ext.keyFile) && !(ext.certFile && ext.keyFile)) {
    throw new Error('etcd.external.certFile: Invalid value: "": both etcd.external.certFile and etcd.external.keyFile must be specified');
  }
  return { externalEtcd: { endpoints: ext.endpoints, caFile: ext.caFile, certFile: ext.certFile, keyFile: ext.keyFile } };
}
