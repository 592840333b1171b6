/**
 * The two images of the "Connect a Frontend to a Backend Using Services"
 * page, as in-process responders (listeners.ts):
 *
 *  - gcr.io/google-samples/hello-go-gke (the backend, port 80): a Go
 *    greeter whose every answer is `{"message":"Hello"}` (the page's curl
 *    output), Content-Type application/json;
 *  - gcr.io/google-samples/hello-frontend (the frontend, port 80): nginx
 *    with the page's frontend.conf, `proxy_pass http://hello;` for every
 *    path — the request goes, through the pod's network (pod-network.ts:
 *    the name resolved by the cluster DNS, the Service's cluster IP sent to
 *    a ready endpoint as kube-proxy would), to the `hello` Service of the
 *    pod's namespace, and its answer comes back with nginx's Server header.
 *    When the backend cannot be reached (no such Service, no ready
 *    endpoint) nginx answers its 502 Bad Gateway page; upstream's nginx
 *    would not even start while `hello` does not resolve, which is not
 *    simulated.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { HttpOutcome, HttpRequest } from './http-commands.js';

/** The responder shape of listeners.ts (kept structural so this file imports nothing back from it). */
export interface SampleListener {
  ports(env: Map<string, string>): number[];
  respond(req: IncomingMessage, res: ServerResponse, ctx: { files?(): Promise<{ http?(req: HttpRequest): Promise<HttpOutcome> }> }): void;
}

/** nginx 1.x as hello-frontend:1.0 was built on (its exact version is not known here). */
const frontendServer = 'nginx/1.27.3';

const helloGoGke: SampleListener = {
  ports: () => [80],
  respond: (req, res) => {
    const body = '{"message":"Hello"}';
    res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body) });
    res.end(req.method === 'HEAD' ? undefined : body);
  },
};

function badGateway(req: IncomingMessage, res: ServerResponse): void {
  const body = `<html>\r\n<head><title>502 Bad Gateway</title></head>\r\n<body>\r\n<center><h1>502 Bad Gateway</h1></center>\r\n<hr><center>${frontendServer}</center>\r\n</body>\r\n</html>\r\n`;
  res.writeHead(502, { Server: frontendServer, 'Content-Type': 'text/html', 'Content-Length': Buffer.byteLength(body) });
  res.end(req.method === 'HEAD' ? undefined : body);
}

/** Headers nginx's proxy module does not pass back as the upstream sent them. */
const hopByHop = new Set(['server', 'date', 'connection', 'keep-alive', 'transfer-encoding', 'content-length']);

const helloFrontend: SampleListener = {
  ports: () => [80],
  respond: (req, res, ctx) => {
    void (async () => {
      const files = await ctx.files?.().catch(() => undefined);
      // proxy_pass http://hello; — the upstream named in frontend.conf, port 80, the request's path.
      const outcome = await files?.http?.({ url: new URL(`http://hello${req.url ?? '/'}`), method: req.method ?? 'GET', headers: { Host: 'hello', Connection: 'close' } });
      if (!outcome || !('response' in outcome)) { badGateway(req, res); return; }
      const r = outcome.response;
      const headers: Record<string, string> = { Server: frontendServer };
      for (let i = 0; i < r.rawHeaders.length; i += 2) if (!hopByHop.has(r.rawHeaders[i]!.toLowerCase())) headers[r.rawHeaders[i]!] = r.rawHeaders[i + 1]!;
      headers['Content-Length'] = String(r.body.length);
      res.writeHead(r.status, headers);
      res.end(req.method === 'HEAD' ? undefined : r.body);
    })().catch(() => res.destroy());
  },
};

/** The listener of one of the page's images, by repository. */
export function sampleServiceListener(repo: string): SampleListener | undefined {
  switch (repo) {
    case 'gcr.io/google-samples/hello-go-gke': return helloGoGke;
    case 'gcr.io/google-samples/hello-frontend': return helloFrontend;
    default: return undefined;
  }
}
