/**
 * Workload tutorials on simulated nodes: a container's environment is the
 * one it started with (a Service made later is not in it), and
 * kubernetes-bootcamp's image answers `cat server.js`, `env` and `kubectl
 * logs` as the image does (image-contents.ts).
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import http from 'node:http';
import type { Duplex } from 'node:stream';
import type { Pod, Service } from 'kubernetes-types/core/v1.js';
import { SimulatedRuntime } from '../../src/kubelet/runtime/simulated/runtime.js';
import { FakeTimers } from '../../src/kubelet/timers.js';
import type { PodObjectGetter } from '../../src/kubelet/volumes/objects.js';
import { bootcampRequestLog, bootcampStartLog, imageContents } from '../../src/kubelet/runtime/simulated/image-contents.js';
import { containerLogPath } from '../../src/kubelet/logs/index.js';
import { collect as run, execRequest } from './sim-streams.js';

const req = execRequest;

function get(conn: Duplex): Promise<string> {
  return new Promise((resolve, reject) => {
    const r = http.request({ path: '/', host: 'localhost', createConnection: () => conn as never }, (res) => {
      let body = '';
      res.on('data', (d: Buffer) => { body += d.toString(); });
      res.on('end', () => resolve(body));
    });
    r.on('error', reject);
    r.end();
  });
}

/** The API's objects as the kubelet reads them: the Services of `default`, which a test may add to. */
function objects(services: Service[]): PodObjectGetter {
  const missing = () => Promise.reject(Object.assign(new Error('not found'), { code: 404 }));
  return {
    claim: missing, volume: missing, configMap: missing, secret: missing,
    service: async (_ns, name) => services.find((s) => s.metadata?.name === name) ?? missing(),
    services: async () => [...services],
  };
}

const service = (name: string, ip: string, port: number, portName?: string): Service => ({ metadata: { name, namespace: 'default' }, spec: { clusterIP: ip, ports: [{ name: portName, port, protocol: 'TCP' }] } });

function bootcampPod(name: string, image = 'gcr.io/google-samples/kubernetes-bootcamp:v1'): Pod {
  return { metadata: { name, namespace: 'default', uid: `uid-${name}` }, spec: { nodeName: 'worker1', containers: [{ name: 'kubernetes-bootcamp', image }] }, status: { phase: 'Pending' } };
}

describe('simulated workloads: the environment a container started with', () => {
  it('a Service created after the container started is not in its environment; the next container has it', async () => {
    const services = [service('kubernetes', '10.96.0.1', 443, 'https')];
    const rt = new SimulatedRuntime({ podCIDR: '10.244.7.0/24', hostIP: '172.16.0.17', timers: new FakeTimers(), nodeName: 'worker1', objects: objects(services) });
    const first = bootcampPod('my-nginx-1', 'nginx');
    rt.syncPod(first);
    const idOf = (p: Pod) => rt.status(p.metadata!.uid!)!.containers[0]!.id;
    // The start's read is under way; the Service comes after it (kubectl expose after the Deployment).
    await new Promise((r) => setImmediate(r));
    services.push(service('my-nginx', '10.0.162.149', 80));
    const before = await run(rt.openStream(first.metadata!.uid!, idOf(first), req(['sh', '-c', 'printenv | grep SERVICE'])));
    assert.equal(before.out, 'KUBERNETES_SERVICE_HOST=10.96.0.1\nKUBERNETES_SERVICE_PORT=443\nKUBERNETES_SERVICE_PORT_HTTPS=443\n');
    const second = bootcampPod('my-nginx-2', 'nginx');
    rt.syncPod(second);
    const after = await run(rt.openStream(second.metadata!.uid!, idOf(second), req(['sh', '-c', 'printenv | grep SERVICE'])));
    assert.equal(after.out, 'KUBERNETES_SERVICE_HOST=10.96.0.1\nKUBERNETES_SERVICE_PORT=443\nKUBERNETES_SERVICE_PORT_HTTPS=443\n' +
      'MY_NGINX_SERVICE_HOST=10.0.162.149\nMY_NGINX_SERVICE_PORT=80\n');
    await rt.close();
  });
});

