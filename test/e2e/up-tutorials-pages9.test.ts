/**
 * More kubernetes.io pages, command by command with the real kubectl 1.32
 * (and curl and base64, where the pages use them) on `npm start`'s
 * simulated nodes, where k8ts once answered unlike upstream:
 *  - Use a User Namespace With a Pod: `readlink /proc/self/ns/user` was
 *    `bash: readlink: command not found` and /proc/self/uid_map did not
 *    exist; now the pod with hostUsers: false has its own user namespace
 *    (65536 ids from a multiple of 65536) and other pods the host's;
 *  - Fine Parallel Processing Using a Work Queue: the simulated redis
 *    answered `rpush job2 "apple"` with `ERR unknown command`; now it has
 *    the list commands, so the page's queue fills and lists.
 * Walked and answering as upstream already, checked here so they stay so:
 * Pull an Image from a Private Registry (the docker-registry Secret, its
 * decoded .dockerconfigjson, the page's pod), Use a Service to Access an
 * Application in a Cluster (hello-app behind a NodePort) and Kubernetes
 * Basics' Scale Your App.
 * Every wait polls a condition with a generous deadline; nothing is timed.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { eventually } from './harness.js';
import { underTerminal } from './helpers.js';
import { startUp, type UpCluster } from './up-cluster.js';
import * as m from './up-tutorials-pages9-manifests.js';

/** curl as the pages run it. */
function curl(url: string): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile('curl', ['-s', '--max-time', '20', url], (err, stdout, stderr) => (err ? reject(new Error(`curl ${url}: ${stderr || err.message}`)) : resolve(stdout)));
  });
}

/** The host's user namespace as the kernel names it, and its identity map of every id. */
const hostUserNamespace = 'user:[4026531837]';
const hostIDMap = '         0          0 4294967295\n';

