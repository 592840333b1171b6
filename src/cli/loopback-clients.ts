/**
 * The control loops' way to their own process's API server: plain HTTP on a Unix socket
 * (ApiServer.listenLoopback) instead of HTTPS to its port. Both ends run in this process (the
 * loops on their worker thread, or on the serving thread in `k8ts up`), so TLS protects nothing
 * between them, and it cost each request's answer and each watch event an encryption on the
 * serving thread and a decryption on the loops', and each of their connections a handshake
 * (bench/RESULTS.md `ds9-2026-12-06`). Each component keeps its identity: the user and groups of
 * its client certificate, carried by a random token that lives only in this process's memory
 * (apiserver/auth/loopback.ts); RBAC, the fair queues and the audit of what it does are unchanged.
 * upstream's kube-apiserver gives its own loopback client a token as well, over TLS; its
 * controller manager and scheduler are other processes, as `k8ts controller-manager` still is here.
 *
 * The socket is in Linux's abstract namespace: no file to leave behind or to reach from another
 * network namespace; elsewhere the loops keep HTTPS.
 */
import { randomBytes } from 'node:crypto';
import type { ApiServer } from '../apiserver/server.js';
import { loopbackIdentities } from '../apiserver/auth/loopback.js';
import type { ClientCredentials } from './control-loops-thread.js';

export async function loopbackClients<K extends string>(server: ApiServer, clients: Record<K, ClientCredentials>): Promise<Record<K, ClientCredentials>> {
  if (process.platform !== 'linux') return clients;
  const identities = loopbackIdentities();
  const socketPath = `\0k8ts-apiserver-${process.pid}-${randomBytes(8).toString('hex')}`;
  await server.listenLoopback(socketPath, identities.authenticate);
  const out = {} as Record<K, ClientCredentials>;
  for (const name of Object.keys(clients) as K[]) {
    const c = clients[name];
    out[name] = { ...c, server: 'http://localhost', socketPath, token: identities.issue(c.certPem) };
  }
  return out;
}
