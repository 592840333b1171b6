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

export async function containerConnect(d: ContainerFilesDeps, host: string, port: number): Promise<Duplex | undefined> {
  const hostname = d.pod.spec?.hostname ?? d.pod.metadata?.name ?? '';
  const base: ContainerView = { env: new Map(), hostname, workingDir: '/', readFile: () => undefined, listDir: () => undefined, refresh: async () => {} };
  const view = await withContainerFiles(base, d);
  return view.connect!(host, port);
}
