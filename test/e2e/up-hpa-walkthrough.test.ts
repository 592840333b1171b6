/**
 * The "HorizontalPodAutoscaler Walkthrough" page on `npm start`'s simulated
 * nodes, command by command with the real kubectl 1.32: php-apache
 * (registry.k8s.io/hpa-example) answers `OK!`, `kubectl top` prints the
 * usage the simulated runtime models (src/kubelet/runtime/simulated/
 * usage.ts), and the HPA controller scales php-apache up under the page's
 * load generator and down after Ctrl-C. The page's 5-minute scale-down
 * stabilization is shortened through the HPA's
 * behavior.scaleDown.stabilizationWindowSeconds, which upstream honours.
 * No assertion is on time: every wait polls with a generous deadline.
 */
import { describe, it, before, after } from 'node:test';
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import assert from 'node:assert/strict';
import { eventually, repoRoot } from './harness.js';
import { killChild, kubectlPortForward } from './helpers.js';
import { startUp, type UpCluster } from './up-cluster.js';

const manifest = join(repoRoot, 'test', 'fixtures', 'hpa', 'php-apache.yaml');
const loadCommand = 'while sleep 0.01; do wget -q -O- http://php-apache; done';

/** `kubectl get hpa` rows after the header, as columns. */
const hpaRows = (out: string) => out.trim().split('\n').slice(1).map((l) => l.trim().split(/\s{2,}/));

