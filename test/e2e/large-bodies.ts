/**
 * The large valid bodies of the hardening issue (finding 3), built exactly as
 * it describes them, for the regression tests and bench/bystander.ts:
 * a YAML ConfigMap with 200,000 keys (about 2.6 MiB), a JSON ConfigMap with
 * 250,000 keys, and a protobuf Pod whose spec holds 1,000,000 empty
 * containers (2 MiB: each is field 2 of PodSpec with length 0).
 */
import { encodeObject } from '../../src/api/protobuf/envelope.js';

export interface LargeBody { name: string; path: string; contentType: string; body: Buffer }

const configMaps = '/api/v1/namespaces/default/configmaps';

export function yamlConfigMap(name = 'yaml-200k', keys = 200_000): LargeBody {
  const lines = [`apiVersion: v1`, `kind: ConfigMap`, `metadata:`, `  name: ${name}`, `data:`];
  for (let i = 0; i < keys; i++) lines.push(`  k${i}: v`);
  return { name, path: configMaps, contentType: 'application/yaml', body: Buffer.from(lines.join('\n') + '\n') };
}

export function jsonConfigMap(name = 'json-250k', keys = 250_000): LargeBody {
  const data: Record<string, string> = {};
  for (let i = 0; i < keys; i++) data[i.toString(36)] = 'v';
  return { name, path: configMaps, contentType: 'application/json', body: Buffer.from(JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data })) };
}

export function protobufPod(name = 'pb-1m', containers = 1_000_000): LargeBody {
  const pod = { apiVersion: 'v1', kind: 'Pod', metadata: { name }, spec: { containers: new Array(containers).fill(null).map(() => ({})) } };
  const body = encodeObject(pod)!;
  return { name, path: '/api/v1/namespaces/default/pods', contentType: 'application/vnd.kubernetes.protobuf', body };
}
