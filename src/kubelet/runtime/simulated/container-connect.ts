/**
 * A TCP connection from inside a simulated container (what an image's
 * server dials: the guestbook's PHP to `redis-leader:6379`, WordPress to
 * `WORDPRESS_DB_HOST`): the name resolved as the container's libc would
 * (/etc/hosts, then the cluster DNS through the pod's resolv.conf), its own
 * pod's ports through the runtime's dialPort, another simulated pod or a
 * Service's endpoint as pod-network.ts routes curl's requests. A name that
 * does not resolve, or an address no simulated pod holds, is not reached
 * (undefined); a port nobody listens on gives a connection that fails with
 * ECONNREFUSED, as the runtime's dialPort does.
 */
import type { Duplex } from 'node:stream';
import type { ContainerView } from './program.js';
import { withContainerFiles, type ContainerFilesDeps } from './container-files.js';
import { podReach } from './pod-network.js';
import { processPodNetwork } from './cluster-network.js';
import { resolveHost } from './nslookup.js';

export async function containerConnect(d: ContainerFilesDeps, host: string, port: number): Promise<Duplex | undefined> {
  const hostname = d.pod.spec?.hostname ?? d.pod.metadata?.name ?? '';
  const base: ContainerView = { env: new Map(), hostname, workingDir: '/', readFile: () => undefined, listDir: () => undefined, refresh: async () => {} };
  const view = await withContainerFiles(base, d);
  const own = new Set(['localhost', '127.0.0.1', d.podIP, hostname].filter((h): h is string => !!h).map((h) => h.toLowerCase()));
  if (own.has(host.toLowerCase())) return d.dial(port);
  const addresses = await resolveHost(host, view, view.dns ?? (() => Promise.reject(new Error('no resolver'))));
  const address = addresses[0];
  if (!address) return undefined;
  if (own.has(address)) return d.dial(port);
  const dialer = await podReach(d.pod, d.objects, d.network ?? processPodNetwork)(address, host).catch(() => undefined);
  return dialer?.(port);
}
