/**
 * The WordPress and MySQL tutorial's servers:
 *
 *  - docker.io/library/mysql on 3306: greets each connection with the
 *    MySQL protocol's initial handshake (protocol 10, the tag's version)
 *    and speaks no further: no authentication, no SQL.
 *  - docker.io/library/wordpress (the apache variants) on 80: as a fresh
 *    install answers, once its database answers: `/` redirects (302) to
 *    `/wp-admin/install.php`, whose page is the installer's first step
 *    (a stand-in page with its title, not the real one); any other path
 *    redirects there too. It dials WORDPRESS_DB_HOST (`mysql` by default,
 *    `host:port` as the image reads it) for each request, from its pod
 *    (container-connect.ts): a database that does not answer gives
 *    WordPress's "Error establishing a database connection" page (500).
 *    The installation itself (the form's POST) is not simulated.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import type { ImageListener, ListenerContext } from './listeners.js';

const server = 'Apache/2.4.56 (Debian)';
const php = 'PHP/8.0.28';

/** The server's first packet (Protocol::HandshakeV10). */
export function mysqlHandshake(version: string, connectionID: number): Buffer {
  const auth = Buffer.from('k8tsSimulatedSalt012', 'latin1');
  const body = Buffer.concat([
    Buffer.from([10]), Buffer.from(`${version}\0`, 'latin1'), u32(connectionID), auth.subarray(0, 8), Buffer.from([0]),
    Buffer.from([0xff, 0xff]), Buffer.from([0xff]), Buffer.from([0x02, 0x00]), Buffer.from([0xff, 0xdf]), Buffer.from([21]),
    Buffer.alloc(10), auth.subarray(8, 20), Buffer.from([0]), Buffer.from('caching_sha2_password\0', 'latin1'),
  ]);
  const header = Buffer.from([body.length & 0xff, (body.length >> 8) & 0xff, (body.length >> 16) & 0xff, 0]);
  return Buffer.concat([header, body]);
}

function u32(n: number): Buffer {
  const b = Buffer.alloc(4);
  b.writeUInt32LE(n >>> 0);
  return b;
}

let connections = 8;

export function mysqlListener(tag: string): ImageListener {
  // A tag without a patch version is that line's last release.
  const version = /^\d+\.\d+\.\d+/.exec(tag)?.[0] ?? (tag.startsWith('5.6') ? '5.6.51' : tag.startsWith('5.7') ? '5.7.44' : '8.0.40');
  return {
    ports: () => [3306],
    serve: (socket: Duplex) => {
      socket.on('error', () => socket.destroy());
      socket.write(mysqlHandshake(version, connections++));
    },
  };
}

/** Whether the database answers: a connection that greets before it fails. */
async function databaseAnswers(ctx: ListenerContext): Promise<boolean> {
  const [host = 'mysql', port = '3306'] = (ctx.env.get('WORDPRESS_DB_HOST') ?? 'mysql').split(':');
  const socket = await ctx.connect?.(host, Number(port) || 3306).catch(() => undefined);
  if (!socket) return false;
  return new Promise<boolean>((resolve) => {
    const done = (ok: boolean) => { socket.removeAllListeners('data'); socket.destroy(); resolve(ok); };
    socket.once('data', () => done(true));
    socket.on('error', () => done(false));
    socket.on('close', () => done(false));
  });
}

function send(req: IncomingMessage, res: ServerResponse, status: number, headers: Record<string, string>, body: string): void {
  res.writeHead(status, { Server: server, 'X-Powered-By': php, 'Content-Length': String(Buffer.byteLength(body)), ...headers });
  res.end(req.method === 'HEAD' ? undefined : body);
}

const dbError = `<!DOCTYPE html>
<html dir='ltr'>
<head>
\t<meta http-equiv="Content-Type" content="text/html; charset=utf-8" />
\t<title>Database Error</title>
</head>
<body id="error-page">
\t<div class="wp-die-message"><h1>Error establishing a database connection</h1></div></body>
</html>
`;

const installer = `<!DOCTYPE html>
<html lang="en-US" xml:lang="en-US">
<head>
\t<meta http-equiv="Content-Type" content="text/html; charset=utf-8" />
\t<title>WordPress &rsaquo; Installation</title>
</head>
<body class="wp-core-ui language-chooser">
<p id="logo">WordPress</p>
<form id="setup" method="post" action="?step=1"><label class='screen-reader-text' for='language'>Select a default language</label>
<select size='14' name='language' id='language'>
<option value="" lang="en" selected="selected" data-continue="Continue" data-installed="1">English (United States)</option>
</select>
<p class="step"><span class="spinner"></span><input id="language-continue" type="submit" class="button button-primary button-large" value="Continue" /></p></form>
</body>
</html>
`;

export const wordpressListener: ImageListener = {
  ports: () => [80],
  respond: (req, res, ctx) => {
    void databaseAnswers(ctx).then((ok) => {
      if (!ok) { send(req, res, 500, { 'Content-Type': 'text/html; charset=utf-8' }, dbError); return; }
      const path = new URL(req.url ?? '/', 'http://wordpress').pathname;
      if (path === '/wp-admin/install.php') { send(req, res, 200, { 'Content-Type': 'text/html; charset=utf-8' }, installer); return; }
      const host = req.headers.host ?? 'localhost';
      send(req, res, 302, { 'Content-Type': 'text/html; charset=UTF-8', Location: `http://${host}/wp-admin/install.php` }, '');
    }, () => res.destroy());
  },
};
