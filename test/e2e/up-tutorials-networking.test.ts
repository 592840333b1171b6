/**
 * The networking pages on `k8ts up`'s simulated nodes, with the real
 * kubectl 1.32, command by command where the page shows output:
 *
 *  - Connecting Applications with Services: run-my-nginx's pod IPs through
 *    `-o custom-columns=POD_IP:.status.podIPs`, the service links in
 *    `printenv | grep SERVICE` after the pods are recreated, and `kubectl
 *    run curl --image=radial/busyboxplus:curl -i --tty --rm` with
 *    `nslookup my-nginx` at its prompt.
 *  - Debug Services: the hostnames Deployment (serve_hostname on 9376)
 *    reached by pod IP and through the Service, `nslookup hostnames`
 *    (and its FQDN), `cat /etc/resolv.conf`, the Service's EndpointSlice.
 *  - Use Port Forwarding: `kubectl port-forward service/redis-master
 *    7000:redis`, redis's PING through it, the containerPort template.
 *  - Debugging DNS Resolution: the dnsutils pod's `nslookup
 *    kubernetes.default` and resolv.conf, the kube-dns pods and Service.
 *
 * Every wait is on a condition, with a deadline.
 */
import { describe, it, before, after } from 'node:test';
import { spawn } from 'node:child_process';
import { connect } from 'node:net';
import assert from 'node:assert/strict';
import { eventually } from './harness.js';
import { underTerminal } from './helpers.js';
import { startUp, type UpCluster } from './up-cluster.js';
import { runMyNginx } from './task-page-manifests.js';

const redisMaster = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: redis-master
  labels:
    app: redis
spec:
  selector:
    matchLabels:
      app: redis
      role: master
      tier: backend
  replicas: 1
  template:
    metadata:
      labels:
        app: redis
        role: master
        tier: backend
    spec:
      containers:
      - name: master
        image: redis
        resources:
          requests:
            cpu: 100m
            memory: 100Mi
        ports:
        - name: redis
          containerPort: 6379
---
apiVersion: v1
kind: Service
metadata:
  name: redis-master
  labels:
    app: redis
    role: master
    tier: backend
spec:
  ports:
  - name: redis
    port: 6379
    targetPort: redis
  selector:
    app: redis
    role: master
    tier: backend
`;

const dnsutils = `apiVersion: v1
kind: Pod
metadata:
  name: dnsutils
  namespace: default
spec:
  containers:
  - name: dnsutils
    image: registry.k8s.io/e2e-test-images/jessie-dnsutils:1.3
    command:
      - sleep
      - "infinity"
    imagePullPolicy: IfNotPresent
  restartPolicy: Always
