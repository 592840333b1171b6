/**
 * Upstream's netpol e2e "probe all pods against all pods": each pod of the
 * 3×3 grid probes every pod with a real TCP or UDP exchange, and the
 * observed truth table must equal the expected one. A pod reaching itself
 * goes through its own loopback, never through a node, so the diagonal is
 * always reachable (as in upstream's tables).
 */
import assert from 'node:assert/strict';
import type { Pod } from 'kubernetes-types/core/v1.js';
import type { NetworkPolicy } from 'kubernetes-types/networking/v1.js';
import { grid, podAddress, type NetpolRoom } from './netpol-netns.js';

export type Expect = (from: string, to: string) => boolean;
export const ns = (id: string) => id.split('/')[0]!;
export const pod = (id: string) => id.split('/')[1]!;
export const policy = (namespace: string, name: string, spec: NetworkPolicy['spec']): NetworkPolicy =>
  ({ apiVersion: 'networking.k8s.io/v1', kind: 'NetworkPolicy', metadata: { namespace, name }, spec });

/**
 * The grid pod `id` ("x/a") as a containerd pod: busybox httpd serves TCP 80
 * and 81 answering the pod's id (and /cgi-bin/ip the caller's address), with
 * upstream's e2e port names, and a hostname and subdomain for a headless
 * Service `grid`.
 */
const whoami = '#!/bin/sh\\necho Content-Type: text/plain\\necho\\necho "$REMOTE_ADDR"\\n';
export function criGridPod(id: string, nodeName?: string): Pod {
  return {
    apiVersion: 'v1', kind: 'Pod',
    metadata: { namespace: ns(id), name: pod(id), labels: { pod: pod(id), app: 'grid' } },
    spec: {
      nodeName, hostname: pod(id), subdomain: 'grid', terminationGracePeriodSeconds: 1, automountServiceAccountToken: false,
      containers: [{
        name: 'agnhost', image: 'k8ts.local/busybox:1',
        command: ['sh', '-c', `mkdir -p /www/cgi-bin && echo ${id} > /www/index.html && printf '${whoami}' > /www/cgi-bin/ip && chmod +x /www/cgi-bin/ip` +
          ' && httpd -p 81 -h /www && exec httpd -f -p 80 -h /www'],
        ports: [
          { name: 'serve-80-tcp', containerPort: 80, protocol: 'TCP' }, { name: 'serve-81-tcp', containerPort: 81, protocol: 'TCP' },
          { name: 'serve-80-udp', containerPort: 80, protocol: 'UDP' }, { name: 'serve-81-udp', containerPort: 81, protocol: 'UDP' },
        ],
      }],
    },
  };
}

export interface Matrix {
  /** Waits (policies take effect within seconds) until the observed table is the expected one twice in a row; the time it took. */
  expectTruthTable(proto: 'tcp' | 'udp', port: number, want: Expect, what: string, withinMs?: number): Promise<number>;
  apply(...policies: NetworkPolicy[]): Promise<string>;
}

/** `address` gives a grid pod's IP (the netns rooms' fixed plan by default; containerd pods report theirs). */
export function matrix(room: NetpolRoom, twoNodes = false, address: (id: string) => string = (id) => podAddress(id, twoNodes)): Matrix {
  /**
   * Probes all 81 pairs at once; the table of what connected. A pair expected
   * to connect that did not is probed again (up to `retries` more times, as
   * upstream's netpol e2e retries its probes on congested CI machines): one
   * connection proves reachability, one timeout does not prove a policy (a
   * listener's accept queue, busybox httpd's 9, drops a SYN under a burst of
   * nine clients, and the retransmit comes after the probe's 1 s).
   */
  const retries = 2;
  const observe = async (proto: 'tcp' | 'udp', port: number, want: Expect): Promise<Map<string, boolean>> => {
    const out = new Map<string, boolean>();
    await Promise.all(grid.flatMap((from) => grid.map(async (to) => {
      const probe = () => room.pods.get(from)!.send(`probe ${proto} ${address(to)} ${port}`);
      let ok = await probe();
      for (let i = 0; !ok && want(from, to) && i < retries; i++) ok = await probe();
      out.set(`${from}>${to}`, ok);
    })));
    return out;
  };

  const render = (t: Map<string, boolean>, want?: Expect) => ['      ' + grid.join('  '),
    ...grid.map((from) => `${from}  ${grid.map((to) => {
      const got = t.get(`${from}>${to}`);
      const mark = got ? ' . ' : ' X ';
      return want && want(from, to) !== got ? `[${mark.trim()}]` : mark;
    }).join('  ')}`)].join('\n');

  /** Waits (policies take effect within seconds) until the observed table is the expected one, twice in a row. */
  const expectTruthTable = async (proto: 'tcp' | 'udp', port: number, want: Expect, what: string, withinMs = 8000) => {
    const t0 = Date.now();
    let last: Map<string, boolean> | undefined;
    let good = 0;
    const full: Expect = (f, to) => f === to || want(f, to);
    while (Date.now() - t0 < withinMs) {
      last = await observe(proto, port, full);
      const ok = grid.every((f) => grid.every((to) => last!.get(`${f}>${to}`) === full(f, to)));
      good = ok ? good + 1 : 0;
      if (good === 2) return Date.now() - t0;
    }
    assert.fail(`${what}, ${proto}/${port}: truth table differs ([ ] = wrong; . = connected, X = blocked; rows are clients)\n${render(last!, full)}\n` +
      `${(await room.nft(['list', 'table', 'inet', 'k8ts-netpol']).catch((e) => String(e))).slice(0, 6000)}\n${room.proxyLog.slice(-5).join('\n')}`);
  };

  const apply = (...policies: NetworkPolicy[]) => room.kubectl(['apply', '-f', '-'], JSON.stringify({ apiVersion: 'v1', kind: 'List', items: policies }));

  return { expectTruthTable, apply };
}
