/**
 * A Service backend for the kube-proxy tests: an HTTP server on 0.0.0.0:PORT
 * (in the backend's network namespace) answering `NAME CLIENT-ADDRESS`, so a
 * test sees which endpoint it reached and whether its source address was kept,
 * and a UDP echo on the same port answering each datagram the same way (the
 * UDP conntrack tests).
 */
import http from 'node:http';
import dgram from 'node:dgram';

const [name, port] = process.argv.slice(2);
// `node --test dist/test/` runs every .js file under a test/ folder; without its arguments this
// is that run, not a backend, so it must end instead of serving forever.
if (!name) process.exit(0);
const udp = dgram.createSocket('udp4');
udp.on('message', (_msg, rinfo) => { udp.send(`${name} ${rinfo.address}\n`, rinfo.port, rinfo.address); });
udp.bind(Number(port ?? 8080), '0.0.0.0', () => {
  http.createServer((req, res) => { res.end(`${name} ${req.socket.remoteAddress}\n`); })
    .listen(Number(port ?? 8080), '0.0.0.0', () => process.stdout.write('listening\n'));
});
