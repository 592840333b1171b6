/**
 * The `extension-apiserver-authentication` ConfigMap in kube-system, as
 * kube-apiserver's ClusterAuthenticationTrustController writes it: extension
 * API servers read it to trust client certificates (client-ca-file) and the
 * front proxy's request headers (requestheader-*).
 */
import type { ConfigMap } from 'kubernetes-types/core/v1.js';
import type { Registry } from '../../registry/registry.js';

export interface RequestHeaderConfig {
  clientCAPem: string;
  requestHeaderCAPem: string;
  allowedNames: string[];
  usernameHeaders: string[];
  groupHeaders: string[];
  extraHeaderPrefixes: string[];
}

export const defaultRequestHeaders = { allowedNames: ['front-proxy-client'], usernameHeaders: ['X-Remote-User'], groupHeaders: ['X-Remote-Group'], extraHeaderPrefixes: ['X-Remote-Extra-'] };

export function authenticationConfigMap(c: RequestHeaderConfig): ConfigMap {
  return {
    apiVersion: 'v1', kind: 'ConfigMap',
    metadata: { name: 'extension-apiserver-authentication', namespace: 'kube-system' },
    data: {
      'client-ca-file': c.clientCAPem,
      'requestheader-allowed-names': JSON.stringify(c.allowedNames),
      'requestheader-client-ca-file': c.requestHeaderCAPem,
      'requestheader-extra-headers-prefix': JSON.stringify(c.extraHeaderPrefixes),
      'requestheader-group-headers': JSON.stringify(c.groupHeaders),
      'requestheader-username-headers': JSON.stringify(c.usernameHeaders),
    },
  };
}

/** Creates or refreshes the ConfigMap (its data follows the server's flags). */
export async function publishAuthenticationConfigMap(registry: Registry, c: RequestHeaderConfig): Promise<void> {
  const store = registry.store('', 'v1', 'configmaps')!;
  const want = authenticationConfigMap(c);
  try {
    await store.create('kube-system', want);
  } catch (e) {
    if ((e as { code?: number }).code !== 409) throw e;
    await store.guaranteedUpdate('kube-system', want.metadata!.name!, (cur: ConfigMap) => ({ ...cur, data: want.data }));
  }
}
