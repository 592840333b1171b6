/**
 * One "pod" of the NetworkPolicy matrix (netpol-netns.ts starts it inside the
 * pod's network namespace): it serves TCP 80 and 81 (each connection echoes
 * lines) and UDP 53, 80 and 81 (each datagram is answered), as upstream's
 * netpol e2e agnhost pods serve 80 and 81, and probes other pods on command.
 * stdin lines:
 *   `ID probe tcp|udp HOST PORT`  → {id, ok}: a TCP connection opens / a UDP answer comes within 1 s
 *   `ID hold HOST PORT`           → {id, ok}: opens a TCP connection and keeps it
 *   `ID ping`                     → {id, ok}: a line sent on the held connection comes back within 1 s
 *   `ID get HOST PORT [PATH]`     → {id, ok, text}: an HTTP GET of PATH (default /) answered within 1 s, its body's last line
 * `serve --udp-only`: the TCP ports are served by the pod's own container
 * (netpol-cri.test.ts enters a containerd pod's network namespace), so only
 * UDP is served here.
 */
import net from 'node:net';
import dgram from 'node:dgram';
import { createInterface } from 'node:readline';

// `node --test dist/test/` runs every .js file under a test/ folder; netpol-netns.ts passes `serve`.
if (process.argv[2] !== 'serve') process.exit(0);

const timeoutMs = 1000;
const servers: Promise<void>[] = [];
for (const port of process.argv[3] === '--udp-only' ? [] : [80, 81]) {
  const srv = net.createServer((s) => { s.on('error', () => undefined); s.pipe(s); });
  servers.push(new Promise((r) => srv.listen(port, '0.0.0.0', () => r())));
}
for (const port of [53, 80, 81]) {
  const sock = dgram.createSocket('udp4');
  sock.on('message', (msg, rinfo) => sock.send(msg, rinfo.port, rinfo.address));
  servers.push(new Promise((r) => sock.bind(port, '0.0.0.0', () => r())));
}

function probeTCP(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = net.connect({ host, port, timeout: timeoutMs });
    s.once('connect', () => { s.destroy(); resolve(true); });
    s.once('timeout', () => { s.destroy(); resolve(false); });
    s.once('error', () => resolve(false));
  });
}

function probeUDP(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const sock = dgram.createSocket('udp4');
    const done = (ok: boolean) => { clearTimeout(timer); sock.close(); resolve(ok); };
    const timer = setTimeout(() => done(false), timeoutMs);
    sock.once('message', () => done(true));
    sock.once('error', () => done(false));
    sock.send('ping', port, host);
  });
}

function get(host: string, port: number, path = '/'): Promise<string | undefined> {
  return new Promise((resolve) => {
    let body = '';
    const s = net.connect({ host, port, timeout: timeoutMs });
    s.once('connect', () => s.write(`GET ${path} HTTP/1.0\r\n\r\n`)); // not end(): a half-close may cut a CGI short
    s.on('data', (d) => { body += d; });
    s.once('end', () => resolve(body.trim().split('\n').pop()));
    s.once('timeout', () => { s.destroy(); resolve(undefined); });
    s.once('error', () => resolve(undefined));
  });
}

let held: net.Socket | undefined;
function hold(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = net.connect({ host, port, timeout: timeoutMs });
    s.once('connect', () => { s.setTimeout(0); held = s; resolve(true); });
    s.once('timeout', () => { s.destroy(); resolve(false); });
    s.on('error', () => resolve(false));
  });
}

function ping(): Promise<boolean> {
  const s = held;
  if (!s || s.destroyed) return Promise.resolve(false);
  return new Promise((resolve) => {
    const timer = setTimeout(() => { s.off('data', onData); resolve(false); }, timeoutMs);
    const onData = () => { clearTimeout(timer); s.off('data', onData); resolve(true); };
    s.on('data', onData);
    s.write('ping\n');
  });
}

await Promise.all(servers);
process.stdout.write(JSON.stringify({ id: 'ready' }) + '\n');
createInterface({ input: process.stdin }).on('line', async (line) => {
  const [id, cmd, a, b, c] = line.trim().split(/\s+/);
  let ok = false;
  let text: string | undefined;
  if (cmd === 'get') ok = (text = await get(a!, Number(b), c)) !== undefined;
  else if (cmd === 'probe') ok = a === 'udp' ? await probeUDP(b!, Number(c)) : await probeTCP(b!, Number(c));
  else if (cmd === 'hold') ok = await hold(a!, Number(b));
  else if (cmd === 'ping') ok = await ping();
  process.stdout.write(JSON.stringify({ id, ok, text }) + '\n');
}).on('close', () => process.exit(0));
