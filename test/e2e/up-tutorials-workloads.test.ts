/**
 * The workload tutorials on `npm start`'s simulated nodes, with the real
 * kubectl 1.32, where k8ts once answered unlike upstream:
 *  - Kubernetes Basics (kubernetes-bootcamp): `kubectl logs` shows
 *    server.js's lines, `exec -- env` the image's ENV, `exec -- cat
 *    server.js` the file, and `curl http://NODE_IP:NODE_PORT` answers;
 *  - Connecting Applications with Services: pods made before `kubectl
 *    expose` have no MY_NGINX_* variables, recreated ones do;
 *  - Exposing an External IP Address: `curl http://EXTERNAL_IP:PORT` of the
 *    LoadBalancer Service answers from hello-app.
 * The Jobs page (pi, the hello CronJob) is in tutorial-logs.test.ts.
 */
import { describe, it, before, after } from 'node:test';
import { spawn } from 'node:child_process';
import net from 'node:net';
import assert from 'node:assert/strict';
import { eventually } from './harness.js';
import { startUp, type UpCluster } from './up-cluster.js';
import { runMyNginx } from './task-page-manifests.js';

/** A port nothing listens on now (for the LoadBalancer's port, which `k8ts up` opens on 127.0.0.1). */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as net.AddressInfo;
      s.close(() => resolve(port));
    });
    s.on('error', reject);
  });
}

/** How a new TCP connection to 127.0.0.1:port ends: undefined when it is accepted, else the error's code. */
function connectError(port: number): Promise<string | undefined> {
  return new Promise((resolve) => {
    const s = net.connect(port, '127.0.0.1', () => { s.destroy(); resolve(undefined); });
    s.on('error', (e: NodeJS.ErrnoException) => resolve(e.code));
  });
}

/** GET http://127.0.0.1:port/ once it answers (the port opens when the Service's watch event arrives). */
const getWhenOpen = (port: number) => eventually(async () => {
  const res = await fetch(`http://127.0.0.1:${port}/`).catch(() => undefined);
  return res?.status === 200 ? res.text() : undefined;
}, 60_000, `127.0.0.1:${port} answering`);

const serverJS = `var http = require('http');
var requests=0;
var podname= process.env.HOSTNAME;
var startTime;
var host;
var handleRequest = function(request, response) {
  response.setHeader('Content-Type', 'text/plain');
  response.writeHead(200);
  response.write("Hello Kubernetes bootcamp! | Running on: ");
  response.write(host);
  response.end(" | v=1\\n");
  console.log("Running On:" ,host, "| Total Requests:", ++requests,"| App Uptime:", (new Date() - startTime)/1000 , "seconds", "| Log Time:",new Date());
}
var www = http.createServer(handleRequest);
www.listen(8080,function () {
    startTime = new Date();;
    host = process.env.HOSTNAME;
    console.log ("Kubernetes Bootcamp App Started At:",startTime, "| Running On: " ,host, "\\n" );
});
`;

const iso = String.raw`\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z`;

