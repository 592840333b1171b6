/**
 * A port for a test's child process to listen on.
 *
 * bind(0) then close answers "a port nothing listens on right now", but the
 * kernel hands out the same ephemeral range (32768-60999 by default) to every
 * outgoing connection, so between the check and the child's bind another
 * test's connection can take the port and the child fails with EADDRINUSE (a
 * flake seen under load). Ports here are picked at random below that range,
 * where no connection takes its local port, checked free on every address,
 * and never handed out twice by one test process.
 */
import { createServer } from 'node:net';
import { readFileSync } from 'node:fs';

const given = new Set<number>();

function ephemeralLow(): number {
  try {
    return Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]) || 32768;
  } catch {
    return 32768;
  }
}

function canListen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = createServer();
    s.once('error', () => resolve(false));
    // The wildcard address: in use on any address (127.0.0.1, 127.0.0.2 ...) makes this fail.
    s.listen({ port, host: '0.0.0.0', exclusive: true }, () => s.close(() => resolve(true)));
  });
}

export async function freePort(): Promise<number> {
  const low = 10_000;
  const high = ephemeralLow();
  if (high - low >= 1_000) {
    for (let i = 0; i < 500; i++) {
      const port = low + Math.floor(Math.random() * (high - low));
      if (given.has(port)) continue;
      given.add(port);
      if (await canListen(port)) return port;
    }
  }
  // No room below the ephemeral range on this host: the kernel's choice, as before.
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}
