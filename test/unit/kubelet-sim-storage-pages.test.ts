/**
 * The simulated runtime's additions for the storage and services task
 * pages: `kill` (kill.ts; its messages compared with the machine's busybox
 * 1.35 ash, dash and bash where present) and the Connect a Frontend to a
 * Backend page's responders (sample-services.ts).
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import http from 'node:http';
import type { Duplex } from 'node:stream';
import { kill, mainExitOnSignal, signalNumber } from '../../src/kubelet/runtime/simulated/kill.js';
import { connectListener, listeningPorts } from '../../src/kubelet/runtime/simulated/listeners.js';
import type { HttpOutcome, HttpRequest } from '../../src/kubelet/runtime/simulated/http-commands.js';
import type { ShellDialect } from '../../src/kubelet/runtime/simulated/shell-dialect.js';
import { SimulatedVolumeStore, writableMounts } from '../../src/kubelet/runtime/simulated/volumes.js';
import type { PodObjectGetter } from '../../src/kubelet/volumes/objects.js';
import type { Container, Pod } from 'kubernetes-types/core/v1.js';
import { imageWorkingDir } from '../../src/kubelet/runtime/simulated/image-workdir.js';
import { withRootFilesystem } from '../../src/kubelet/runtime/simulated/rootfs.js';

const shells: Record<ShellDialect, { bin: string[]; argv0: string }> = {
  ash: { bin: ['/usr/bin/busybox'], argv0: 'sh' },
  dash: { bin: ['/usr/bin/dash'], argv0: 'dash' },
  bash: { bin: ['/usr/bin/bash'], argv0: 'bash' },
};

function simulated(d: ShellDialect, args: string[], pids = [1]) {
  const out: string[] = [];
  const signalled: number[] = [];
  const code = kill(args, { dialect: { name: d, argv0: shells[d].argv0, interactive: false, line: () => 1 }, pids, mainIsPid1: true, signalMain: (s) => signalled.push(s) },
    (_s, t) => out.push(t));
  return { stderr: out.join(''), code, signalled };
}

describe('simulated shell: kill', () => {
  for (const d of ['ash', 'dash', 'bash'] as const) {
    it(`${d}: kill's refusals say what the machine's ${d} says`, (t) => {
      if (!existsSync(shells[d].bin[0]!)) { t.diagnostic(`${shells[d].bin[0]} missing: compared with the recorded text only`); }
      // PIDs no process of a fresh shell holds on this machine (pid_max is below 4194304+).
      for (const args of [['4194301'], ['-FOO', '1'], ['-SIGTERM', '4194301'], ['-s', 'BAR', '1'], ['abc'], []]) {
        const sim = simulated(d, args);
        if (!existsSync(shells[d].bin[0]!)) continue;
        const [bin, ...pre] = shells[d].bin;
        const real = spawnSync(bin!, [...pre, '-c', `kill ${args.join(' ')}`], { encoding: 'utf8', argv0: shells[d].argv0 });
        assert.deepEqual({ stderr: sim.stderr, code: sim.code }, { stderr: real.stderr, code: real.status }, `kill ${args.join(' ')}`);
      }
    });
  }

  it('kill 1 signals the main process with TERM by default, or the signal named', () => {
    assert.deepEqual(simulated('dash', ['1']).signalled, [15]);
    assert.deepEqual(simulated('dash', ['-9', '1']).signalled, [9]);
    assert.deepEqual(simulated('bash', ['-s', 'INT', '1']).signalled, [2]);
    assert.deepEqual(simulated('ash', ['-SIGQUIT', '1']).signalled, [3]);
    assert.deepEqual(simulated('ash', ['-HUP', '7'], [1, 7]), { stderr: '', code: 0, signalled: [] });
    assert.equal(signalNumber('sigterm'), 15);
  });

  it('only a server that handles the signal exits: redis and nginx on TERM, nothing on KILL or for a command', () => {
    assert.equal(mainExitOnSignal({ name: 'redis', image: 'redis' }, 15), 0);
    assert.equal(mainExitOnSignal({ name: 'redis', image: 'redis' }, 9), undefined);
    assert.equal(mainExitOnSignal({ name: 'web', image: 'nginx:1.27' }, 3), 0);
    assert.equal(mainExitOnSignal({ name: 'c', image: 'busybox', command: ['sleep', '3600'] }, 15), undefined);
    assert.equal(mainExitOnSignal({ name: 'r', image: 'redis', args: ['redis-server', '--appendonly', 'yes'] }, 15), undefined);
  });
});

/** One request over a simulated connection. */
function get(conn: Duplex): Promise<{ status: number; headers: http.IncomingHttpHeaders; body: string }> {
  return new Promise((resolve, reject) => {
    const r = http.request({ path: '/', headers: { Host: 'frontend' }, createConnection: () => conn }, (res) => {
      let body = '';
      res.setEncoding('utf8').on('data', (c: string) => { body += c; }).on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body }));
    });
    r.on('error', reject);
    r.end();
  });
}