describe('k8ts up: the workload tutorials on simulated nodes', () => {
  let up: UpCluster;
  const kubectl = (args: string[], input?: string, allowFail = false) => up.kubectl(args, input, allowFail);

  before(async () => { up = await startUp('k8ts-e2e-tut-workloads-'); });
  after(async () => { await up?.close(); });

  it('Kubernetes Basics: proxy, logs, exec env, cat server.js, curl; expose NodePort and curl NODE_IP:NODE_PORT', async () => {
    await kubectl(['create', 'deployment', 'kubernetes-bootcamp', '--image=gcr.io/google-samples/kubernetes-bootcamp:v1']);
    await kubectl(['rollout', 'status', 'deployment/kubernetes-bootcamp', '--timeout=120s']);
    const pod = (await kubectl(['get', 'pods', '-o', 'go-template', '--template', '{{range .items}}{{.metadata.name}}{{"\\n"}}{{end}}'])).stdout.trim();
    const hello = `Hello Kubernetes bootcamp! | Running on: ${pod} | v=1\n`;

    // kubectl proxy, then curl http://localhost:8001/api/v1/namespaces/default/pods/$POD_NAME:8080/proxy/
    const proxy = spawn('kubectl', ['--kubeconfig', up.kubeconfig, 'proxy', '--port=0'], { stdio: ['ignore', 'pipe', 'pipe'] });
    try {
      let said = '';
      proxy.stdout.on('data', (d: Buffer) => { said += d.toString(); });
      const port = await eventually(async () => /Starting to serve on 127\.0\.0\.1:(\d+)/.exec(said)?.[1], 30_000, 'kubectl proxy serving');
      assert.equal(await (await fetch(`http://localhost:${port}/api/v1/namespaces/default/pods/${pod}:8080/proxy/`)).text(), hello);
    } finally {
      proxy.kill('SIGTERM');
    }

    // kubectl logs "$POD_NAME": server.js's line when it listened, then one per request.
    const logs = (await kubectl(['logs', pod])).stdout;
    assert.match(logs, new RegExp(`^Kubernetes Bootcamp App Started At: ${iso} \\| Running On:  ${pod} \n\n` +
      `Running On: ${pod} \\| Total Requests: 1 \\| App Uptime: \\d+(\\.\\d+)? seconds \\| Log Time: ${iso}\n$`));

    const env = (await kubectl(['exec', pod, '--', 'env'])).stdout.split('\n');
    assert.deepEqual(env.slice(0, 4), ['PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin', `HOSTNAME=${pod}`, 'NPM_CONFIG_LOGLEVEL=info', 'NODE_VERSION=6.3.1']);
    assert.ok(env.includes('KUBERNETES_SERVICE_HOST=10.96.0.1'), env.join('\n'));
    // Inside `exec -ti $POD_NAME -- bash`: cat server.js; curl http://localhost:8080 (here without the terminal).
    assert.equal((await kubectl(['exec', pod, '--', 'cat', 'server.js'])).stdout, serverJS);
    assert.equal((await kubectl(['exec', pod, '--', 'curl', 'http://localhost:8080'])).stdout, hello);

    await kubectl(['expose', 'deployment/kubernetes-bootcamp', '--type=NodePort', '--port', '8080']);
    const nodePort = Number((await kubectl(['get', 'services/kubernetes-bootcamp', '-o', 'go-template={{(index .spec.ports 0).nodePort}}'])).stdout);
    const nodeIP = (await kubectl(['get', 'nodes', 'worker1', '-o', 'jsonpath={.status.addresses[?(@.type=="InternalIP")].address}'])).stdout;
    assert.equal(nodeIP, '127.0.0.1');
    // curl http://"$(minikube ip):$NODE_PORT"
    assert.equal(await getWhenOpen(nodePort), hello);
    // The requests through the Service are the app's too.
    assert.match((await kubectl(['logs', pod])).stdout, new RegExp(`\nRunning On: ${pod} \\| Total Requests: 3 \\| App Uptime: `));

    // kubectl delete service -l app=kubernetes-bootcamp; curl again: nothing listens on the node port.
    await kubectl(['delete', 'service', '-l', 'app=kubernetes-bootcamp']);
    await eventually(async () => (await connectError(nodePort)) === 'ECONNREFUSED' || undefined, 60_000, 'the node port closed');
    // The app still answers inside the pod.
    assert.equal((await kubectl(['exec', '-ti', pod, '--', 'curl', 'http://localhost:8080'])).stdout, hello);
  });

  it('Connecting Applications with Services: no MY_NGINX_* in pods made before expose; recreated pods have them', async () => {
    // Its own namespace, so that the only other Service is the master one, as on the page's cluster.
    await kubectl(['create', 'namespace', 'svc-tutorial']);
    const ns = ['-n', 'svc-tutorial'];
    await kubectl(['apply', ...ns, '-f', '-'], runMyNginx);
    await kubectl(['rollout', 'status', ...ns, 'deployment/my-nginx', '--timeout=120s']);
    await kubectl(['expose', ...ns, 'deployment/my-nginx']);
    const ip = (await kubectl(['get', ...ns, 'svc', 'my-nginx', '-o', 'jsonpath={.spec.clusterIP}'])).stdout;
    const first = (await kubectl(['get', ...ns, 'pods', '-l', 'run=my-nginx', '-o', 'jsonpath={.items[0].metadata.name}'])).stdout;
    const master = 'KUBERNETES_SERVICE_HOST=10.96.0.1\nKUBERNETES_SERVICE_PORT=443\nKUBERNETES_SERVICE_PORT_HTTPS=443\n';
    // kubectl exec my-nginx-3800858182-jr4a2 -- printenv | grep SERVICE
    const grep = async (pod: string) => (await kubectl(['exec', ...ns, pod, '--', 'sh', '-c', 'printenv | grep SERVICE'])).stdout;
    assert.equal(await grep(first), master);
    await kubectl(['scale', ...ns, 'deployment', 'my-nginx', '--replicas=0']);
    await eventually(async () => (await kubectl(['get', ...ns, 'pods', '-o', 'name'])).stdout === '', 60_000, 'the pods gone');
    await kubectl(['scale', ...ns, 'deployment', 'my-nginx', '--replicas=2']);
    await kubectl(['rollout', 'status', ...ns, 'deployment/my-nginx', '--timeout=120s']);
    const again = (await kubectl(['get', ...ns, 'pods', '-l', 'run=my-nginx', '-o', 'jsonpath={.items[0].metadata.name}'])).stdout;
    assert.equal(await grep(again), `${master}MY_NGINX_SERVICE_HOST=${ip}\nMY_NGINX_SERVICE_PORT=80\n`);
  });

  it('Exposing an External IP Address: the LoadBalancer\'s EXTERNAL-IP and port answer from hello-app', async () => {
    await kubectl(['apply', '-f', '-'], `apiVersion: apps/v1
kind: Deployment
metadata:
  labels:
    app.kubernetes.io/name: load-balancer-example
  name: hello-world
spec:
  replicas: 5
  selector:
    matchLabels:
      app.kubernetes.io/name: load-balancer-example
  template:
    metadata:
      labels:
        app.kubernetes.io/name: load-balancer-example
    spec:
      containers:
      - image: gcr.io/google-samples/hello-app:2.0
        name: hello-world
        ports:
        - containerPort: 8080
`);
    await kubectl(['rollout', 'status', 'deployment/hello-world', '--timeout=120s']);
    // The page's port is the container's, 8080; a free one here, since 127.0.0.1:8080 may be another program's.
    const port = await freePort();
    await kubectl(['expose', 'deployment', 'hello-world', '--type=LoadBalancer', '--name=my-service', `--port=${port}`, '--target-port=8080']);
    const external = await eventually(async () => (await kubectl(['get', 'services', 'my-service', '-o', 'jsonpath={.status.loadBalancer.ingress[0].ip}'])).stdout || undefined,
      60_000, 'the EXTERNAL-IP');
    assert.equal(external, '127.0.0.1');
    const pods = (await kubectl(['get', 'pods', '-l', 'app.kubernetes.io/name=load-balancer-example', '-o', 'jsonpath={.items[*].metadata.name}'])).stdout.split(' ');
    // curl http://<external-ip>:<port>
    const body = await getWhenOpen(port);
    const m = /^Hello, world!\nVersion: 2\.0\.0\nHostname: (\S+)\n$/.exec(body);
    assert.ok(m && pods.includes(m[1]!), body);
  });
});
