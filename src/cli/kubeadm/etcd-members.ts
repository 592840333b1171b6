/**
 * Stacked etcd membership, as kubeadm's etcdutil does it for join
 * --control-plane and reset (cmd/kubeadm/app/util/etcd):
 * - the cluster's etcd endpoints come from the etcd mirror pods' annotation
 *   kubeadm.kubernetes.io/etcd.advertise-client-urls (kubeadm's getEtcdEndpointsWithRetry);
 * - the client presents apiserver-etcd-client, trusted by etcd/ca (NewFromCluster);
 * - a joining member is added (MemberAdd) before its etcd starts, which then starts with
 *   --initial-cluster-state=existing and the cluster's members in --initial-cluster;
 * - reset removes this node's member by its peer URL, unless it is the last one.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Etcd3, type IMember } from 'etcd3';
import type { Pod } from 'kubernetes-types/core/v1.js';
import type { Clientset } from '../../client/index.js';

export const ETCD_ADVERTISE_CLIENT_URLS = 'kubeadm.kubernetes.io/etcd.advertise-client-urls';

/** The client URLs of every stacked etcd member that the cluster's etcd pods advertise. */
export async function etcdEndpointsFromCluster(clients: Clientset): Promise<string[]> {
  const list = await clients.resource('pods').list('kube-system', { labelSelector: 'component=etcd,tier=control-plane' });
  const urls = (list.items as Pod[]).map((p) => p.metadata?.annotations?.[ETCD_ADVERTISE_CLIENT_URLS]).filter((u): u is string => !!u);
  if (urls.length === 0) throw new Error(`could not retrieve the list of etcd endpoints: no etcd Pod in the "kube-system" Namespace has the annotation ${ETCD_ADVERTISE_CLIENT_URLS}`);
  return [...new Set(urls.flatMap((u) => u.split(',')))];
}

/** A client for etcd's cluster API with the API server's etcd client pair under certDir. */
export function openEtcdMembersClient(endpoints: string[], certDir: string): Etcd3 {
  return new Etcd3({
    hosts: endpoints,
    credentials: {
      rootCertificate: readFileSync(join(certDir, 'etcd/ca.crt')),
      certChain: readFileSync(join(certDir, 'apiserver-etcd-client.crt')),
      privateKey: readFileSync(join(certDir, 'apiserver-etcd-client.key')),
    },
    // A dead member must not hold a call for long: the client moves on to the next host.
    dialTimeout: 5_000,
    defaultCallOptions: (ctx) => (ctx.isStream ? {} : { deadline: Date.now() + 10_000 }),
  });
}

/** etcd's --initial-cluster for a member joining `members`: NAME=PEER for the started ones, and itself. */
export function initialCluster(members: IMember[], name: string, peerURL: string): string {
  const others = members.filter((m) => m.name && !m.peerURLs.includes(peerURL)).map((m) => `${m.name}=${m.peerURLs[0]}`);
  return [...others, `${name}=${peerURL}`].join(',');
}

/** kubeadm's EtcdAPICallRetryInterval and EtcdAPICallTimeout: how member calls are retried. */
const etcdAPICallRetry = { intervalMs: 500, timeoutMs: 120_000 };

/**
 * MemberAdd for `peerURL` (kubeadm's AddMember): when a member with that peer URL exists already
 * (a join that was retried), it is reused. Returns the --initial-cluster for the new member.
 * As kubeadm, a refused call is retried every 500 ms for up to two minutes: etcd answers
 * "unhealthy cluster" while a member that joined moments ago is not yet counted active (two
 * control planes joining one after the other).
 */
export async function addEtcdMember(client: Etcd3, name: string, peerURL: string, retry = etcdAPICallRetry): Promise<string> {
  const deadline = Date.now() + retry.timeoutMs;
  for (;;) {
    try {
      const existing = (await client.cluster.memberList({})).members;
      if (existing.some((m) => m.peerURLs.includes(peerURL))) return initialCluster(existing, name, peerURL);
      const res = await client.cluster.memberAdd({ peerURLs: [peerURL] });
      return initialCluster(res.members, name, peerURL);
    } catch (e) {
      if (Date.now() + retry.intervalMs > deadline) throw e;
      await new Promise((r) => setTimeout(r, retry.intervalMs));
    }
  }
}

/** Whether the member with `peerURL` has started (etcd names a member once it has joined). */
export async function etcdMemberStarted(client: Etcd3, peerURL: string): Promise<boolean> {
  const { members } = await client.cluster.memberList({});
  return members.some((m) => m.peerURLs.includes(peerURL) && m.name !== '');
}

export type RemoveResult = { removed: string } | { onlyMember: true } | { notFound: true };

/** MemberRemove of the member with `peerURL` (kubeadm's RemoveMember); the last member is left alone, as kubeadm does. */
export async function removeEtcdMember(client: Etcd3, peerURL: string, retry = etcdAPICallRetry): Promise<RemoveResult> {
  const { members } = await client.cluster.memberList({});
  const self = members.find((m) => m.peerURLs.includes(peerURL));
  if (!self) return { notFound: true };
  if (members.length === 1) return { onlyMember: true };
  // As kubeadm's RemoveMember: etcd refuses ("unhealthy cluster") while a member that joined
  // moments ago is not yet counted active, so the call is retried every 500 ms for up to
  // two minutes (EtcdAPICallRetryInterval, EtcdAPICallTimeout); a member already gone is done.
  const deadline = Date.now() + retry.timeoutMs;
  for (;;) {
    try {
      await client.cluster.memberRemove({ ID: self.ID });
      return { removed: self.ID };
    } catch (e) {
      if (/member not found/i.test((e as Error).message)) return { removed: self.ID };
      if (Date.now() + retry.intervalMs > deadline) throw e;
      await new Promise((r) => setTimeout(r, retry.intervalMs));
    }
  }
}
