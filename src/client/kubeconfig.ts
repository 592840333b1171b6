/** Reads a kubeconfig (the current context) into what the REST client needs. */
import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { lazyRequire } from '../util/lazy-require.js';

const yaml = lazyRequire<typeof import('yaml')>('yaml');

export interface ClientConfig {
  server: string;
  caPem?: string;
  certPem?: string;
  keyPem?: string;
  token?: string;
  /** A token file read again each minute (client-go's cachingTokenSource): bound service-account tokens rotate. */
  tokenFile?: string;
  insecureSkipTLSVerify?: boolean;
  /**
   * Plain HTTP on this Unix socket instead of HTTPS to `server`: the API server's loopback socket,
   * for the control loops of its own process only (cli/loopback-clients.ts), with `token`.
   */
  socketPath?: string;
}

const b64 = (s: string | undefined) => (s ? Buffer.from(s, 'base64').toString('utf8') : undefined);

export function loadKubeconfig(path: string, context?: string): ClientConfig {
  const doc = yaml().parse(readFileSync(path, 'utf8'));
  // As client-go's ResolveLocalPaths: a relative file path is relative to the kubeconfig's own directory.
  const local = (p: string | undefined) => (p ? resolve(dirname(path), p) : undefined);
  const file = (p: string | undefined) => (p ? readFileSync(local(p)!, 'utf8') : undefined);
  const ctxName = context ?? doc['current-context'];
  const ctx = (doc.contexts ?? []).find((c: any) => c.name === ctxName)?.context;
  if (!ctx) throw new Error(`kubeconfig ${path}: context "${ctxName}" not found`);
  const cluster = (doc.clusters ?? []).find((c: any) => c.name === ctx.cluster)?.cluster;
  const user = (doc.users ?? []).find((u: any) => u.name === ctx.user)?.user ?? {};
  if (!cluster?.server) throw new Error(`kubeconfig ${path}: cluster "${ctx.cluster}" has no server`);
  return {
    server: cluster.server.replace(/\/$/, ''),
    caPem: b64(cluster['certificate-authority-data']) ?? file(cluster['certificate-authority']),
    insecureSkipTLSVerify: !!cluster['insecure-skip-tls-verify'],
    certPem: b64(user['client-certificate-data']) ?? file(user['client-certificate']),
    keyPem: b64(user['client-key-data']) ?? file(user['client-key']),
    token: user.token ?? (user.tokenFile ? readFileSync(local(user.tokenFile)!, 'utf8').trim() : undefined),
  };
}
