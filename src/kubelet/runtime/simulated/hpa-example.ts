/**
 * registry.k8s.io/hpa-example, the HorizontalPodAutoscaler walkthrough's
 * image (php:5-apache with one index.php), as listeners.ts answers for it
 * on port 80:
 *
 *  1. `/` and `/index.php` answer `OK!` (its script loops over sqrt a
 *     million times first: the CPU that costs is the usage model's, see
 *     usage-profiles.ts, and the answer waits for it).
 *  2. Any other path is Apache's 404 page.
 * The headers are Apache's and PHP's as the image's Debian base sends
 * them, approximately (the versions are not checked against the image).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';

const server = 'Apache/2.4.10 (Debian)';

export const hpaExampleListener = {
  ports: () => [80],
  respond: (req: IncomingMessage, res: ServerResponse) => {
    const path = (req.url ?? '/').split('?')[0]!;
    if (path === '/' || path === '/index.php') {
      res.writeHead(200, { Server: server, 'X-Powered-By': 'PHP/5.6.40', 'Content-Length': 3, 'Content-Type': 'text/html' });
      res.end(req.method === 'HEAD' ? undefined : 'OK!');
      return;
    }
    const body = '<!DOCTYPE HTML PUBLIC "-//IETF//DTD HTML 2.0//EN">\n<html><head>\n<title>404 Not Found</title>\n</head><body>\n<h1>Not Found</h1>\n' +
      `<p>The requested URL ${path} was not found on this server.</p>\n<hr>\n<address>${server} Server at ${req.headers.host?.split(':')[0] ?? 'localhost'} Port 80</address>\n</body></html>\n`;
    res.writeHead(404, { Server: server, 'Content-Length': Buffer.byteLength(body), 'Content-Type': 'text/html; charset=iso-8859-1' });
    res.end(req.method === 'HEAD' ? undefined : body);
  },
};

/** The image's repositories (its old homes included). */
export const hpaExampleRepos = ['registry.k8s.io/hpa-example', 'k8s.gcr.io/hpa-example', 'gcr.io/google_containers/hpa-example'];
