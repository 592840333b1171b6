/**
 * NetworkPolicy and Services on real containerd pods: upstream's netpol e2e
 * truth table ("probe all pods against all pods") for each policy shape
 * users write, on the 3×3 grid (namespaces x, y, z × pods a, b, c) of real
 * pods of `k8ts up --runtime cri` (up-cri-node.ts): containerd sandboxes
 * with their own network namespaces on the CNI bridge, addresses from the
 * node's podCIDR, policed by the agent inside the kube-proxy add-on.
 *
 * Each pod's container serves TCP 80 and 81 (busybox httpd, answering with
 * the pod's id). The probes run inside each pod's own network namespace
 * (netpol-pod.js entered into it, which also answers UDP), so a probe's
 * source is the pod's address, as from the pod itself. The same pods are
 * reused by every shape and by the Service tests at the end.
 */
import { describe, it, before, after, afterEach } from 'node:test';
import assert from 'node:assert/strict';
import type { Pod, Service } from 'kubernetes-types/core/v1.js';
import type { NetworkPolicy } from 'kubernetes-types/networking/v1.js';
import { eventually } from './harness.js';
import { grid, namespaces, startPodAgent, type NetpolRoom, type PodAgent } from './netpol-netns.js';
import { criGridPod, matrix, ns, pod, policy, type Matrix } from './netpol-matrix.js';
import { startUpCri, type UpCriNode } from './up-cri-node.js';

const inNs = (name: string) => ({ matchLabels: { 'kubernetes.io/metadata.name': name } });
/** Policies take effect within seconds; a loaded 2-core machine gets a generous bound. */
const within = 60_000;

