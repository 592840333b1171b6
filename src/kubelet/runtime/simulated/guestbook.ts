/**
 * The guestbook tutorial's frontend (gb-frontend: Apache with PHP on 80):
 * `/` is the guestbook's page; `/guestbook.php?cmd=set&key=K&value=V`
 * writes the key to `redis-leader:6379` and answers `{"message":
 * "Updated"}`; `?cmd=get&key=K` reads it from `redis-follower:6379` and
 * answers `{"data": "V"}` (its guestbook.php; with GET_HOSTS_FROM=env it
 * reads REDIS_LEADER_SERVICE_HOST / REDIS_FOLLOWER_SERVICE_HOST instead).
 * The names are resolved and routed from the frontend's pod as its PHP
 * would (container-connect.ts). A redis that is not reached is Predis's
 * uncaught ConnectionException, printed as PHP prints a fatal error with
 * display_errors on. The page is a stand-in for the image's (same title,
 * heading and form), not its bytes (nor its controllers.js); its script
 * makes the guestbook.php requests above.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ImageListener, ListenerContext } from './listeners.js';
import { redisCall } from './redis.js';

const apache = 'Apache/2.4.38 (Debian)';

/** A page of k8ts's own with the image's title, heading and form; its script talks to guestbook.php as the image's does. */
const page = `<html>
  <head>
    <title>Guestbook</title>
  </head>
  <body>
    <div style="width: 50%; margin-left: 20px">
      <h2>Guestbook</h2>
      <form id="entry">
        <input id="msg" placeholder="Messages" type="text" name="input"><br>
        <button type="submit">Submit</button>
      </form>
      <div id="messages"></div>
    </div>
    <script>
      var messages = [];
      function show() { document.getElementById('messages').innerHTML = messages.map(function (m) { return '<div>' + m.replace(/</g, '&lt;') + '</div>'; }).join(''); }
      fetch('guestbook.php?cmd=get&key=messages').then(function (r) { return r.json(); }).then(function (d) { messages = d.data ? d.data.split(',') : []; show(); });
      document.getElementById('entry').onsubmit = function (e) {
        e.preventDefault();
        messages.push(document.getElementById('msg').value);
        document.getElementById('msg').value = '';
        fetch('guestbook.php?cmd=set&key=messages&value=' + encodeURIComponent(messages.join())).then(show);
      };
    </script>
  </body>
</html>
`;

function send(req: IncomingMessage, res: ServerResponse, status: number, type: string, body: string): void {
  res.writeHead(status, { Server: apache, 'Content-Type': type, 'Content-Length': Buffer.byteLength(body) });
  res.end(req.method === 'HEAD' ? undefined : body);
}

function notFound(req: IncomingMessage, res: ServerResponse, path: string): void {
  send(req, res, 404, 'text/html; charset=iso-8859-1', `<!DOCTYPE HTML PUBLIC "-//IETF//DTD HTML 2.0//EN">\n<html><head>\n<title>404 Not Found</title>\n</head><body>\n<h1>Not Found</h1>\n<p>The requested URL ${path} was not found on this server.</p>\n<hr>\n<address>${apache} Server at ${req.headers.host?.split(':')[0] ?? 'localhost'} Port 80</address>\n</body></html>\n`);
}

/** guestbook.php: one redis command to the leader (set) or a follower (get). */
async function guestbookPHP(req: IncomingMessage, res: ServerResponse, ctx: ListenerContext, query: URLSearchParams): Promise<void> {
  const fromEnv = ctx.env.get('GET_HOSTS_FROM') === 'env';
  const set = query.get('cmd') === 'set';
  const host = set ? (fromEnv ? ctx.env.get('REDIS_LEADER_SERVICE_HOST') ?? '' : 'redis-leader') : (fromEnv ? ctx.env.get('REDIS_FOLLOWER_SERVICE_HOST') ?? '' : 'redis-follower');
  const socket = await ctx.connect?.(host, 6379).catch(() => undefined);
  const key = query.get('key') ?? '';
  const reply = socket ? await redisCall(socket, set ? ['SET', key, query.get('value') ?? ''] : ['GET', key]) : undefined;
  if (!reply) {
    const why = socket ? 'Connection refused' : 'php_network_getaddresses: getaddrinfo failed: Name or service not known';
    send(req, res, 200, 'application/json', `<br />\n<b>Fatal error</b>:  Uncaught Predis\\Connection\\ConnectionException: ${why} [tcp://${host}:6379]<br />\n`);
    return;
  }
  if (set) send(req, res, 200, 'application/json', '{"message": "Updated"}');
  else send(req, res, 200, 'application/json', `{"data": "${'bulk' in reply ? reply.bulk ?? '' : ''}"}`);
}

export const guestbookFrontendListener: ImageListener = {
  ports: () => [80],
  respond: (req, res, ctx) => {
    const url = new URL(req.url ?? '/', 'http://frontend');
    switch (url.pathname) {
      case '/':
      case '/index.html': send(req, res, 200, 'text/html', page); return;
      case '/guestbook.php':
        if (url.searchParams.has('cmd')) { void guestbookPHP(req, res, ctx, url.searchParams).catch(() => res.destroy()); return; }
        // Without cmd the script calls phpinfo(): not simulated beyond its title.
        send(req, res, 200, 'text/html; charset=UTF-8', '<!DOCTYPE html>\n<html><head><title>PHP 5.6.40 - phpinfo()</title></head><body></body></html>\n');
        return;
      default: notFound(req, res, url.pathname);
    }
  },
};