describe('HorizontalPodAutoscaler Walkthrough on npm start\'s simulated nodes', () => {
  let up: UpCluster;
  const kubectl = (args: string[], input?: string, allowFail = false) => up.kubectl(args, input, allowFail);
  const children: ChildProcess[] = [];

  before(async () => {
    up = await startUp('k8ts-e2e-hpa-');
  });
  after(async () => {
    for (const c of children) await killChild(c);
    await up?.close();
  });

  it('kubectl apply -f php-apache.yaml, kubectl autoscale: TARGETS <unknown> at first, then a percentage', async () => {
    assert.match((await kubectl(['apply', '-f', manifest])).stdout, /^deployment\.apps\/php-apache created\nservice\/php-apache created\n$/);
    // A watch from before the HPA exists sees it as created, before the controller wrote any metric: <unknown>.
    // kubectl lists, then watches from the list's resourceVersion: once it printed the marker HPA, nothing after is missed.
    const marker = { apiVersion: 'autoscaling/v2', kind: 'HorizontalPodAutoscaler', metadata: { name: 'watch-marker' },
      spec: { scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'none' }, minReplicas: 1, maxReplicas: 1 } };
    await kubectl(['create', '-f', '-'], JSON.stringify(marker));
    const watch = spawn('kubectl', ['--kubeconfig', up.kubeconfig, 'get', 'hpa', '--watch'], { stdio: ['ignore', 'pipe', 'pipe'] });
    children.push(watch);
    let watched = '';
    watch.stdout!.on('data', (d: Buffer) => { watched += d; });
    watch.stderr!.on('data', (d: Buffer) => { watched += d; });
    await eventually(async () => /^watch-marker\s/m.test(watched), 60_000, 'the watch listed the marker HPA', () => watched);
    assert.equal((await kubectl(['autoscale', 'deployment', 'php-apache', '--cpu-percent=50', '--min=1', '--max=10'])).stdout,
      'horizontalpodautoscaler.autoscaling/php-apache autoscaled\n');
    await eventually(async () => /^php-apache\s+Deployment\/php-apache\s+cpu: <unknown>\/50%\s+1\s+10\s+0\s+\d+s\n/m.test(watched),
      60_000, 'the created HPA in the watch', () => watched);
    await kubectl(['delete', 'hpa', 'watch-marker']);
    const first = await kubectl(['get', 'hpa']);
    assert.match(first.stdout, /^NAME\s+REFERENCE\s+TARGETS\s+MINPODS\s+MAXPODS\s+REPLICAS\s+AGE\nphp-apache\s+Deployment\/php-apache\s+cpu: (<unknown>|\d+%)\/50%\s+1\s+10\s+[01]\s+\d+s\n$/);
    // The page's test shortens nothing else: scale-down waits this window instead of upstream's default 300 s.
    await kubectl(['patch', 'hpa', 'php-apache', '--type=merge', '-p', '{"spec":{"behavior":{"scaleDown":{"stabilizationWindowSeconds":20}}}}']);
    const idle = await eventually(async () => {
      const row = hpaRows((await kubectl(['get', 'hpa', 'php-apache'])).stdout)[0]!;
      return /^cpu: \d+%\/50%$/.test(row[2]!) && row;
    }, 120_000, 'a CPU percentage in TARGETS');
    assert.equal(idle[5], '1', `one replica while idle: ${idle.join(' | ')}`);
    await eventually(async () => /php-apache\s+Deployment\/php-apache\s+cpu: \d+%\/50%\s+1\s+10\s+1\s/.test(watched), 60_000, 'the percentage in the watch', () => watched);
    await killChild(watch);
  });

  it('php-apache answers OK! through its Service (wget in a pod), services/proxy and port-forward', async () => {
    const run = await kubectl(['run', '-i', '--rm', '--restart=Never', 'probe', '--image=busybox:1.28', '--', 'wget', '-q', '-O-', 'http://php-apache'], '');
    assert.match(run.stdout, /^OK!(\n)?pod "probe" deleted\n$/);
    assert.equal((await kubectl(['get', '--raw', '/api/v1/namespaces/default/services/php-apache:80/proxy/'])).stdout, 'OK!');
    const pf = await kubectlPortForward(up.kubeconfig, ['--address', '127.0.0.1', 'service/php-apache', ':80']);
    children.push(pf.child);
    assert.match(pf.out(), new RegExp(`Forwarding from 127\\.0\\.0\\.1:${pf.port} -> 80`));
    const res = await fetch(`http://127.0.0.1:${pf.port}/`);
    assert.equal(res.status, 200);
    assert.equal(await res.text(), 'OK!');
    assert.match(res.headers.get('server') ?? '', /^Apache\//);
    await killChild(pf.child);
  });

  it('kubectl top pods and top nodes print numbers', async () => {
    const pods = await eventually(async () => {
      const out = (await kubectl(['top', 'pods'], undefined, true)).stdout;
      return /^php-apache-\S+\s+\d+m\s+\d+Mi\s*$/m.test(out) && out;
    }, 120_000, 'php-apache in kubectl top pods');
    assert.match(pods, /^NAME\s+CPU\(cores\)\s+MEMORY\(bytes\)\s*\n/);
    const nodes = (await kubectl(['top', 'nodes'])).stdout;
    assert.match(nodes, /^NAME\s+CPU\(cores\)\s+CPU\(%\)\s+MEMORY\(bytes\)\s+MEMORY\(%\)\s*\n/);
    for (const n of ['control-plane', 'worker1', 'worker2']) assert.match(nodes, new RegExp(`^${n}\\s+\\d+m\\s+\\d+%\\s+\\d+Mi\\s+\\d+%\\s*$`, 'm'));
  });

  it('kubectl run -i --tty load-generator: OK!OK!..., replicas rise above 1; Ctrl-C stops it, the pod is deleted, replicas fall back to 1', async () => {
    const watch = spawn('kubectl', ['--kubeconfig', up.kubeconfig, 'get', 'hpa', 'php-apache', '--watch'], { stdio: ['ignore', 'pipe', 'pipe'] });
    children.push(watch);
    let watched = '';
    watch.stdout!.on('data', (d: Buffer) => { watched += d; });
    const command = `kubectl --kubeconfig ${up.kubeconfig} run -i --tty load-generator --rm --image=busybox:1.28 --restart=Never -- /bin/sh -c "${loadCommand}"`;
    const load = spawn('script', ['-qec', command, '/dev/null'], { stdio: ['pipe', 'pipe', 'pipe'] });
    children.push(load);
    let out = '';
    load.stdout!.on('data', (d: Buffer) => { out += d; });
    load.stderr!.on('data', (d: Buffer) => { out += d; });
    const exited = new Promise<number | null>((resolve) => load.on('exit', (code) => resolve(code)));
    await eventually(async () => (out.match(/OK!/g)?.length ?? 0) >= 20, 120_000, 'OK! from the load generator', () => out.slice(-500));
    assert.doesNotMatch(out, /couldn't attach|Connection refused|bad address/);
    const busy = await eventually(async () => {
      const row = hpaRows((await kubectl(['get', 'hpa', 'php-apache'])).stdout)[0]!;
      return Number(row[5]) > 1 && row;
    }, 240_000, 'php-apache scaled above 1 replica', async () => (await kubectl(['describe', 'hpa', 'php-apache'])).stdout);
    assert.match(busy[2]!, /^cpu: \d+%\/50%$/);
    await eventually(async () => /php-apache\s+Deployment\/php-apache\s+cpu: \d+%\/50%\s+1\s+10\s+([2-9]|10)\s/.test(watched), 60_000, 'the watch shows the new replica count', () => watched);
    const deployment = JSON.parse((await kubectl(['get', 'deployment', 'php-apache', '-o', 'json'])).stdout);
    assert.ok(deployment.spec.replicas > 1, `deployment scaled: ${deployment.spec.replicas}`);
    const events = (await kubectl(['get', 'events', '--field-selector', 'involvedObject.kind=HorizontalPodAutoscaler,reason=SuccessfulRescale'])).stdout;
    assert.match(events, /New size: \d+; reason: cpu resource utilization \(percentage of request\) above target/);

    // "terminate the load generation by typing <Ctrl> + C"
    load.stdin!.write('\x03');
    await exited;
    assert.match(out, /pod "load-generator" deleted/);
    await eventually(async () => (await kubectl(['get', 'pod', 'load-generator'], undefined, true)).stderr.includes('pods "load-generator" not found'), 60_000, 'load-generator gone');
    const calm = await eventually(async () => {
      const row = hpaRows((await kubectl(['get', 'hpa', 'php-apache'])).stdout)[0]!;
      return row[5] === '1' && row;
    }, 300_000, 'php-apache back to 1 replica', async () => (await kubectl(['describe', 'hpa', 'php-apache'])).stdout);
    assert.match(calm[2]!, /^cpu: \d+%\/50%$/);
    const down = (await kubectl(['get', 'events', '--field-selector', 'involvedObject.kind=HorizontalPodAutoscaler,reason=SuccessfulRescale'])).stdout;
    assert.match(down, /New size: 1; reason: All metrics below target/);
  });

  it('the fixture is the page\'s php-apache.yaml: hpa-example, requests cpu 200m, limits cpu 500m, Service port 80', () => {
    const text = readFileSync(manifest, 'utf8');
    for (const line of ['image: registry.k8s.io/hpa-example', 'cpu: 500m', 'cpu: 200m', '- port: 80']) assert.ok(text.includes(line), line);
  });
});