describe('NetworkPolicy on containerd pods: the 3×3 truth table for each policy shape', () => {
  let node: UpCriNode;
  let m: Matrix;
  const pods = new Map<string, PodAgent>();
  const ip = new Map<string, string>();
  const table = (proto: 'tcp' | 'udp', port: number, want: (f: string, to: string) => boolean, what: string) => m.expectTruthTable(proto, port, want, what, within);
  const apply = (...p: NetworkPolicy[]) => m.apply(...p);

  before(async () => {
    node = await startUpCri('netpol-cri');
    for (const n of namespaces) await node.kubectl(['create', 'namespace', n]);
    await node.kubectl(['apply', '-f', '-'], JSON.stringify({ apiVersion: 'v1', kind: 'List', items: grid.map((id) => criGridPod(id)) }));
    for (const n of namespaces) await node.kubectl(['wait', '--for=condition=Ready', 'pod', '--all', '-n', n, '--timeout=300s']);
    for (const id of grid) {
      const p = JSON.parse(await node.kubectl(['get', 'pod', '-n', ns(id), pod(id), '-o', 'json'])) as Pod;
      ip.set(id, p.status!.podIP!);
      pods.set(id, await startPodAgent(await node.netnsOfPod(p), true));
    }
    const room: NetpolRoom = {
      pods, proxyLog: [], cleanup: async () => undefined,
      kubectl: (args, input) => node.kubectl(args, input),
      nft: (args) => node.inNode('nft', args),
    };
    m = matrix(room, false, (id) => ip.get(id)!);
  });
  after(async () => {
    for (const p of pods.values()) p.close();
    await node?.close();
  });
  afterEach(async () => {
    await node.kubectl(['delete', 'networkpolicy', '--all', '-A', '--wait=false']);
  });

  it('the pods have addresses on the node\'s podCIDR, and without policies every pod reaches every pod (TCP 80, UDP 80)', async () => {
    for (const id of grid) assert.match(ip.get(id)!, /^10\.244\.0\.\d+$/, id);
    await table('tcp', 80, () => true, 'no policy');
    await table('udp', 80, () => true, 'no policy');
  });

  it('default deny ingress in x isolates x only (TCP and UDP)', async () => {
    await apply(policy('x', 'deny-ingress', { podSelector: {}, policyTypes: ['Ingress'] }));
    await table('tcp', 80, (_f, to) => ns(to) !== 'x', 'default deny ingress');
    await table('udp', 81, (_f, to) => ns(to) !== 'x', 'default deny ingress');
  });

  it('default deny egress in x: x reaches nobody, everybody still reaches x', async () => {
    await apply(policy('x', 'deny-egress', { podSelector: {}, policyTypes: ['Egress'] }));
    await table('tcp', 80, (f) => ns(f) !== 'x', 'default deny egress');
    await table('udp', 80, (f) => ns(f) !== 'x', 'default deny egress');
  });

  it('allow from a podSelector: x admits only its own pod b', async () => {
    await apply(policy('x', 'from-b', { podSelector: {}, ingress: [{ from: [{ podSelector: { matchLabels: { pod: 'b' } } }] }] }));
    await table('tcp', 80, (f, to) => ns(to) !== 'x' || f === 'x/b', 'podSelector');
  });

  it('allow from a namespaceSelector: x/a admits only namespace y (x/b and x/c stay open)', async () => {
    await apply(policy('x', 'a-from-y', { podSelector: { matchLabels: { pod: 'a' } }, ingress: [{ from: [{ namespaceSelector: inNs('y') }] }] }));
    await table('tcp', 80, (f, to) => to !== 'x/a' || ns(f) === 'y', 'namespaceSelector');
  });

  it('podSelector AND namespaceSelector in one peer admits only y/b; as two peers, all of y and x/b', async () => {
    await apply(policy('x', 'and', { podSelector: {}, ingress: [{ from: [{ namespaceSelector: inNs('y'), podSelector: { matchLabels: { pod: 'b' } } }] }] }));
    await table('tcp', 80, (f, to) => ns(to) !== 'x' || f === 'y/b', 'podSelector AND namespaceSelector');
    await apply(policy('x', 'and', { podSelector: {}, ingress: [{ from: [{ namespaceSelector: inNs('y') }, { podSelector: { matchLabels: { pod: 'b' } } }] }] }));
    await table('tcp', 80, (f, to) => ns(to) !== 'x' || ns(f) === 'y' || f === 'x/b', 'podSelector OR namespaceSelector');
  });

  it('ipBlock with except: the pod network admitted except y/a', async () => {
    await apply(policy('x', 'cidr', { podSelector: {}, ingress: [{ from: [{ ipBlock: { cidr: '10.244.0.0/16', except: [`${ip.get('y/a')}/32`] } }] }] }));
    await table('tcp', 80, (f, to) => ns(to) !== 'x' || f !== 'y/a', 'ipBlock except');
  });

  it('a named port admits TCP 81 (serve-81-tcp) only; UDP 81 is refused (the name is TCP)', async () => {
    await apply(policy('x', 'named', { podSelector: {}, ingress: [{ ports: [{ port: 'serve-81-tcp', protocol: 'TCP' }] }] }));
    await table('tcp', 80, (_f, to) => ns(to) !== 'x', 'port 80 refused');
    await table('tcp', 81, () => true, 'named port 81 admitted');
    await table('udp', 81, (_f, to) => ns(to) !== 'x', 'UDP 81 refused');
  });

  it('a port range (endPort 81..90) admits 81, not 80; an egress range is checked on the destination port', async () => {
    await apply(policy('x', 'range', { podSelector: {}, ingress: [{ ports: [{ protocol: 'TCP', port: 81, endPort: 90 }] }] }));
    await table('tcp', 80, (_f, to) => ns(to) !== 'x', 'range refuses 80');
    await table('tcp', 81, () => true, 'range admits 81');
    await node.kubectl(['delete', 'networkpolicy', '-n', 'x', 'range']);
    await apply(policy('y', 'egress-range', { podSelector: {}, policyTypes: ['Egress'], egress: [{ ports: [{ protocol: 'TCP', port: 79, endPort: 80 }] }] }));
    await table('tcp', 81, (f) => ns(f) !== 'y', 'egress range refuses 81');
    await table('tcp', 80, () => true, 'egress range admits 80');
  });

  it('egress to DNS only: x resolves names through kube-dns but reaches no pod on TCP 80', async () => {
    await apply(policy('x', 'dns-only', {
      podSelector: {}, policyTypes: ['Egress'],
      egress: [{ ports: [{ protocol: 'UDP', port: 53 }, { protocol: 'TCP', port: 53 }] }],
    }));
    await table('tcp', 80, (f) => ns(f) !== 'x', 'egress DNS only (TCP 80)');
    await table('udp', 53, () => true, 'egress DNS only (UDP 53 to pods)');
    // The real DNS server (host-network, behind 10.96.0.10): the pod's own resolver path.
    let last = '';
    await eventually(async () => {
      last = await node.kubectl(['exec', '-n', 'x', 'a', '--', 'nslookup', 'kubernetes.default.svc.cluster.local']).catch((e) => String(e));
      return /Address:\s*10\.96\.0\.1$/m.test(last);
    }, within, 'nslookup from x/a under DNS-only egress').catch((e) => { throw new Error(`${(e as Error).message}; last: ${last}`); });
  });

  it('policies on both sides: x may only send to y, y only admits x; each half alone is not enough', async () => {
    await apply(
      policy('x', 'egress-to-y', { podSelector: {}, policyTypes: ['Egress'], egress: [{ to: [{ namespaceSelector: inNs('y') }] }] }),
      policy('y', 'ingress-from-x', { podSelector: {}, ingress: [{ from: [{ namespaceSelector: inNs('x') }] }] }),
    );
    await table('tcp', 80, (f, to) => (ns(f) !== 'x' || ns(to) === 'y') && (ns(to) !== 'y' || ns(f) === 'x'), 'both sides');
    await apply(policy('y', 'ingress-from-x', { podSelector: {}, ingress: [{ from: [{ namespaceSelector: inNs('z') }] }] }));
    await table('tcp', 80, (f, to) => (ns(f) !== 'x' || ns(to) === 'y') && (ns(to) !== 'y' || ns(f) === 'z'), 'egress allowed, ingress not');
  });

  describe('Services from a real pod (the same pods as backends and clients)', () => {
    const svc = (name: string, spec: Service['spec']): Service => ({ apiVersion: 'v1', kind: 'Service', metadata: { namespace: 'x', name }, spec });
    const get = async (name: string) => JSON.parse(await node.kubectl(['get', 'svc', '-n', 'x', name, '-o', 'json'])) as Service;
    const client = () => pods.get('y/a')!;

    before(async () => {
      await node.kubectl(['apply', '-f', '-'], JSON.stringify({ apiVersion: 'v1', kind: 'List', items: [
        svc('web', { type: 'NodePort', selector: { app: 'grid' }, ports: [{ name: 'http', port: 8080, targetPort: 80 }] }),
        svc('sticky', { selector: { app: 'grid' }, sessionAffinity: 'ClientIP', ports: [{ name: 'http', port: 8080, targetPort: 'serve-81-tcp' }] }),
        svc('local', { type: 'NodePort', selector: { app: 'grid' }, internalTrafficPolicy: 'Local', externalTrafficPolicy: 'Local', ports: [{ name: 'http', port: 8080, targetPort: 80 }] }),
        svc('grid', { clusterIP: 'None', selector: { app: 'grid' }, ports: [{ name: 'http', port: 80 }] }),
      ] }));
    });

    it('ClusterIP spreads over the three backends; NodePort on the node address answers too', async () => {
      const web = await get('web');
      const seen = new Set<string>();
      await eventually(async () => {
        const text = await client().ask(`get ${web.spec!.clusterIP} 8080`);
        if (text) seen.add(text);
        return seen.size === 3;
      }, within, `all three backends through the ClusterIP (seen: ${[...seen].join(', ')})`);
      assert.deepEqual([...seen].sort(), ['x/a', 'x/b', 'x/c']);
      const nodePort = web.spec!.ports![0]!.nodePort!;
      assert.match(await eventually(() => client().ask(`get ${node.nodeIP} ${nodePort}`), within, 'the NodePort') ?? '', /^x\/[abc]$/);
    });

    it('sessionAffinity ClientIP keeps a client on one backend (targetPort by name)', async () => {
      const sticky = await get('sticky');
      const first = await eventually(() => client().ask(`get ${sticky.spec!.clusterIP} 8080`), within, 'the sticky Service answers');
      for (let i = 0; i < 15; i++) assert.equal(await client().ask(`get ${sticky.spec!.clusterIP} 8080`), first, `request ${i + 2}`);
      // Another client may land elsewhere, but stays on its own choice too.
      const other = await eventually(() => pods.get('z/c')!.ask(`get ${sticky.spec!.clusterIP} 8080`), within, 'the sticky Service answers z/c');
      for (let i = 0; i < 5; i++) assert.equal(await pods.get('z/c')!.ask(`get ${sticky.spec!.clusterIP} 8080`), other);
    });

    it('internalTrafficPolicy and externalTrafficPolicy Local: the node\'s own endpoints answer by ClusterIP and NodePort', async () => {
      const local = await get('local');
      assert.match(await eventually(() => client().ask(`get ${local.spec!.clusterIP} 8080`), within, 'iTP Local by ClusterIP') ?? '', /^x\/[abc]$/);
      assert.match(await eventually(() => client().ask(`get ${node.nodeIP} ${local.spec!.ports![0]!.nodePort}`), within, 'eTP Local by NodePort') ?? '', /^x\/[abc]$/);
    });

    it('the backend sees the client pod\'s own address through a ClusterIP, and through a NodePort with externalTrafficPolicy Local', async () => {
      // busybox httpd listens on [::]: an IPv4 caller is [::ffff:a.b.c.d].
      const caller = (t: string | undefined) => t?.replace(/^\[::ffff:(.*)\]$/, '$1');
      const web = await get('web');
      assert.equal(caller(await eventually(() => client().ask(`get ${web.spec!.clusterIP} 8080 /cgi-bin/ip`), within, 'the caller through the ClusterIP')), ip.get('y/a'));
      const local = await get('local');
      assert.equal(caller(await eventually(() => client().ask(`get ${node.nodeIP} ${local.spec!.ports![0]!.nodePort} /cgi-bin/ip`), within, 'the caller through the NodePort')), ip.get('y/a'));
    });

    it('a headless Service resolves to every pod, and hostname.subdomain names each pod', async () => {
      let last = '';
      const lookup = (name: string, want: RegExp) => eventually(async () => {
        last = await node.kubectl(['exec', '-n', 'y', 'a', '--', 'nslookup', name]).catch((e) => String(e));
        return want.test(last) ? last : undefined;
      }, within, `nslookup ${name}`).catch((e) => { throw new Error(`${(e as Error).message}; last: ${last}`); });
      const all = await lookup('grid.x.svc.cluster.local', new RegExp(`Address:\\s*${ip.get('x/c')!.replaceAll('.', '\\.')}$`, 'm'));
      for (const id of ['x/a', 'x/b', 'x/c']) assert.match(all, new RegExp(`Address:\\s*${ip.get(id)!.replaceAll('.', '\\.')}$`, 'm'), id);
      await lookup('b.grid.x.svc.cluster.local', new RegExp(`Address:\\s*${ip.get('x/b')!.replaceAll('.', '\\.')}$`, 'm'));
      // The short form through the pod's search path (x's pods are in another namespace: a.grid.x), by the resolver of busybox's nc
      // as up-cri.test.ts does (busybox nslookup queries a name as given, without the search path; its wget died with SIGSEGV resolving it).
      let got = '';
      await eventually(async () => {
        got = await node.kubectl(['exec', '-n', 'y', 'a', '--', 'sh', '-c', `printf 'GET / HTTP/1.0\\r\\n\\r\\n' | nc -w 5 a.grid.x 80 2>&1`]).catch((e) => String(e));
        return got.trim().endsWith('x/a');
      }, within, 'GET http://a.grid.x/ from y/a').catch((e) => { throw new Error(`${(e as Error).message}; last: ${got}`); });
    });
  });
});