`;

const resolvConf = 'search default.svc.cluster.local svc.cluster.local cluster.local\nnameserver 10.96.0.10\noptions ndots:5\n';

/** What redis answers to `PING` on 127.0.0.1:port (redis-cli -p PORT ping). */
function redisPing(port: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const s = connect(port, '127.0.0.1', () => s.write('*1\r\n$4\r\nPING\r\n'));
    s.setTimeout(10_000, () => { s.destroy(); reject(new Error('no answer from redis')); });
    s.on('data', (d) => { s.end(); resolve(d.toString()); });
    s.on('error', reject);
  });
}

describe('k8ts up: the Services, DNS and port-forward pages on simulated nodes', () => {
  let up: UpCluster;
  const kubectl = (args: string[], input?: string, allowFail = false) => up.kubectl(args, input, allowFail);
  const rollout = (name: string) => kubectl(['rollout', 'status', `deployment/${name}`, '--timeout=120s']);

  before(async () => { up = await startUp('k8ts-e2e-tutorials-networking-'); });
  after(async () => { await up?.close(); });

  it('Services: pod IPs in custom columns, SERVICE variables after the pods are recreated, nslookup my-nginx from radial/busyboxplus:curl', async () => {
    await kubectl(['apply', '-f', '-'], runMyNginx);
    await rollout('my-nginx');
    const ips = (await kubectl(['get', 'pods', '-l', 'run=my-nginx', '-o', 'custom-columns=POD_IP:.status.podIPs'])).stdout;
    assert.match(ips, /^POD_IP\n\[map\[ip:10\.244\.\d+\.\d+\]\]\n\[map\[ip:10\.244\.\d+\.\d+\]\]\n$/);
    await kubectl(['expose', 'deployment/my-nginx']);
    const clusterIP = (await kubectl(['get', 'svc', 'my-nginx', '-o', 'jsonpath={.spec.clusterIP}'])).stdout;
    // The pods started before the Service: their environment has only the kubernetes Service's; recreated, my-nginx's too.
    await kubectl(['scale', 'deployment', 'my-nginx', '--replicas=0']);
    // The old pods take their grace period to go: pick from the new ones only.
    await eventually(async () => (await kubectl(['get', 'pods', '-l', 'run=my-nginx', '-o', 'name'])).stdout === '', 60_000, 'the old pods gone');
    await kubectl(['scale', 'deployment', 'my-nginx', '--replicas=2']);
    await rollout('my-nginx');
    const pod = (await kubectl(['get', 'pods', '-l', 'run=my-nginx', '-o', 'jsonpath={.items[0].metadata.name}'])).stdout;
    const env = (await kubectl(['exec', pod, '--', 'printenv'])).stdout.split('\n').filter((l) => l.includes('SERVICE')).sort();
    assert.deepEqual(env, ['KUBERNETES_SERVICE_HOST=10.96.0.1', 'KUBERNETES_SERVICE_PORT=443', 'KUBERNETES_SERVICE_PORT_HTTPS=443',
      `MY_NGINX_SERVICE_HOST=${clusterIP}`, 'MY_NGINX_SERVICE_PORT=80']);
    // radial/busyboxplus is busybox with curl: its CMD is sh, so kubectl run -i --tty reaches a prompt.
    const t = await underTerminal(`kubectl --kubeconfig ${up.kubeconfig} run curl --image=radial/busyboxplus:curl -i --tty --rm`, ['nslookup my-nginx\r', 'curl -s my-nginx | head -4\r', 'exit\r'], 120_000);
    assert.equal(t.code, 0, t.out);
    assert.match(t.out, new RegExp(`# nslookup my-nginx\r\nServer:    10\\.96\\.0\\.10\r\nAddress 1: 10\\.96\\.0\\.10 kube-dns\\.kube-system\\.svc\\.cluster\\.local\r\n\r\nName:      my-nginx\r\nAddress 1: ${clusterIP.replace(/\./g, '\\.')} my-nginx\\.default\\.svc\\.cluster\\.local\r\n`));
    assert.match(t.out, /<title>Welcome to nginx!<\/title>\r\n/);
    assert.match(t.out, /pod "curl" deleted/);
  });

  it('Debug Services: serve_hostname answers its pod name on 9376 and through the Service; nslookup, resolv.conf, the EndpointSlice', async () => {
    await kubectl(['create', 'deployment', 'hostnames', '--image=registry.k8s.io/serve_hostname']);
    await kubectl(['scale', 'deployment', 'hostnames', '--replicas=3']);
    await rollout('hostnames');
    const pods = (await kubectl(['get', 'pods', '-l', 'app=hostnames', '-o', 'go-template={{range .items}}{{.metadata.name}} {{.status.podIP}}{{"\\n"}}{{end}}'])).stdout.trim().split('\n').map((l) => l.split(' '));
    assert.equal(pods.length, 3);
    await kubectl(['expose', 'deployment', 'hostnames', '--port=80', '--target-port=9376']);
    // The page's busybox pod: each pod by IP, then the Service by name (each answer is a pod's hostname, without a newline).
    const script = `${pods.map(([, ip]) => `wget -qO- ${ip}:9376; echo`).join('; ')}; for i in 1 2 3 4 5 6; do wget -qO- hostnames; echo; done; ` +
      'nslookup hostnames; nslookup hostnames.default.svc.cluster.local; cat /etc/resolv.conf';
    const out = await eventually(async () => {
      await kubectl(['delete', 'pod', 'client', '--ignore-not-found', '--wait']);
      const r = await kubectl(['run', '-i', '--rm', '--restart=Never', 'client', '--image=busybox', '--', 'sh', '-c', script], '', true);
      // The Service reaches the pods once the node's view has its EndpointSlice (it trails the API by a watch event).
      return r.stdout.includes('wget:') ? undefined : r.stdout;
    }, 60_000, 'the hostnames pods through their Service');
    const lines = out.split('\n');
    assert.deepEqual(lines.slice(0, 3), pods.map(([name]) => name));
    for (const l of lines.slice(3, 9)) assert.ok(pods.some(([name]) => name === l), l);
    const clusterIP = (await kubectl(['get', 'svc', 'hostnames', '-o', 'jsonpath={.spec.clusterIP}'])).stdout.replace(/\./g, '\\.');
    assert.match(out, new RegExp(`\nName:      hostnames\nAddress 1: ${clusterIP} hostnames\\.default\\.svc\\.cluster\\.local\n\n`));
    assert.match(out, new RegExp(`\nName:      hostnames\\.default\\.svc\\.cluster\\.local\nAddress 1: ${clusterIP} hostnames\\.default\\.svc\\.cluster\\.local\n\n`));
    assert.ok(out.includes(`\n${resolvConf}`), out);
    const slices = (await kubectl(['get', 'endpointslices', '-l', 'kubernetes.io/service-name=hostnames'])).stdout;
    assert.match(slices, /^NAME\s+ADDRESSTYPE\s+PORTS\s+ENDPOINTS\s+AGE\nhostnames-\w+\s+IPv4\s+9376\s+10\.244\.[\d.,]+\s/);
    // The page's own selector (k8s.io/service-name) is not the label the EndpointSlice controller sets: nothing, as upstream.
    assert.match((await kubectl(['get', 'endpointslices', '-l', 'k8s.io/service-name=hostnames'])).stderr, /No resources found in default namespace\./);
  });

  it('Port forwarding: the containerPort template, port-forward service/redis-master 7000:redis, PING answers PONG', async () => {
    await kubectl(['apply', '-f', '-'], redisMaster);
    await rollout('redis-master');
    const pod = (await kubectl(['get', 'pods', '-l', 'app=redis', '-o', 'jsonpath={.items[0].metadata.name}'])).stdout;
    assert.equal((await kubectl(['get', 'pod', pod, '--template={{(index (index .spec.containers 0).ports 0).containerPort}}{{"\\n"}}'])).stdout, '6379\n');
    const pf = spawn('kubectl', ['--kubeconfig', up.kubeconfig, 'port-forward', 'service/redis-master', '7000:redis'], { stdio: ['ignore', 'pipe', 'pipe'] });
    try {
      let said = '';
      pf.stdout.on('data', (d: Buffer) => { said += d.toString(); });
      pf.stderr.on('data', (d: Buffer) => { said += d.toString(); });
      await eventually(async () => said.includes('Forwarding from 127.0.0.1:7000 -> 6379'), 60_000, 'port-forward listening', async () => said);
      assert.equal(await redisPing(7000), '+PONG\r\n');
      await eventually(async () => said.includes('Handling connection for 7000'), 10_000, 'port-forward handled the connection', async () => said);
    } finally {
      pf.kill();
    }
  });

  it('Debugging DNS Resolution: dnsutils resolves kubernetes.default, its resolv.conf; the kube-dns pods, Service and EndpointSlice', async () => {
    await kubectl(['apply', '-f', '-'], dnsutils);
    await kubectl(['wait', '--for=condition=Ready', 'pod/dnsutils', '--timeout=60s']);
    const t = await underTerminal(`kubectl --kubeconfig ${up.kubeconfig} exec -i -t dnsutils -- nslookup kubernetes.default`, [], 60_000);
    assert.equal(t.code, 0, t.out);
    // jessie-dnsutils' nslookup is BIND's: the name that answered through the search path, the server with its port.
    assert.equal(t.out, 'Server:\t\t10.96.0.10\r\nAddress:\t10.96.0.10#53\r\n\r\nName:\tkubernetes.default.svc.cluster.local\r\nAddress: 10.96.0.1\r\n\r\n');
    const miss = await kubectl(['exec', 'dnsutils', '--', 'nslookup', 'nosuchservice'], undefined, true);
    assert.deepEqual([miss.code, miss.stdout], [1, "Server:\t\t10.96.0.10\nAddress:\t10.96.0.10#53\n\n** server can't find nosuchservice: NXDOMAIN\n\n"]);
    assert.equal((await kubectl(['exec', 'dnsutils', '--', 'cat', '/etc/resolv.conf'])).stdout, resolvConf);
    // CoreDNS answers its readiness probe (/ready, every 10 s) once it has synced; the page shows the pods after they are Ready.
    await kubectl(['wait', '--for=condition=Ready', 'pod', '-l', 'k8s-app=kube-dns', '--namespace=kube-system', '--timeout=60s']);
    const dnsPods = (await kubectl(['get', 'pods', '--namespace=kube-system', '-l', 'k8s-app=kube-dns'])).stdout;
    assert.match(dnsPods, /^NAME\s+READY\s+STATUS\s+RESTARTS\s+AGE\n(coredns-\w+-\w+\s+1\/1\s+Running\s+0\s+\S+\n)+$/);
    assert.match((await kubectl(['get', 'svc', '--namespace=kube-system'])).stdout, /\nkube-dns\s+ClusterIP\s+10\.96\.0\.10\s+<none>\s+53\/UDP,53\/TCP,9153\/TCP\s/);
    assert.match((await kubectl(['get', 'endpointslices', '-l', 'kubernetes.io/service-name=kube-dns', '--namespace=kube-system'])).stdout, /\nkube-dns-\w+\s+IPv4\s+53,53,9153\s/);
  });
});
