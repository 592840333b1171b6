/**
 * What a few of the tutorials' images hold beyond what the kubelet gives
 * every container, as far as the tutorials look at it: the image's ENV
 * lines, files the pages `cat`, and what its entrypoint writes to stdout
 * (its log) when it starts and when it serves a request. No image is
 * unpacked: these are written out here, from the images' Dockerfiles and
 * sources, for the images the pages use and for nothing else.
 *
 * kubernetes-bootcamp (gcr.io/google-samples/kubernetes-bootcamp,
 * docker.io/jocatalin/kubernetes-bootcamp; "Kubernetes Basics"): `FROM
 * node:6.3.1`, `COPY server.js .`, `CMD node server.js`, so /server.js and
 * node's ENV NPM_CONFIG_LOGLEVEL and NODE_VERSION; server.js logs one line
 * when it listens and one per request, with console.log's spacing (its
 * arguments joined by a space, a Date as its ISO string in node 6).
 */
import { normalizeImage } from './images.js';
import { nginxStartLog, nginxStopLog } from './nginx-log.js';
import { redisStartLog } from './redis.js';
import { imageAccounts } from './image-accounts.js';

export interface ImageContents {
  /** The image's ENV, in its Dockerfile's order (the runtime puts it before the kubelet's variables). */
  env: [string, string][];
  /** Absolute path → content, in the image's root filesystem. */
  files: Map<string, string>;
  /** What the entrypoint writes when it starts (the container's log), in place of the simulated lifecycle lines. */
  startLog?(hostname: string, startedAt: Date): string;
  /** What the entrypoint writes when the kubelet stops it, in place of the simulated lifecycle lines. */
  stopLog?(stoppedAt: Date): string;
}

/** nginx's document root in its images (nginx, nginx-slim). */
export const nginxDocRoot = '/usr/share/nginx/html';

/** The nginx images' stock index.html (the responder serves it as the image's, listeners.ts). */
export const nginxWelcomePage = `<!DOCTYPE html>
<html>
<head>
<title>Welcome to nginx!</title>
<style>
html { color-scheme: light dark; }
body { width: 35em; margin: 0 auto;
font-family: Tahoma, Verdana, Arial, sans-serif; }
</style>
</head>
<body>
<h1>Welcome to nginx!</h1>
<p>If you see this page, the nginx web server is successfully installed and
working. Further configuration is required.</p>

<p>For online documentation and support please refer to
<a href="http://nginx.org/">nginx.org</a>.<br/>
Commercial support is available at
<a href="http://nginx.com/">nginx.com</a>.</p>

<p><em>Thank you for using nginx.</em></p>
</body>
</html>
`;

/** nginx's stock error page, beside index.html in the image's document root. */
export const nginx50xPage = `<!DOCTYPE html>
<html>
<head>
<title>Error</title>
<style>
html { color-scheme: light dark; }
body { width: 35em; margin: 0 auto;
font-family: Tahoma, Verdana, Arial, sans-serif; }
</style>
</head>
<body>
<h1>An error occurred.</h1>
<p>Sorry, the page you are looking for is currently unavailable.<br/>
Please try again later.</p>
<p>If you are the system administrator of this resource then you should check
the error log for details.</p>
<p><em>Faithfully yours, nginx.</em></p>
</body>
</html>
`;

/** The official image's /etc/nginx/nginx.conf (docker-nginx's, since 1.25). */
const nginxConf = `
user  nginx;
worker_processes  auto;

error_log  /var/log/nginx/error.log notice;
pid        /var/run/nginx.pid;


events {
    worker_connections  1024;
}


http {
    include       /etc/nginx/mime.types;
    default_type  application/octet-stream;

    log_format  main  '$remote_addr - $remote_user [$time_local] "$request" '
                      '$status $body_bytes_sent "$http_referer" '
                      '"$http_user_agent" "$http_x_forwarded_for"';

    access_log  /var/log/nginx/access.log  main;

    sendfile        on;
    #tcp_nopush     on;

    keepalive_timeout  65;

    #gzip  on;

    include /etc/nginx/conf.d/*.conf;
}
`;

const nginxRepos = new Set(['docker.io/library/nginx', 'registry.k8s.io/nginx-slim', 'k8s.gcr.io/nginx-slim', 'gcr.io/google_containers/nginx-slim']);

