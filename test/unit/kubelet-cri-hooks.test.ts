/** Lifecycle handlers: exec outcome and messages, httpGet (any status passes, transport errors fail), sleep, the preStop bound. */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Pod } from 'kubernetes-types/core/v1.js';
import { runLifecycleHandler, runPreStopHook, type HookTarget } from '../../src/kubelet/runtime/cri/hooks.js';

const pod: Pod = { metadata: { name: 'web', namespace: 'prod', uid: 'u-1' }, spec: { containers: [{ name: 'c', ports: [{ name: 'http', containerPort: 0 }] }] } };
const target = (exec: HookTarget['exec'] = async () => ({ exitCode: 0, output: '' })): HookTarget =>
  ({ pod, container: pod.spec!.containers[0], exec, podIP: '127.0.0.1' });

let server: Server;
let port: number;
const hits: string[] = [];
before(async () => {
  server = createServer((req, res) => { hits.push(req.url!); res.statusCode = req.url === '/500' ? 500 : 200; res.end(); });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  port = (server.address() as AddressInfo).port;
});
after(() => server.close());

describe('runLifecycleHandler', () => {
  it('exec: exit 0 passes, anything else fails with upstream words', async () => {
    const ran: string[][] = [];
    assert.equal(await runLifecycleHandler({ exec: { command: ['true'] } }, target(async (cmd) => { ran.push(cmd); return { exitCode: 0, output: '' }; })), undefined);
    assert.deepEqual(ran, [['true']]);
    const msg = await runLifecycleHandler({ exec: { command: ['sh', '-c', 'exit 2'] } }, target(async () => ({ exitCode: 2, output: 'boom' })));
    assert.equal(msg, 'Exec lifecycle hook ([sh -c exit 2]) for Container "c" in Pod "web_prod(u-1)" failed - error: command \'sh -c exit 2\' exited with 2: boom, message: "boom"');
  });
  it('httpGet: to the pod IP and a named port; a 500 still passes; a refused connection fails', async () => {
    pod.spec!.containers[0].ports![0].containerPort = port;
    assert.equal(await runLifecycleHandler({ httpGet: { port: 'http', path: 'hook' } }, target()), undefined);
    assert.equal(await runLifecycleHandler({ httpGet: { port, path: '/500' } }, target()), undefined);
    assert.deepEqual(hits, ['/hook', '/500']);
    const closed = createServer();
    await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
    const dead = (closed.address() as AddressInfo).port;
    await new Promise((r) => closed.close(r));
    const msg = await runLifecycleHandler({ httpGet: { port: dead, path: '/x' } }, target());
    assert.match(msg!, new RegExp(`^HTTP lifecycle hook \\(/x\\) for Container "c" in Pod "web_prod\\(u-1\\)" failed - error: Get "http://127.0.0.1:${dead}/x": .*ECONNREFUSED`));
  });
  it('sleep passes after its seconds; preStop is cut at the grace period', async () => {
    assert.equal(await runLifecycleHandler({ sleep: { seconds: 0 } }, target()), undefined);
    const never = target(() => new Promise(() => {}));
    assert.equal(await runPreStopHook({ exec: { command: ['hang'] } }, never, 0.05), 'timeout');
  });
});
