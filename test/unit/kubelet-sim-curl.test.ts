/**
 * curl in a simulated container as tutorials use it: `-s -o /dev/null -w
 * "%{http_code}\n"` to print only the status, short flags clustered as curl
 * reads them (`-sSo FILE`), `-o FILE` and `-O` saving the body, and curl's
 * own words and exit codes for what it refuses (the host's curl 7.88 is the
 * reference for each text).
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Pod } from 'kubernetes-types/core/v1.js';
import { SimulatedRuntime } from '../../src/kubelet/runtime/simulated/runtime.js';
import { FakeTimers } from '../../src/kubelet/timers.js';
import type { LocalStream, StreamRequest } from '../../src/kubelet/runtime/runtime.js';

function nginxPod() {
  const rt = new SimulatedRuntime({ podCIDR: '10.244.7.0/24', hostIP: '172.16.0.17', timers: new FakeTimers(), nodeName: 'worker1' });
  const pod: Pod = { metadata: { name: 'web', namespace: 'default', uid: 'uid-web' }, spec: { nodeName: 'worker1', containers: [{ name: 'c', image: 'nginx' }] }, status: { phase: 'Pending' } };
  rt.syncPod(pod);
  const id = rt.status('uid-web')!.containers[0]!.id;
  return async (cmd: string[]) => collect(rt.openStream('uid-web', id, { cmd, stdin: false, stdout: true, stderr: true, tty: false } satisfies StreamRequest));
}

async function collect(s: LocalStream): Promise<{ out: string; err: string; code: number }> {
  let out = ''; let err = '';
  s.stdout.on('data', (d: Buffer) => { out += d.toString(); });
  s.stderr?.on('data', (d: Buffer) => { err += d.toString(); });
  const code = await s.done;
  await new Promise((r) => setImmediate(r));
  return { out, err, code };
}

describe('curl in a simulated container', () => {
  it('-s -o /dev/null -w "%{http_code}\\n" prints the status only; -w reads curl\'s escapes and other variables', async () => {
    const exec = nginxPod();
    assert.deepEqual(await exec(['curl', '-s', '-o', '/dev/null', '-w', '%{http_code}\\n', 'http://localhost/']), { out: '200\n', err: '', code: 0 });
    assert.deepEqual(await exec(['curl', '-sSo', '/dev/null', '-w', '%{http_code} %{size_download} %{content_type}%%', 'localhost']), { out: '200 615 text/html%', err: '', code: 0 });
    assert.deepEqual(await exec(['curl', '-s', '--output=/dev/null', '--write-out', '%{response_code}', 'http://localhost/nope']), { out: '404', err: '', code: 0 });
  });

  it('-o FILE and -O save the body where cat finds it', async () => {
    const exec = nginxPod();
    assert.deepEqual(await exec(['curl', '-s', '-o', '/tmp/page.html', 'http://localhost/']), { out: '', err: '', code: 0 });
    assert.match((await exec(['cat', '/tmp/page.html'])).out, /<title>Welcome to nginx!<\/title>/);
    assert.deepEqual(await exec(['sh', '-c', 'cd /tmp && curl -sO http://localhost/index.html && ls /tmp']), { out: 'index.html\npage.html\n', err: '', code: 0 });
  });

  it('what curl refuses, in curl 7.88\'s words and exit codes', async () => {
    const exec = nginxPod();
    assert.deepEqual(await exec(['curl', '-o']), { out: '', err: "curl: option -o: requires parameter\ncurl: try 'curl --help' or 'curl --manual' for more information\n", code: 2 });
    assert.deepEqual(await exec(['curl', '--bogus', 'localhost']), { out: '', err: "curl: option --bogus: is unknown\ncurl: try 'curl --help' or 'curl --manual' for more information\n", code: 2 });
    // Nothing listens on 81: no response, so %{http_code} is 000 and curl exits 7.
    assert.deepEqual(await exec(['curl', '-s', '-o', '/dev/null', '-w', '%{http_code}\\n', 'http://localhost:81/']), { out: '000\n', err: '', code: 7 });
    assert.deepEqual(await exec(['curl', '-sO', 'http://localhost/']), { out: '', err: '', code: 23 });
  });
});
