/**
 * What a new user types in the first minutes on `npm start`'s simulated
 * nodes, beyond the first deployment (tutorial.test.ts): the Logging
 * Architecture page's counter ($((...)) in the container's command), shell
 * arithmetic in an exec, curl POSTing to echoserver through a Service, and
 * curl's progress meter on stderr, and the Init Containers page's
 * myapp-pod, whose `until nslookup` loops wait for their Services, each as
 * upstream's images print it.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { eventually } from './harness.js';
import { startUp, type UpCluster } from './up-cluster.js';

describe('k8ts up: a newcomer\'s shell, logs and curl on simulated nodes', () => {
  let up: UpCluster;
  const kubectl = (args: string[], input?: string, allowFail = false) => up.kubectl(args, input, allowFail);
  const waitReady = (...pods: string[]) => kubectl(['wait', '--for=condition=Ready', ...pods.map((p) => `pod/${p}`), '--timeout=120s']);

  before(async () => {
    up = await startUp('k8ts-e2e-newcomer-');
    // The Logging Architecture page's counter.
    await kubectl(['apply', '-f', '-'], JSON.stringify({
      apiVersion: 'v1', kind: 'Pod', metadata: { name: 'counter' },
      spec: { containers: [{ name: 'count', image: 'busybox:1.28', args: ['/bin/sh', '-c', 'i=0; while true; do echo "$i: $(date)"; i=$((i+1)); sleep 1; done'] }] },
    }));
    await kubectl(['run', 'echo', '--image=registry.k8s.io/echoserver:1.10', '--port=8080', '--expose']);
    await kubectl(['run', 'web', '--image=nginx:1.27']);
    await waitReady('counter', 'echo', 'web');
  });
  after(async () => { await up?.close(); });

  it('Logging Architecture: kubectl logs counter shows the count, one line a second', async () => {
    const logs = await eventually(async () => {
      const out = (await kubectl(['logs', 'counter'])).stdout;
      return out.split('\n').length > 3 && out;
    }, 60_000, 'three lines of the counter');
    const lines = logs.trim().split('\n');
    lines.forEach((l, i) => assert.match(l, new RegExp(`^${i}: [A-Z][a-z]{2} [A-Z][a-z]{2} [ \\d]\\d \\d\\d:\\d\\d:\\d\\d UTC \\d{4}$`), logs));
  });

  it('$((...)) in an exec: arithmetic and its errors as the image\'s shell says them', async () => {
    assert.equal((await kubectl(['exec', 'web', '--', 'sh', '-c', 'i=6; echo $((i*7)) $((i+=1)) $i'])).stdout, '42 7 7\n');
    const zero = await kubectl(['exec', 'web', '--', 'sh', '-c', 'echo $((1/0))'], undefined, true);
    assert.equal(zero.stderr, 'sh: 1: arithmetic expression: division by zero: "1/0"\ncommand terminated with exit code 2\n');
  });

  it('curl -d POSTs to echoserver through its Service, and echoserver echoes the body', async () => {
    const r = await kubectl(['exec', 'web', '--', 'curl', '-s', '-d', 'hello=world', 'http://echo:8080/']);
    assert.match(r.stdout, /\tmethod=POST\n/);
    assert.match(r.stdout, /\tcontent-type=application\/x-www-form-urlencoded\n/);
    assert.match(r.stdout, /Request Body:\nhello=world\n$/);
  });

  it('curl -o FILE prints its progress meter on stderr; -s keeps it quiet', async () => {
    const r = await kubectl(['exec', 'web', '--', 'curl', '-o', '/tmp/index.html', 'http://localhost/']);
    assert.equal(r.stdout, '');
    assert.match(r.stderr, /^ {2}% Total {4}% Received % Xferd {2}Average Speed {3}Time {4}Time {5}Time {2}Current\n {33}Dload {2}Upload {3}Total {3}Spent {4}Left {2}Speed\n\r {2}0 {5}0 .*\r100 {3}615 {2}100 {3}615 {4}0 {5}0 .*\n$/);
    assert.match((await kubectl(['exec', 'web', '--', 'cat', '/tmp/index.html'])).stdout, /<title>Welcome to nginx!<\/title>/);
    assert.equal((await kubectl(['exec', 'web', '--', 'curl', '-s', '-o', '/dev/null', 'http://localhost/'])).stderr, '');
  });

  it('Init Containers: myapp-pod waits Init:0/2 until myservice and mydb resolve, then runs', async () => {
    const init = (name: string) => ({ name: `init-${name}`, image: 'busybox:1.28', command: ['sh', '-c', `until nslookup ${name}.$(cat /var/run/secrets/kubernetes.io/serviceaccount/namespace).svc.cluster.local; do echo waiting for ${name}; sleep 2; done`] });
    await kubectl(['apply', '-f', '-'], JSON.stringify({
      apiVersion: 'v1', kind: 'Pod', metadata: { name: 'myapp-pod', labels: { 'app.kubernetes.io/name': 'MyApp' } },
      spec: {
        containers: [{ name: 'myapp-container', image: 'busybox:1.28', command: ['sh', '-c', 'echo The app is running! && sleep 3600'] }],
        initContainers: [init('myservice'), init('mydb')],
      },
    }));
    const waiting = await eventually(async () => {
      const out = (await kubectl(['logs', 'myapp-pod', '-c', 'init-myservice'], undefined, true)).stdout;
      return out.includes('waiting for myservice') && out;
    }, 60_000, 'init-myservice waiting');
    assert.match(waiting, /^Server: {4}10\.96\.0\.10\nAddress 1: 10\.96\.0\.10 kube-dns\.kube-system\.svc\.cluster\.local\n\nnslookup: can't resolve 'myservice\.default\.svc\.cluster\.local'\n/);
    assert.match((await kubectl(['get', 'pod', 'myapp-pod'])).stdout, /\nmyapp-pod +0\/1 +Init:0\/2 +0 /);
    const service = (name: string, port: number) => ({ apiVersion: 'v1', kind: 'Service', metadata: { name }, spec: { ports: [{ protocol: 'TCP', port: 80, targetPort: port }] } });
    await kubectl(['apply', '-f', '-'], JSON.stringify({ apiVersion: 'v1', kind: 'List', items: [service('myservice', 9376), service('mydb', 9377)] }));
    await waitReady('myapp-pod');
    assert.equal((await kubectl(['logs', 'myapp-pod'])).stdout, 'The app is running!\n');
  });
});