describe('k8ts up: the user namespace, private registry, work queue, Service access and Scale Your App pages on simulated nodes', () => {
  let up: UpCluster;
  const kubectl = (args: string[], input?: string, allowFail = false) => up.kubectl(args, input, allowFail);
  const out = async (args: string[], input?: string) => (await kubectl(args, input)).stdout;
  const file = (name: string, text: string) => { const path = join(up.dir, name); writeFileSync(path, text); return path; };
  const terminal = (command: string, input: string[], prompt?: RegExp) => underTerminal(`kubectl --kubeconfig ${up.kubeconfig} ${command}`, input, 120_000, prompt);
  const ready = (pod: string) => kubectl(['wait', '--for=condition=Ready', `pod/${pod}`, '--timeout=120s']);
  const nodeIP = async () => out(['get', 'nodes', '-o', 'jsonpath={.items[0].status.addresses[?(@.type=="InternalIP")].address}']);

  before(async () => {
    up = await startUp('k8ts-e2e-tut-pages9-');
  });
  after(async () => { await up?.close(); });

  it('Use a User Namespace With a Pod: userns has its own user namespace and 65536 ids of the node; a pod without hostUsers: false has the host\'s', async () => {
    assert.equal(await out(['apply', '-f', file('user-namespaces-stateless.yaml', m.usernsPod)]), 'pod/userns created\n');
    await ready('userns');
    const shell = await terminal('exec -ti userns -- bash', ['readlink /proc/self/ns/user\r', 'cat /proc/self/uid_map\r', 'exit\r']);
    assert.equal(shell.code, 0, shell.out);
    const ns = /readlink \/proc\/self\/ns\/user\r\n(user:\[\d+\])\r\n/.exec(shell.out)?.[1];
    assert.ok(ns, shell.out);
    assert.notEqual(ns, hostUserNamespace);
    const map = /cat \/proc\/self\/uid_map\r\n +0 +(\d+) +65536\r\n/.exec(shell.out);
    assert.ok(map, shell.out);
    const first = Number(map[1]);
    assert.ok(first > 0 && first % 65536 === 0 && first + 65536 <= 2 ** 32, `first host id ${first}`);
    // "Then, open a shell in the host and run the same commands": the host's namespace is what a pod without hostUsers: false has.
    await kubectl(['run', 'host-users', '--image=debian', '--', 'sleep', 'infinity']);
    await ready('host-users');
    assert.equal(await out(['exec', 'host-users', '--', 'readlink', '/proc/self/ns/user']), `${hostUserNamespace}\n`);
    assert.equal(await out(['exec', 'host-users', '--', 'cat', '/proc/self/uid_map']), hostIDMap);
    // readlink of something that is no symlink prints nothing and fails, as coreutils' does.
    const plain = await kubectl(['exec', 'host-users', '--', 'readlink', '/etc/hostname'], undefined, true);
    assert.deepEqual([plain.code, plain.stdout], [1, '']);
    await kubectl(['delete', 'pod', 'userns', 'host-users', '--wait=false']);
  });

  it('Pull an Image from a Private Registry: the docker-registry Secret, its .dockerconfigjson decoded, and the page\'s pod', async () => {
    assert.equal(await out(['create', 'secret', 'docker-registry', 'regcred', '--docker-server=registry.example.com', '--docker-username=janedoe',
      '--docker-password=xxxxxxxxxxx', '--docker-email=jdoe@example.com']), 'secret/regcred created\n');
    const yaml = await out(['get', 'secret', 'regcred', '--output=yaml']);
    assert.match(yaml, /^apiVersion: v1\ndata:\n {2}\.dockerconfigjson: [A-Za-z0-9+/=]+\nkind: Secret\nmetadata:\n/);
    assert.match(yaml, /\ntype: kubernetes\.io\/dockerconfigjson\n$/);
    const config = JSON.parse(Buffer.from(await out(['get', 'secret', 'regcred', '--output=jsonpath={.data.\\.dockerconfigjson}']), 'base64').toString());
    assert.deepEqual(config, { auths: { 'registry.example.com': { username: 'janedoe', password: 'xxxxxxxxxxx', email: 'jdoe@example.com', auth: 'amFuZWRvZTp4eHh4eHh4eHh4eA==' } } });
    assert.equal(Buffer.from(config.auths['registry.example.com'].auth, 'base64').toString(), 'janedoe:xxxxxxxxxxx');
    // "Create a Secret based on existing credentials": the same, from a Docker config file.
    const dockerConfig = file('config.json', JSON.stringify(config));
    assert.equal(await out(['create', 'secret', 'generic', 'regcred-file', `--from-file=.dockerconfigjson=${dockerConfig}`, '--type=kubernetes.io/dockerconfigjson']), 'secret/regcred-file created\n');
    assert.equal(await out(['get', 'secret', 'regcred-file', '-o', 'jsonpath={.type}']), 'kubernetes.io/dockerconfigjson');
    // The page's pod as it is: its placeholder is no image name, which the kubelet refuses as upstream's does.
    assert.equal(await out(['apply', '-f', file('my-private-reg-pod.yaml', m.privateRegPod)]), 'pod/private-reg created\n');
    await eventually(async () => (await out(['get', 'pod', 'private-reg', '-o', 'jsonpath={.status.containerStatuses[0].state.waiting.reason}'])) === 'InvalidImageName' || undefined, 120_000, 'InvalidImageName');
    // With the image filled in, as the page asks.
    await kubectl(['delete', 'pod', 'private-reg']);
    assert.equal(await out(['apply', '-f', file('my-private-reg-pod.yaml', m.privateRegPod.replace('<your-private-image>', 'registry.example.com/janedoe/private-app:v1'))]), 'pod/private-reg created\n');
    await ready('private-reg');
    assert.match(await out(['get', 'pod', 'private-reg']), /^NAME +READY +STATUS +RESTARTS +AGE\nprivate-reg +1\/1 +Running +0 +\S+\n$/);
    assert.equal(await out(['get', 'pod', 'private-reg', '-o', 'jsonpath={.spec.imagePullSecrets[0].name}']), 'regcred');
    await kubectl(['delete', 'pod', 'private-reg', '--wait=false']);
  });

  it('Fine Parallel Processing Using a Work Queue: redis-cli -h redis in a temporary pod fills job2 with rpush and lists it with lrange', async () => {
    assert.equal(await out(['create', '-f', file('redis-pod.yaml', m.redisPod)]), 'pod/redis-master created\n');
    assert.equal(await out(['create', '-f', file('redis-service.yaml', m.redisService)]), 'service/redis created\n');
    await ready('redis-master');
    const fruits = ['apple', 'banana', 'cherry', 'date', 'fig', 'grape', 'lemon', 'melon', 'orange'];
    const lines = ['redis-cli -h redis\r', ...fruits.map((f) => `rpush job2 "${f}"\r`), 'lrange job2 0 -1\r', 'exit\r', 'exit\r'];
    const run = await terminal('run -i --tty temp --image redis --command "/bin/sh"', lines, /([#$] (\x1b\[6n|\x1b\[J)?|redis:6379> )$/);
    assert.equal(run.code, 0, run.out);
    const transcript = run.out.replace(/\r/g, '');
    fruits.forEach((f, i) => assert.ok(transcript.includes(`redis:6379> rpush job2 "${f}"\n(integer) ${i + 1}\n`), `${f}:\n${transcript}`));
    assert.ok(transcript.includes(`redis:6379> lrange job2 0 -1\n${fruits.map((f, i) => `${i + 1}) "${f}"\n`).join('')}redis:6379> `), transcript);
    assert.match(transcript, /Session ended, resume using 'kubectl attach temp -c temp -i -t' command when the pod is running\n/);
    // The queue is the server's: another client sees it.
    assert.equal(await out(['exec', 'redis-master', '--', 'redis-cli', 'llen', 'job2']), '9\n');
    await kubectl(['delete', 'pod', 'temp', 'redis-master', '--wait=false']);
    await kubectl(['delete', 'service', 'redis']);
  });

  it('Use a Service to Access an Application in a Cluster: hello-world behind example-service answers on the node port', async () => {
    assert.equal(await out(['apply', '-f', file('hello-application.yaml', m.helloApplication)]), 'deployment.apps/hello-world created\n');
    await kubectl(['rollout', 'status', 'deployment/hello-world', '--timeout=120s']);
    assert.match(await out(['get', 'deployments', 'hello-world']), /^NAME +READY +UP-TO-DATE +AVAILABLE +AGE\nhello-world +2\/2 +2 +2 +\S+\n$/);
    assert.equal(await out(['expose', 'deployment', 'hello-world', '--type=NodePort', '--name=example-service']), 'service/example-service exposed\n');
    const described = await out(['describe', 'services', 'example-service']);
    assert.match(described, /\nSelector: +run=load-balancer-example\nType: +NodePort\n/);
    const nodePort = /\nNodePort: +<unset> +(\d+)\/TCP\n/.exec(described)?.[1];
    assert.ok(nodePort, described);
    const pods = (await out(['get', 'pods', '--selector=run=load-balancer-example', '--output=wide'])).trim().split('\n').slice(1).map((l) => l.split(/\s+/)[0]!);
    assert.equal(pods.length, 2);
    const answer = await curl(`http://${await nodeIP()}:${nodePort}`);
    const host = /^Hello, world!\nVersion: 2\.0\.0\nHostname: (\S+)\n$/.exec(answer)?.[1];
    assert.ok(host && pods.includes(host), `${answer} from ${pods.join(', ')}`);
    assert.equal(await out(['delete', 'services', 'example-service']), 'service "example-service" deleted\n');
    assert.equal(await out(['delete', 'deployment', 'hello-world']), 'deployment.apps "hello-world" deleted\n');
  });

  it('Kubernetes Basics, Scale Your App: scale to 4, the pods behind the NodePort answer by name, scale down to 2', async () => {
    await kubectl(['create', 'deployment', 'kubernetes-bootcamp', '--image=gcr.io/google-samples/kubernetes-bootcamp:v1']);
    await kubectl(['expose', 'deployment/kubernetes-bootcamp', '--type=NodePort', '--port', '8080']);
    await kubectl(['rollout', 'status', 'deployment/kubernetes-bootcamp', '--timeout=120s']);
    assert.match(await out(['get', 'rs']), /^NAME +DESIRED +CURRENT +READY +AGE\nkubernetes-bootcamp-[a-z0-9]+ +1 +1 +1 +\S+\n$/);
    assert.equal(await out(['scale', 'deployments/kubernetes-bootcamp', '--replicas=4']), 'deployment.apps/kubernetes-bootcamp scaled\n');
    await kubectl(['rollout', 'status', 'deployment/kubernetes-bootcamp', '--timeout=120s']);
    assert.match(await out(['get', 'deployments']), /\nkubernetes-bootcamp +4\/4 +4 +4 +\S+\n/);
    const pods = (await out(['get', 'pods', '-l', 'app=kubernetes-bootcamp', '-o', 'wide'])).trim().split('\n').slice(1).map((l) => l.split(/\s+/));
    assert.equal(pods.length, 4);
    assert.ok(pods.every((p) => p[2] === 'Running' && /^10\.244\.\d+\.\d+$/.test(p[5]!)), JSON.stringify(pods));
    assert.match(await out(['describe', 'deployments/kubernetes-bootcamp']), /Scaled up replica set kubernetes-bootcamp-[a-z0-9]+ from 1 to 4\n/);
    const nodePort = await out(['get', 'services/kubernetes-bootcamp', '-o', 'go-template={{(index .spec.ports 0).nodePort}}']);
    const ip = await nodeIP();
    const names = pods.map((p) => p[0]!);
    for (let i = 0; i < 4; i++) {
      const answer = await curl(`http://${ip}:${nodePort}`);
      const host = /^Hello Kubernetes bootcamp! \| Running on: (\S+) \| v=1\n$/.exec(answer)?.[1];
      assert.ok(host && names.includes(host), `${answer} from ${names.join(', ')}`);
    }
    assert.equal(await out(['scale', 'deployments/kubernetes-bootcamp', '--replicas=2']), 'deployment.apps/kubernetes-bootcamp scaled\n');
    await eventually(async () => (await out(['get', 'pods', '-l', 'app=kubernetes-bootcamp', '--no-headers'])).trim().split('\n').length === 2 || undefined, 120_000, 'two pods left');
    assert.match(await out(['get', 'deployments']), /\nkubernetes-bootcamp +2\/2 +2 +2 +\S+\n/);
  });
});
