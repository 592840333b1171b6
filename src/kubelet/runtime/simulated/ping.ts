/**
 * busybox's `ping` applet in the simulated shell (networking/ping.c), for the
 * Job with Pod-to-Pod Communication page, whose pods run
 * `ping -c 1 example-job-${i}.headless-svc` in bash:latest (Alpine: busybox's
 * ping) until each of the Job's pods answers:
 *
 *     PING example-job-1.headless-svc (10.244.2.4): 56 data bytes
 *     64 bytes from 10.244.2.4: seq=0 ttl=64 time=0.080 ms
 *
 *     --- example-job-1.headless-svc ping statistics ---
 *     1 packets transmitted, 1 packets received, 0% packet loss
 *     round-trip min/avg/max = 0.080/0.080/0.080 ms
 *
 * The name resolves as the container's libc resolves it (nslookup.ts: the pod's
 * /etc/hosts, then the cluster's records through its search path); a name that
 * does not resolve — a pod of the Job not yet there, so no record behind the
 * headless Service — is `ping: bad address 'NAME'`, exit 1. An address that
 * resolves answers: every simulated pod is on the pod network (no ICMP
 * filtering is simulated). One echo a second, as busybox sends them, until
 * `-c COUNT` were sent (without -c: until the container stops).
 */
import { resolveHost } from './nslookup.js';
import type { ShellContext } from './shell.js';

type Out = (stream: 'stdout' | 'stderr', text: string) => void;

/** What ping's options ask for; a message for what busybox would refuse. */
function parseArgs(args: string[]): { host: string; count: number } | { usage: string } {
  let count = Infinity;
  let host: string | undefined;
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    const joined = /^-c(\d+)$/.exec(a);
    if (joined) { count = Number(joined[1]); continue; }
    if (a === '-c') {
      const n = Number(args[++i]);
      if (!Number.isInteger(n) || n < 1) return { usage: `ping: invalid number '${args[i] ?? ''}'\n` };
      count = n;
      continue;
    }
    // Options that take a value (-W timeout, -w deadline, -s size, -I iface, -t ttl): taken, not simulated.
    if (['-W', '-w', '-s', '-I', '-t', '-i'].includes(a)) { i++; continue; }
    if (a.startsWith('-')) continue;
    host = a;
  }
  return host === undefined ? { usage: 'BusyBox v1.37.0 multi-call binary.\n\nUsage: ping [OPTIONS] HOST\n' } : { host, count };
}

/** ping [-c COUNT] HOST: an echo a second and its reply, then the statistics. */
export async function ping(args: string[], ctx: ShellContext, out: Out): Promise<number> {
  const parsed = parseArgs(args);
  if ('usage' in parsed) { out('stderr', parsed.usage); return 1; }
  const { host, count } = parsed;
  const [address] = await resolveHost(host, ctx, () => ctx.dns?.() ?? Promise.reject(new Error('no resolver')));
  if (address === undefined) { out('stderr', `ping: bad address '${host}'\n`); return 1; }
  out('stdout', `PING ${host} (${address}): 56 data bytes\n`);
  let sent = 0;
  while (sent < count) {
    out('stdout', `64 bytes from ${address}: seq=${sent} ttl=64 time=0.080 ms\n`);
    sent++;
    if (sent < count && !(await ctx.sleep(1000))) break;
  }
  out('stdout', `\n--- ${host} ping statistics ---\n${sent} packets transmitted, ${sent} packets received, 0% packet loss\nround-trip min/avg/max = 0.080/0.080/0.080 ms\n`);
  return 0;
}

/** Images whose ping is busybox's: busybox's and Alpine's, and bash's official image (built on Alpine). */
export const hasBusyboxPing = (image: string | undefined, busyboxBased: boolean) =>
  busyboxBased || /(^|\/)bash(:|@|$)/.test(image ?? '');
