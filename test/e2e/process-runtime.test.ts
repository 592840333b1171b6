/**
 * The process runtime end to end: a real `k8ts server` (all controllers and
 * the scheduler), a real `k8ts agent --runtime process` with a manifest
 * directory, real host processes and the real kubectl. Everything binds to
 * 127.0.0.1 (the node IP, so every pod's IP).
 *
 *  - a static pod running a `node -e` HTTP server with an httpGet readiness
 *    probe: its mirror becomes Running and Ready, `kubectl logs` shows what
 *    it printed, editing the manifest restarts it, and an agent restart
 *    adopts the running process (same container ID, no second process);
 *  - a Deployment pod scheduled to the node runs with its env from a
 *    ConfigMap and a configMap volume bind-mounted at its mountPath;
 *  - restart policies: CrashLoopBackOff with growing restart counts,
 *    Never → Succeeded/Completed; deletion with the grace period.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync, unlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cliPath, eventually, startCluster, type Cluster } from './harness.js';
import { killChild, underTerminal } from './helpers.js';
import { nodeReady } from './real-node.js';
import { freePort } from './free-port.js';

const node = 'proc-node';
const work = mkdtempSync(join(tmpdir(), 'k8ts-e2e-proc-'));
const manifests = join(work, 'manifests');
let cluster: Cluster;
let agent: ChildProcess | undefined;
let agentLog = '';

function startAgent(): ChildProcess {
  const proc = spawn(process.execPath, [
    cliPath, 'agent', '--kubeconfig', cluster.kubeconfig, '--runtime', 'process', '--node-name', node, '--node-ip', '127.0.0.1',
    '--root-dir', join(work, 'kubelet'), '--pod-logs-dir', join(work, 'pods'), '--address', '127.0.0.1', '--kubelet-port', '0',
    '--pod-manifest-path', manifests, '--file-check-frequency', '1s', '--sync-frequency', '1s',
  ], { stdio: ['ignore', 'ignore', 'pipe'], env: { ...process.env, K8TS_LOG_LEVEL: 'debug' } });
  proc.stderr!.on('data', (d: Buffer) => { agentLog += d.toString(); });
  return proc;
}


const getPod = async (name: string): Promise<any> => {
  const r = await cluster.kubectl(['get', 'pod', name, '-o', 'json'], { allowFail: true });
  return r.code === 0 ? JSON.parse(r.stdout) : undefined;
};
const condition = (pod: any, type: string) => pod?.status?.conditions?.find((c: any) => c.type === type)?.status;
/** Whether pid runs (a zombie nobody reaped yet has ended). */
const pidAlive = (pid: number) => { try { return !/^\S+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8')); } catch { return false; } };

/** Every instance record the runtime wrote. */
function records(): { id: string; pid: number }[] {
  const pods = join(work, 'kubelet', 'pods');
  const out = [];
  for (const uid of existsSync(pods) ? readdirSync(pods) : []) {
    const dir = join(pods, uid, 'process');
    for (const inst of existsSync(dir) ? readdirSync(dir) : []) {
      const rec = join(dir, inst, 'record.json');
      if (existsSync(rec)) out.push(JSON.parse(readFileSync(rec, 'utf8')));
    }
  }
  return out;
}

/** The pid of the wrapper of a container instance, from the runtime's record. */
function recordedPid(containerID: string): number {
  const rec = records().find((r) => r.id === containerID.replace('process://', ''));
  if (!rec) throw new Error(`no record for ${containerID}`);
  return rec.pid;
}

const httpServer = `const http = require('http');
const port = Number(process.argv[1]);
http.createServer((req, res) => { console.log('GET ' + req.url); res.end(process.env.GREETING + ' from ' + process.cwd()); })
  .listen(port, '127.0.0.1', () => console.log('listening on ' + port));
process.on('SIGTERM', () => { console.log('terminating'); process.exit(0); });`;

const staticWeb = (port: number, greeting: string) => JSON.stringify({
  apiVersion: 'v1', kind: 'Pod', metadata: { name: 'web', namespace: 'default' },
  spec: {
    hostNetwork: true, terminationGracePeriodSeconds: 5,
    containers: [{
      name: 'server', image: 'registry.k8s.io/not-pulled:1', command: ['node', '-e', httpServer, String(port)], workingDir: work,
      env: [{ name: 'GREETING', value: greeting }],
      readinessProbe: { httpGet: { path: '/healthz', port }, periodSeconds: 1 },
    }],
  },
});

before(async () => {
  mkdirSync(manifests);
  cluster = await startCluster({ controllers: 'all' });
  agent = startAgent();
  await nodeReady(cluster, node);
});

after(async () => {
  if (agent) await killChild(agent);
  if (process.env.K8TS_TEST_AGENT_LOG) writeFileSync(process.env.K8TS_TEST_AGENT_LOG, agentLog);
  // The processes outlive the agent by design: stop what is left.
  for (const r of records()) if (pidAlive(r.pid)) try { process.kill(-r.pid, 'SIGKILL'); } catch { /* gone */ }
  await cluster?.cleanup().catch(() => {});
  rmSync(work, { recursive: true, force: true });
});

describe('the process runtime', () => {
  const mirror = `web-${node}`;
  let port: number;
  let containerID: string;

  it('runs a static pod as a host process: the mirror becomes Running and Ready through an httpGet probe', async () => {
    port = await freePort();
    writeFileSync(join(manifests, 'web.json'), staticWeb(port, 'hello'));
    const pod = await eventually(async () => { const p = await getPod(mirror); return condition(p, 'Ready') === 'True' && p; }, 60_000, `${mirror} Ready`);
    const cs = pod.status.containerStatuses[0];
    assert.equal(pod.status.phase, 'Running');
    assert.equal(pod.status.podIP, '127.0.0.1');
    assert.equal(cs.image, 'registry.k8s.io/not-pulled:1');
    assert.match(cs.containerID, /^process:\/\/[0-9a-f]{64}$/);
    assert.ok(cs.state.running);
    containerID = cs.containerID;
    const body = await (await fetch(`http://127.0.0.1:${port}/`)).text();
    assert.equal(body, `hello from ${work}`);
    const nodeObj = JSON.parse((await cluster.kubectl(['get', 'node', node, '-o', 'json'])).stdout);
    assert.equal(nodeObj.status.nodeInfo.containerRuntimeVersion, 'k8ts-process://0.1.0');
  });

  it('kubectl logs shows what the process printed', async () => {
    const logs = await eventually(async () => {
      const r = await cluster.kubectl(['logs', mirror]);
      return r.stdout.includes('GET /healthz') && r.stdout;
    }, 30_000, 'logs');
    assert.match(logs, new RegExp(`^listening on ${port}\n`));
  });

  it('kubectl exec runs a command with the container\'s env and working dir; exit codes come back', async () => {
    const r = await cluster.kubectl(['exec', mirror, '--', 'sh', '-c', 'echo "$GREETING in $(pwd)"; echo oops >&2']);
    assert.equal(r.stdout, `hello in ${work}\n`);
    assert.equal(r.stderr, 'oops\n');
    const fail = await cluster.kubectl(['exec', mirror, '--', 'sh', '-c', 'exit 3'], { allowFail: true });
    assert.equal(fail.code, 3, fail.stderr);
    const piped = await cluster.kubectl(['exec', '-i', mirror, '--', 'cat'], { input: 'through stdin\n' });
    assert.equal(piped.stdout, 'through stdin\n');
  });

  it('an agent restart adopts the running process: same container ID, no second process', async () => {
    const pid = recordedPid(containerID);
    await killChild(agent!);
    assert.ok(pidAlive(pid), 'the process outlives the agent');
    assert.equal(await (await fetch(`http://127.0.0.1:${port}/`)).text(), `hello from ${work}`);
    const mark = agentLog.length;
    agent = startAgent();
    await eventually(async () => agentLog.slice(mark).includes('adopted pod from host processes'), 30_000, 'adoption');
    await eventually(async () => agentLog.slice(mark).includes('"msg":"static pod added"'), 30_000, 'the manifest read again');
    await nodeReady(cluster, node);
    const pod = await eventually(async () => { const p = await getPod(mirror); return condition(p, 'Ready') === 'True' && p; }, 30_000, 'Ready after restart');
    assert.equal(pod.status.containerStatuses[0].containerID, containerID);
    assert.equal(pod.status.containerStatuses[0].restartCount, 0);
    assert.ok(pidAlive(pid));
    // Still one server: a duplicate would have failed to bind the port and shown as a restart.
    const later = await getPod(mirror);
    assert.equal(later.status.containerStatuses[0].restartCount, 0);
  });

  it('editing the manifest replaces the pod: the old process ends, a new one serves', async () => {
    const oldPid = recordedPid(containerID);
    writeFileSync(join(manifests, 'web.json'), staticWeb(port, 'edited'));
    await eventually(async () => {
      const r = await fetch(`http://127.0.0.1:${port}/`).then((x) => x.text(), () => '');
      return r === `edited from ${work}`;
    }, 60_000, 'the edited pod serving');
    assert.ok(!pidAlive(oldPid), 'the old process is gone');
    const pod = await eventually(async () => { const p = await getPod(mirror); return condition(p, 'Ready') === 'True' && p.status.containerStatuses[0].containerID !== containerID && p; }, 30_000, 'new mirror Ready');
    containerID = pod.status.containerStatuses[0].containerID;
  });

  it('removing the manifest stops the process and the mirror goes', async () => {
    const pid = recordedPid(containerID);
    unlinkSync(join(manifests, 'web.json'));
    await eventually(async () => !(await getPod(mirror)), 60_000, 'mirror gone');
    await eventually(async () => !pidAlive(pid), 30_000, 'process gone');
  });

  it('a Deployment pod scheduled to the node runs, with env from a ConfigMap, a configMap volume at its mountPath and an exec readiness probe', async () => {
    const mnt = join(work, 'mnt', 'config');
    await cluster.kubectl(['create', 'configmap', 'app-config', '--from-literal=greeting=bonjour', '--from-literal=file.txt=from the volume']);
    const deploy = {
      apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'app', namespace: 'default' },
      spec: {
        replicas: 1, selector: { matchLabels: { app: 'app' } },
        template: {
          metadata: { labels: { app: 'app' } },
          spec: {
            terminationGracePeriodSeconds: 2,
            volumes: [{ name: 'config', configMap: { name: 'app-config' } }, { name: 'scratch', emptyDir: {} }],
            containers: [{
              name: 'main', image: 'busybox', command: ['sh', '-c', 'echo "$GREETING"; cat "$CFG/file.txt"; echo; echo written > /tmp/never-here 2>/dev/null; ls "$SCRATCH"; sleep 3600'],
              env: [{ name: 'GREETING', valueFrom: { configMapKeyRef: { name: 'app-config', key: 'greeting' } } }, { name: 'CFG', value: mnt }, { name: 'SCRATCH', value: join(work, 'mnt', 'scratch') }],
              volumeMounts: [{ name: 'config', mountPath: mnt }, { name: 'scratch', mountPath: join(work, 'mnt', 'scratch') }],
              // An exec probe runs in the container's mount namespace: the file is there only.
              readinessProbe: { exec: { command: ['test', '-f', join(mnt, 'file.txt')] }, periodSeconds: 1 },
            }],
          },
        },
      },
    };
    await cluster.kubectl(['apply', '-f', '-'], { input: JSON.stringify(deploy) });
    const pod = await eventually(async () => {
      const list = JSON.parse((await cluster.kubectl(['get', 'pods', '-l', 'app=app', '-o', 'json'])).stdout).items;
      return list.find((p: any) => condition(p, 'Ready') === 'True');
    }, 60_000, 'the Deployment pod Ready');
    assert.equal(pod.spec.nodeName, node);
    assert.equal(pod.status.podIP, '127.0.0.1', 'no pod network: the node IP');
    const logs = await eventually(async () => {
      const r = await cluster.kubectl(['logs', pod.metadata.name]);
      return r.stdout.includes('from the volume') && r.stdout;
    }, 30_000, 'logs');
    assert.match(logs, /^bonjour\nfrom the volume\n/);
    // The bind mount is private to the container: the host sees an empty mount point.
    assert.deepEqual(readdirSync(mnt), []);
    const inside = await cluster.kubectl(['exec', pod.metadata.name, '--', 'cat', join(mnt, 'file.txt')]);
    assert.equal(inside.stdout, 'from the volume');
    await cluster.kubectl(['delete', 'deployment', 'app']);
    await eventually(async () => JSON.parse((await cluster.kubectl(['get', 'pods', '-l', 'app=app', '-o', 'json'])).stdout).items.length === 0, 60_000, 'pods gone');
  });

  it('restartPolicy Always: a failing container restarts with back-off (CrashLoopBackOff) and keeps its last exit', async () => {
    await cluster.kubectl(['run', 'crasher', '--image=busybox', '--restart=Always', `--overrides=${JSON.stringify({ spec: { nodeName: node } })}`, '--command', '--', 'sh', '-c', 'echo try; exit 3']);
    const pod = await eventually(async () => {
      const p = await getPod('crasher');
      const cs = p?.status?.containerStatuses?.[0];
      return cs?.state?.waiting?.reason === 'CrashLoopBackOff' && cs.restartCount >= 1 && p;
    }, 60_000, 'CrashLoopBackOff');
    const cs = pod.status.containerStatuses[0];
    assert.equal(cs.lastState.terminated.exitCode, 3);
    assert.equal(cs.lastState.terminated.reason, 'Error');
    assert.match(cs.state.waiting.message, /^back-off 10s restarting failed container=crasher pod=crasher_default/);
    const previous = await cluster.kubectl(['logs', 'crasher', '--previous']);
    assert.equal(previous.stdout, 'try\n');
    await cluster.kubectl(['delete', 'pod', 'crasher', '--wait=false']);
  });

  it('restartPolicy Never: a command that exits 0 leaves the pod Succeeded, Completed', async () => {
    await cluster.kubectl(['run', 'once', '--image=busybox', '--restart=Never', `--overrides=${JSON.stringify({ spec: { nodeName: node } })}`, '--command', '--', 'sh', '-c', 'echo done']);
    const pod = await eventually(async () => { const p = await getPod('once'); return p?.status?.phase === 'Succeeded' && p; }, 60_000, 'Succeeded');
    assert.equal(pod.status.containerStatuses[0].state.terminated.reason, 'Completed');
    assert.equal(pod.status.containerStatuses[0].state.terminated.exitCode, 0);
  });

  it('a container without a command waits with a reason instead of hanging', async () => {
    await cluster.kubectl(['run', 'nocmd', '--image=busybox', `--overrides=${JSON.stringify({ spec: { nodeName: node } })}`]);
    const pod = await eventually(async () => { const p = await getPod('nocmd'); return p?.status?.containerStatuses?.[0]?.state?.waiting?.reason === 'CreateContainerError' && p; }, 60_000, 'CreateContainerError');
    assert.match(pod.status.containerStatuses[0].state.waiting.message, /has no command/);
    await cluster.kubectl(['delete', 'pod', 'nocmd', '--wait=false']);
  });

  it('kubectl describe pod says why a container cannot start: Warning Failed "Error: exec: ... not found in $PATH", as kuberuntime records it', async () => {
    await cluster.kubectl(['run', 'nocmdfound', '--image=busybox', `--overrides=${JSON.stringify({ spec: { nodeName: node } })}`, '--command', '--', 'no-such-command-k8ts', '-f']);
    const line = await eventually(async () => {
      const out = (await cluster.kubectl(['describe', 'pod', 'nocmdfound'])).stdout;
      return out.split('\n').find((l) => /^ +Warning +Failed /.test(l));
    }, 60_000, 'the Failed event');
    assert.match(line, /^ +Warning +Failed +\S+ +kubelet +Error: exec: "no-such-command-k8ts": executable file not found in \$PATH$/);
    const pod = await getPod('nocmdfound');
    assert.equal(pod.status.containerStatuses[0].state.waiting.reason, 'RunContainerError');
    await cluster.kubectl(['delete', 'pod', 'nocmdfound', '--wait=false']);
  });

  it('deletion sends SIGTERM to the process group and SIGKILL once the grace period runs out', async () => {
    const spec = (name: string, script: string) => ({
      apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace: 'default' },
      spec: { nodeName: node, terminationGracePeriodSeconds: 3, containers: [{ name: 'main', image: 'busybox', command: ['sh', '-c', script] }] },
    });
    await cluster.kubectl(['create', '-f', '-'], { input: JSON.stringify(spec('polite', 'trap "echo got TERM; exit 0" TERM; echo up; while :; do sleep 0.1; done')) });
    await cluster.kubectl(['create', '-f', '-'], { input: JSON.stringify(spec('stubborn', 'trap "echo ignoring TERM" TERM; echo up; while :; do sleep 0.1; done')) });
    const pids: Record<string, number> = {};
    for (const name of ['polite', 'stubborn']) {
      const p = await eventually(async () => { const x = await getPod(name); return x?.status?.containerStatuses?.[0]?.state?.running && x; }, 60_000, `${name} running`);
      pids[name] = recordedPid(p.status.containerStatuses[0].containerID);
      await eventually(async () => (await cluster.kubectl(['logs', name])).stdout.includes('up'), 30_000, `${name} logging`);
    }
    const started = Date.now();
    await Promise.all(['polite', 'stubborn'].map((n) => cluster.kubectl(['delete', 'pod', n])));
    assert.ok(!pidAlive(pids.polite) && !pidAlive(pids.stubborn), 'both processes are gone once the pods are');
    assert.ok(Date.now() - started >= 3000, 'the stubborn one was killed only after its 3 s grace period');
  });
});

