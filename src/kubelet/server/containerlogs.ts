/**
 * GET /containerLogs/{namespace}/{pod}/{container} (the kubelet server's
 * getContainerLogs), answering in upstream's words and codes:
 *
 *  1. Missing path parts: 400 with upstream's JSON-looking message.
 *  2. `tail` is the old name of tailLines ("all" means unset). A query that
 *     does not decode: 400 "Unable to decode query."; one that does not
 *     validate: 422 "Invalid request.".
 *  3. Unknown pod or container: 404.
 *  4. The container instance comes from the pod status (logstatus.ts); no
 *     log to read is a 400 with the reason.
 *  5. 200, chunked, streamed as the runtime reads it; a follower's stream
 *     ends when the container stops or the client goes away.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Container } from 'kubernetes-types/core/v1.js';
import { parsePodLogQuery, validatePodLogQuery, type PodLogQuery } from '../../api/podlogs.js';
import type { Logger } from '../../util/log.js';
import type { ContainerLogOptions } from '../logs/options.js';
import type { KubeletHost } from './host.js';
import { containerForLogs } from './logstatus.js';
import { writeText } from './respond.js';

export function serveContainerLogs(host: KubeletHost, logger: Logger, req: IncomingMessage, res: ServerResponse, url: URL, parts: string[]): void {
  const [namespace, podName, container] = parts.map((p) => decodeURIComponent(p));
  if (!podName) return writeText(res, 400, '{"message": "Missing podID."}');
  if (!container) return writeText(res, 400, '{"message": "Missing container name."}');
  if (!namespace) return writeText(res, 400, '{"message": "Missing podNamespace."}');
  const query = new URLSearchParams(url.search);
  const tail = query.get('tail');
  if (tail) { if (tail === 'all') query.delete('tailLines'); else query.set('tailLines', tail); }
  let opts: PodLogQuery;
  try {
    opts = parsePodLogQuery(query);
  } catch {
    return writeText(res, 400, '{"message": "Unable to decode query."}');
  }
  if (validatePodLogQuery(opts).length) return writeText(res, 422, '{"message": "Invalid request."}');
  const pod = host.podByName(namespace, podName);
  if (!pod) return writeText(res, 404, `pod ${JSON.stringify(podName)} does not exist`);
  const specs: Container[] = [...(pod.spec?.initContainers ?? []), ...(pod.spec?.containers ?? []), ...((pod.spec?.ephemeralContainers ?? []) as Container[])];
  if (!specs.some((c) => c.name === container)) return writeText(res, 404, `container ${JSON.stringify(container)} not found in pod ${JSON.stringify(podName)}`);
  const which = containerForLogs(podName, host.podStatus(pod) ?? pod.status, container, opts.previous);
  if ('error' in which) return writeText(res, 400, which.error);
  if (!host.runtime.readLogs) return writeText(res, 400, `the ${host.runtime.type} container runtime does not serve container logs`);
  let stream;
  try {
    stream = host.runtime.readLogs(pod.metadata!.uid!, which.containerID, runtimeOptions(opts, new Date()));
  } catch (e) {
    return writeText(res, 400, (e as Error).message);
  }
  res.writeHead(200, { 'Content-Type': 'text/plain; charset=utf-8', 'Transfer-Encoding': 'chunked', 'X-Content-Type-Options': 'nosniff' });
  res.flushHeaders();
  stream.on('error', (e) => { logger.warn('reading container log failed', { pod: `${namespace}/${podName}`, container, err: e.message }); res.destroy(); });
  res.on('close', () => stream.destroy());
  stream.pipe(res);
}

/** PodLogOptions as a runtime reads them: one `since`, plain numbers. */
export function runtimeOptions(o: PodLogQuery, now: Date): ContainerLogOptions {
  const since = o.sinceTime ?? (o.sinceSeconds !== undefined ? new Date(now.getTime() - Number(o.sinceSeconds) * 1000) : undefined);
  return {
    follow: o.follow, timestamps: o.timestamps, since,
    tailLines: o.tailLines === undefined ? undefined : Number(o.tailLines),
    limitBytes: o.limitBytes === undefined ? undefined : Number(o.limitBytes),
  };
}
