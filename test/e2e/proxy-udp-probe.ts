/**
 * One UDP exchange for the conntrack tests, run in the client namespace with
 * nsenter: `proxy-udp-probe.js HOST PORT SOURCE-PORT` binds SOURCE-PORT (the
 * same one every time, so the node's conntrack sees one flow), sends one
 * datagram and prints the answer (`NAME CLIENT-ADDRESS`), or `ERR:TIMEOUT`
 * after a second, or `ERR:<code>` (ECONNREFUSED: an ICMP port unreachable).
 */
import dgram from 'node:dgram';

const [host, port, sourcePort] = process.argv.slice(2);
// `node --test dist/test/` runs every .js file under a test/ folder; without arguments this is that run.
if (!host) process.exit(0);
const sock = dgram.createSocket('udp4');
const done = (line: string) => { process.stdout.write(`${line}\n`); sock.close(); };
const timer = setTimeout(() => done('ERR:TIMEOUT'), 1000);
sock.on('message', (m) => { clearTimeout(timer); done(m.toString().trim()); });
sock.on('error', (e: NodeJS.ErrnoException) => { clearTimeout(timer); done(`ERR:${e.code ?? e.message}`); });
sock.bind(Number(sourcePort), () => {
  // connect() makes the kernel report an ICMP error for this flow as ECONNREFUSED.
  sock.connect(Number(port), host, () => sock.send('ping'));
});