describe('exec -it, attach and port-forward on the process runtime', () => {
  const onNode = (name: string, container: object) => JSON.stringify({
    apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace: 'default' },
    spec: { nodeName: node, terminationGracePeriodSeconds: 2, containers: [{ name: 'main', image: 'busybox', ...container }] },
  });
  const running = (name: string) => eventually(async () => { const p = await getPod(name); return p?.status?.containerStatuses?.[0]?.state?.running && p; }, 60_000, `${name} running`);
  const kubectlArgs = () => ['--kubeconfig', cluster.kubeconfig, '--cache-dir', join(cluster.dataDir, 'kubectl-cache')];
  /** A long-running kubectl (attach, port-forward) with its stdin piped and its output collected. */
  const longKubectl = (args: string[], env: Record<string, string> = {}) => {
    const child = spawn('kubectl', [...kubectlArgs(), ...args], { stdio: ['pipe', 'pipe', 'pipe'], env: { ...process.env, ...env } });
    const seen = { out: '' };
    child.stdout.on('data', (d: Buffer) => { seen.out += d.toString(); });
    child.stderr.on('data', (d: Buffer) => { seen.out += d.toString(); });
    return { child, seen };
  };

  it('kubectl exec -it gets a pseudo-terminal of the caller\'s size; the exit code comes back', async () => {
    await cluster.kubectl(['create', '-f', '-'], { input: onNode('shell', { command: ['sleep', '3600'] }) });
    await running('shell');
    // The outer terminal is 33x101: kubectl sends that size, which the container's terminal takes.
    const r = await underTerminal(`stty rows 33 cols 101; kubectl ${kubectlArgs().join(' ')} exec -it shell -- sh`, [
      'until [ "$(stty size)" = "33 101" ]; do sleep 0.2; done; echo "SIZE-$(stty size | tr " " x)"; tty; [ -t 0 ] && echo STDIN-IS-A-TTY\n',
      'exit 7\n',
    ], 60_000);
    assert.match(r.out, /SIZE-33x101/);
    assert.match(r.out, /\/dev\/pts\/\d+/);
    assert.match(r.out, /STDIN-IS-A-TTY/);
    assert.equal(r.code, 7, r.out);
    // Without -t there is no terminal.
    const plain = await cluster.kubectl(['exec', '-i', 'shell', '--', 'sh', '-c', '[ -t 0 ] && echo tty || echo no-tty'], { input: '' });
    assert.equal(plain.stdout, 'no-tty\n');
  });

  it('kubectl attach -i writes to the stdin of a container started with stdin: true and shows its output; detaching leaves it running', async () => {
    await cluster.kubectl(['create', '-f', '-'], { input: onNode('echoer', { stdin: true, command: ['sh', '-c', 'echo ready; while read l; do echo "got $l"; done; echo eof'] }) });
    const pod = await running('echoer');
    for (const word of ['hello', 'again']) {
      const { child, seen } = longKubectl(['attach', '-i', 'echoer']);
      try {
        // Input is written until the container echoes it: the first lines may arrive before the attach is served.
        await eventually(async () => { child.stdin.write(`${word}\n`); return seen.out.includes(`got ${word}`); }, 60_000, `attach echo of ${word}`);
      } finally {
        await killChild(child);
      }
    }
    const after = await getPod('echoer');
    assert.equal(after.status.containerStatuses[0].containerID, pod.status.containerStatuses[0].containerID, 'the same instance runs after two detaches');
    assert.equal(after.status.containerStatuses[0].restartCount, 0);
    assert.match((await cluster.kubectl(['logs', 'echoer'])).stdout, /^ready\ngot hello\n(got hello\n)*got again\n/);
  });

  it('kubectl debug adds an ephemeral container that runs once as a host process; kubectl logs -c shows its output', async () => {
    await cluster.kubectl(['debug', 'echoer', '--image=busybox', '--target=main', '--container=dbg', '--', 'sh', '-c', 'echo "debugging $0"', 'echoer']);
    const status = await eventually(async () => {
      const s = (await getPod('echoer'))?.status?.ephemeralContainerStatuses?.find((x: any) => x.name === 'dbg');
      return s?.state?.terminated && s;
    }, 60_000, 'dbg terminated');
    assert.equal(status.state.terminated.exitCode, 0);
    assert.equal(status.restartCount, 0);
    assert.ok(records().some((r) => `process://${r.id}` === status.containerID), 'an instance record of the process runtime');
    assert.equal((await cluster.kubectl(['logs', 'echoer', '-c', 'dbg'])).stdout, 'debugging echoer\n');
    assert.equal((await getPod('echoer')).status.containerStatuses[0].restartCount, 0, 'the pod\'s own container runs on');
  });

  it('kubectl port-forward reaches a port of a process pod; a closed port is reported', async () => {
    const podPort = await freePort();
    await cluster.kubectl(['create', '-f', '-'], {
      input: onNode('fwd', { command: ['node', '-e', httpServer, String(podPort)], env: [{ name: 'GREETING', value: 'forwarded' }], workingDir: work }),
    });
    await running('fwd');
    await eventually(async () => (await cluster.kubectl(['logs', 'fwd'])).stdout.includes('listening'), 60_000, 'fwd listening');
    const localPort = await freePort();
    // kubectl 1.32 tunnels SPDY through a WebSocket; plain SPDY is its fallback. The API server speaks SPDY to the kubelet either way.
    for (const [transport, env] of [['tunneled', {}], ['SPDY', { KUBECTL_PORT_FORWARD_WEBSOCKETS: 'false' }]] as const) {
      const pf = longKubectl(['port-forward', 'pod/fwd', `${localPort}:${podPort}`], env);
      try {
        await eventually(async () => pf.seen.out.includes('Forwarding from'), 60_000, `port-forward ready (${transport})`);
        for (let i = 0; i < 3; i++) {
          const body = await (await fetch(`http://127.0.0.1:${localPort}/${transport}-${i}`)).text();
          assert.equal(body, `forwarded from ${work}`);
        }
        assert.match((await cluster.kubectl(['logs', 'fwd'])).stdout, new RegExp(`GET /${transport}-2`));
      } finally {
        await killChild(pf.child);
      }
    }
    // A port nothing listens on: kubectl shows the kubelet's error.
    const closedPort = await freePort();
    const bad = longKubectl(['port-forward', 'pod/fwd', `${localPort}:${closedPort}`]);
    try {
      await eventually(async () => bad.seen.out.includes('Forwarding from'), 60_000, 'port-forward ready');
      await fetch(`http://127.0.0.1:${localPort}/`).catch(() => undefined);
      await eventually(async () => bad.seen.out.includes(`error forwarding port ${closedPort} to pod default/fwd`), 60_000, 'the forwarding error');
      assert.match(bad.seen.out, /connection refused/);
    } finally {
      await killChild(bad.child);
    }
    await cluster.kubectl(['delete', 'pod', 'fwd', 'echoer', 'shell', '--wait=false']);
  });
});