const bootcampRepos = new Set(['gcr.io/google-samples/kubernetes-bootcamp', 'docker.io/jocatalin/kubernetes-bootcamp']);

/** The repository and the tag of an image reference, normalized (docker.io/library/nginx, latest). */
export function repoAndTag(image: string): { repo: string; tag: string } {
  const full = normalizeImage(image);
  const at = full.indexOf('@');
  const ref = at < 0 ? full : full.slice(0, at);
  const colon = ref.lastIndexOf(':');
  return colon > ref.lastIndexOf('/') ? { repo: ref.slice(0, colon), tag: ref.slice(colon + 1) } : { repo: ref, tag: 'latest' };
}

/** The app version kubernetes-bootcamp's tag names (v2 → 2; 1 for any other tag). */
export function bootcampVersion(tag: string): string {
  return /^v?(\d+)(?:\.\d+)*$/.exec(tag)?.[1] ?? '1';
}

/** kubernetes-bootcamp's server.js, with the version its tag answers (`| v=N`). */
export const bootcampServerJS = (version: string) => `var http = require('http');
var requests=0;
var podname= process.env.HOSTNAME;
var startTime;
var host;
var handleRequest = function(request, response) {
  response.setHeader('Content-Type', 'text/plain');
  response.writeHead(200);
  response.write("Hello Kubernetes bootcamp! | Running on: ");
  response.write(host);
  response.end(" | v=${version}\\n");
  console.log("Running On:" ,host, "| Total Requests:", ++requests,"| App Uptime:", (new Date() - startTime)/1000 , "seconds", "| Log Time:",new Date());
}
var www = http.createServer(handleRequest);
www.listen(8080,function () {
    startTime = new Date();;
    host = process.env.HOSTNAME;
    console.log ("Kubernetes Bootcamp App Started At:",startTime, "| Running On: " ,host, "\\n" );
});
`;

/** server.js's line when it listens: console.log's arguments joined by spaces, the last one a newline of its own. */
export const bootcampStartLog = (hostname: string, startedAt: Date) =>
  `Kubernetes Bootcamp App Started At: ${startedAt.toISOString()} | Running On:  ${hostname} \n\n`;

/** server.js's line per request: the count so far, the seconds since it listened (a JS number), the time. */
export const bootcampRequestLog = (hostname: string, requests: number, startedAt: Date, now: Date) =>
  `Running On: ${hostname} | Total Requests: ${requests} | App Uptime: ${(now.getTime() - startedAt.getTime()) / 1000} seconds | Log Time: ${now.toISOString()}\n`;

/** What the simulation knows of `image`'s contents, or undefined for an image it knows nothing of. */
export function imageContents(image: string): ImageContents | undefined {
  const { repo, tag } = repoAndTag(image);
  if (bootcampRepos.has(repo)) {
    return {
      env: [['NPM_CONFIG_LOGLEVEL', 'info'], ['NODE_VERSION', '6.3.1']],
      files: new Map([['/server.js', bootcampServerJS(bootcampVersion(tag))]]),
      startLog: bootcampStartLog,
    };
  }
  if (nginxRepos.has(repo)) {
    const official = repo === 'docker.io/library/nginx';
    const startLog = official ? (_hostname: string, at: Date) => nginxStartLog(tag, at) : undefined;
    const stopLog = official ? (at: Date) => nginxStopLog(tag, at) : undefined;
    const files = new Map([[`${nginxDocRoot}/50x.html`, nginx50xPage], [`${nginxDocRoot}/index.html`, nginxWelcomePage]]);
    if (official) files.set('/etc/nginx/nginx.conf', nginxConf);
    return { env: [], files, startLog, stopLog };
  }
  if (repo === 'docker.io/library/redis' && /^\d+\.\d+\.\d+$/.test(tag)) return { env: [], files: new Map(), startLog: (_host, startedAt) => redisStartLog(tag, startedAt) };
  if (nginxRepos.has(repo)) return { env: [], files: new Map([[`${nginxDocRoot}/50x.html`, nginx50xPage], [`${nginxDocRoot}/index.html`, nginxWelcomePage]]) };
  const accounts = imageAccounts(image);
  if (accounts) return { env: [], files: new Map([['/etc/passwd', accounts.passwd], ['/etc/group', accounts.group]]) };
  return undefined;
}