describe('the Connect a Frontend to a Backend page\'s images', () => {
  const ctx = (httpHook?: (req: HttpRequest) => Promise<HttpOutcome>) => ({
    hostname: 'p', env: new Map<string, string>(), remoteAddress: '10.244.1.2',
    files: async () => ({ readBytes: () => undefined, listDir: () => undefined, mountPaths: [], ...(httpHook ? { http: httpHook } : {}) }),
  });

  it('hello-go-gke answers {"message":"Hello"} on port 80', async () => {
    assert.deepEqual(listeningPorts('gcr.io/google-samples/hello-go-gke:1.0', new Map()), [80]);
    const r = await get(connectListener('gcr.io/google-samples/hello-go-gke:1.0', ctx())!);
    assert.equal(r.status, 200);
    assert.equal(r.headers['content-type'], 'application/json');
    assert.equal(r.body, '{"message":"Hello"}');
  });

  it('hello-frontend proxies every path to http://hello, and answers 502 when it is not reached', async () => {
    const asked: string[] = [];
    const backend = async (req: HttpRequest): Promise<HttpOutcome> => {
      asked.push(`${req.method} ${req.url.href}`);
      return { address: '10.96.0.20', response: { status: 200, statusText: 'OK', httpVersion: '1.1', rawHeaders: ['Content-Type', 'application/json', 'Date', 'x'], body: Buffer.from('{"message":"Hello"}') } };
    };
    const ok = await get(connectListener('gcr.io/google-samples/hello-frontend:1.0', ctx(backend))!);
    assert.deepEqual([ok.status, ok.body, ok.headers.server, ok.headers['content-type']], [200, '{"message":"Hello"}', 'nginx/1.27.3', 'application/json']);
    assert.deepEqual(asked, ['GET http://hello/']);
    const down = await get(connectListener('gcr.io/google-samples/hello-frontend:1.0', ctx(async () => ({ error: 'resolve' })))!);
    assert.equal(down.status, 502);
    assert.match(down.body, /<center><h1>502 Bad Gateway<\/h1><\/center>/);
  });
});

describe('hostPath volumes: one filesystem per node (the PersistentVolume page)', () => {
  it('a hostPath of / (kubectl debug node) and a hostPath PV of /mnt/data are the same files of the node, and another node has its own', async () => {
    const store = new SimulatedVolumeStore();
    const objects = {
      claim: async () => ({ spec: { volumeName: 'task-pv-volume' } }),
      volume: async () => ({ metadata: { name: 'task-pv-volume', uid: 'u1' }, spec: { hostPath: { path: '/mnt/data' } } }),
      configMap: async () => { throw new Error('none'); }, secret: async () => { throw new Error('none'); },
    } as unknown as PodObjectGetter;
    const debugPod: Pod = { metadata: { uid: 'd', namespace: 'default' }, spec: { containers: [], volumes: [{ name: 'host-root', hostPath: { path: '/' } }] } };
    const debugger_: Container = { name: 'debugger', volumeMounts: [{ name: 'host-root', mountPath: '/host' }] };
    const pvPod: Pod = { metadata: { uid: 'p', namespace: 'default' }, spec: { containers: [], volumes: [{ name: 'task-pv-storage', persistentVolumeClaim: { claimName: 'task-pv-claim' } }] } };
    const nginx: Container = { name: 'task-pv-container', volumeMounts: [{ name: 'task-pv-storage', mountPath: '/usr/share/nginx/html' }] };
    const [root] = await writableMounts(debugPod, debugger_, { store, objects, nodeName: 'worker1' });
    const [data] = await writableMounts(pvPod, nginx, { store, objects, nodeName: 'worker1' });
    const [elsewhere] = await writableMounts(pvPod, nginx, { store, objects, nodeName: 'worker2' });
    assert.equal(root!.volume, data!.volume);
    assert.notEqual(data!.volume, elsewhere!.volume);
    assert.deepEqual([root!.subPath, data!.subPath], ['/', '/mnt/data']);
  });
});

describe('image WORKDIR', () => {
  it('redis starts in /data, which exists without a volume; other images in /', () => {
    assert.equal(imageWorkingDir('redis'), '/data');
    assert.equal(imageWorkingDir('docker.io/library/redis:7'), '/data');
    assert.equal(imageWorkingDir('nginx'), undefined);
    const view = withRootFilesystem({ env: new Map(), hostname: 'r2', image: 'redis', workingDir: '/data', readFile: () => undefined, listDir: () => undefined, refresh: async () => {} }, '10.244.1.9');
    assert.ok(view.listDir('/')!.includes('data'));
    assert.deepEqual(view.listDir('/data'), []);
    const mounted = withRootFilesystem({ env: new Map(), hostname: 'redis', image: 'redis', workingDir: '/data', readFile: () => undefined, listDir: () => undefined, refresh: async () => {} }, '10.244.1.9', ['/data/redis']);
    // `ls` with no operand lists `.`: the working directory.
    assert.deepEqual([mounted.listDir('.'), mounted.listDir('./'), mounted.listDir('redis/..')], [['redis'], ['redis'], ['redis']]);
  });
});
