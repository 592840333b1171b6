/**
 * GET pods/{name}/log (upstream's LogREST.Get and pod.LogLocation):
 *
 *  1. The query decodes as PodLogOptions (400 when it does not) and
 *     validates (422 `PodLogOptions "x" is invalid: ...`).
 *  2. The pod must exist; the container must be named unless the pod has
 *     exactly one, and must be one of the pod's (400, upstream's words).
 *  3. A pod not yet on a node has no log: 204 and no body (upstream's empty
 *     location), which kubectl prints as nothing.
 *  4. Otherwise the request goes to the node's kubelet,
 *     /containerLogs/{ns}/{pod}/{container}, with the options it was given;
 *     a kubelet error is passed on (kubelet-client/response.ts), a success streams
 *     through as text/plain, flushed as it comes, for as long as the kubelet
 *     and the client keep it open (log requests have no deadline).
 */
import type { Pod } from 'kubernetes-types/core/v1.js';
import { invalidObject } from '../../api/status.js';
import { kubeletLogQuery, parsePodLogQuery, streamContainer, validatePodLogQuery } from '../../api/podlogs.js';
import type { KubeletClient } from '../kubelet-client/client.js';
import { checkKubeletResponse } from '../kubelet-client/response.js';
import type { HandlerContext } from './context.js';

export async function handlePodLog(ctx: HandlerContext, kubelet: KubeletClient): Promise<void> {
  const { info, res, req } = ctx;
  req.resume();
  const name = info.name!;
  const opts = parsePodLogQuery(ctx.url.searchParams);
  const errs = validatePodLogQuery(opts);
  if (errs.length) throw invalidObject('PodLogOptions', '', name, errs);
  const pod: Pod = await ctx.store.get(info.namespace, name);
  const container = streamContainer(pod, opts.container);
  const nodeName = pod.spec?.nodeName;
  if (!nodeName) { res.writeHead(204); res.end(); return; }
  const endpoint = await kubelet.endpoint(nodeName);
  const query = kubeletLogQuery(opts).toString();
  const path = `/containerLogs/${encodeURIComponent(pod.metadata!.namespace!)}/${encodeURIComponent(pod.metadata!.name!)}/${encodeURIComponent(container)}${query ? `?${query}` : ''}`;
  const abort = new AbortController();
  res.once('close', () => abort.abort());
  let upstream;
  try {
    upstream = await kubelet.request({ endpoint, method: 'GET', path, insecureSkipTLSVerify: opts.insecureSkipTLSVerifyBackend, signal: abort.signal });
  } catch (e) {
    if (abort.signal.aborted) return; // the client went away first: nobody to answer
    throw e;
  }
  const failed = await checkKubeletResponse(upstream, 'pods/log', name);
  if (failed) throw failed;
  res.writeHead(200, { 'Content-Type': 'text/plain', 'Cache-Control': 'no-cache, private' });
  res.flushHeaders();
  upstream.on('error', () => res.destroy());
  upstream.pipe(res);
}