describe('simulated workloads: kubernetes-bootcamp', () => {
  it('its image holds /server.js with the tag\'s version and node\'s ENV; other images hold neither', () => {
    const v1 = imageContents('gcr.io/google-samples/kubernetes-bootcamp:v1')!;
    assert.match(v1.files.get('/server.js')!, /^var http = require\('http'\);\n[\s\S]*response\.end\(" \| v=1\\n"\);\n/);
    assert.deepEqual(v1.env, [['NPM_CONFIG_LOGLEVEL', 'info'], ['NODE_VERSION', '6.3.1']]);
    assert.match(imageContents('jocatalin/kubernetes-bootcamp:v2')!.files.get('/server.js')!, /v=2\\n"\);/);
    const nginx = imageContents('nginx')!;
    assert.deepEqual([...nginx.files.keys()], ['/usr/share/nginx/html/50x.html', '/usr/share/nginx/html/index.html', '/etc/nginx/nginx.conf']);
    assert.deepEqual(nginx.env, []);
    assert.equal(imageContents('busybox:1.28'), undefined);
  });

  it('server.js\'s log lines are console.log\'s: arguments joined by a space, a Date as its ISO string, uptime a JS number', () => {
    const start = new Date(Date.UTC(2026, 11, 5, 2, 5, 8, 120));
    assert.equal(bootcampStartLog('kb-1', start), 'Kubernetes Bootcamp App Started At: 2026-12-05T02:05:08.120Z | Running On:  kb-1 \n\n');
    assert.equal(bootcampRequestLog('kb-1', 3, start, new Date(start.getTime() + 61_500)),
      'Running On: kb-1 | Total Requests: 3 | App Uptime: 61.5 seconds | Log Time: 2026-12-05T02:06:09.620Z\n');
  });

  it('exec cat server.js, ls /, env; kubectl logs shows the start line and one line per request', async () => {
    const logs = mkdtempSync(join(tmpdir(), 'k8ts-sim-workloads-'));
    try {
      const timers = new FakeTimers();
      const rt = new SimulatedRuntime({ podCIDR: '10.244.7.0/24', hostIP: '172.16.0.17', timers, nodeName: 'worker1', podLogsDir: logs });
      const p = bootcampPod('kubernetes-bootcamp-5c69669756-x2xs4');
      rt.syncPod(p);
      const uid = p.metadata!.uid!;
      const id = rt.status(uid)!.containers[0]!.id;
      const cat = await run(rt.openStream(uid, id, req(['cat', 'server.js'])));
      assert.equal(cat.out, imageContents('gcr.io/google-samples/kubernetes-bootcamp:v1')!.files.get('/server.js'));
      assert.ok((await run(rt.openStream(uid, id, req(['ls', '/'])))).out.split('\n').includes('server.js'));
      const env = (await run(rt.openStream(uid, id, req(['env'])))).out.split('\n');
      assert.deepEqual(env.slice(0, 4), ['PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin', 'HOSTNAME=kubernetes-bootcamp-5c69669756-x2xs4', 'NPM_CONFIG_LOGLEVEL=info', 'NODE_VERSION=6.3.1']);
      const started = timers.now();
      timers.advance(2000);
      assert.equal(await get(rt.dialPort(uid, 8080)), 'Hello Kubernetes bootcamp! | Running on: kubernetes-bootcamp-5c69669756-x2xs4 | v=1\n');
      // curl in the container reaches the same server, which counts it too.
      assert.equal((await run(rt.openStream(uid, id, req(['curl', '-s', 'http://localhost:8080'])))).out, 'Hello Kubernetes bootcamp! | Running on: kubernetes-bootcamp-5c69669756-x2xs4 | v=1\n');
      const log = readFileSync(containerLogPath(logs, { namespace: 'default', name: p.metadata!.name!, uid }, 'kubernetes-bootcamp', 0), 'utf8')
        .split('\n').filter(Boolean).map((l) => l.split(' ').slice(3).join(' '));
      const at = new Date(started.getTime() + 2000).toISOString();
      assert.deepEqual(log, [
        `Kubernetes Bootcamp App Started At: ${started.toISOString()} | Running On:  kubernetes-bootcamp-5c69669756-x2xs4 `, '',
        `Running On: kubernetes-bootcamp-5c69669756-x2xs4 | Total Requests: 1 | App Uptime: 2 seconds | Log Time: ${at}`,
        `Running On: kubernetes-bootcamp-5c69669756-x2xs4 | Total Requests: 2 | App Uptime: 2 seconds | Log Time: ${at}`,
      ]);
      await rt.close();
    } finally {
      rmSync(logs, { recursive: true, force: true });
    }
  });

  it('a command given in the pod replaces server.js: the lifecycle lines, no request lines', async () => {
    const logs = mkdtempSync(join(tmpdir(), 'k8ts-sim-workloads-'));
    try {
      const rt = new SimulatedRuntime({ podCIDR: '10.244.7.0/24', hostIP: '172.16.0.17', timers: new FakeTimers(), nodeName: 'worker1', podLogsDir: logs });
      const p = bootcampPod('kb-cmd');
      p.spec!.containers[0]!.command = ['node', 'other.js'];
      rt.syncPod(p);
      await get(rt.dialPort(p.metadata!.uid!, 8080));
      const log = readFileSync(containerLogPath(logs, { namespace: 'default', name: 'kb-cmd', uid: p.metadata!.uid! }, 'kubernetes-bootcamp', 0), 'utf8');
      assert.deepEqual(log.split('\n').filter(Boolean).map((l) => l.split(' ').slice(3).join(' ')), ['Created container kubernetes-bootcamp', 'Started container kubernetes-bootcamp']);
      await rt.close();
    } finally {
      rmSync(logs, { recursive: true, force: true });
    }
  });
});
