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

function nginxPod(image = 'nginx') {
  const rt = new SimulatedRuntime({ podCIDR: '10.244.7.0/24', hostIP: '172.16.0.17', timers: new FakeTimers(), nodeName: 'worker1' });
  const pod: Pod = { metadata: { name: 'web', namespace: 'default', uid: 'uid-web' }, spec: { nodeName: 'worker1', containers: [{ name: 'c', image }] }, status: { phase: 'Pending' } };
  rt.syncPod(pod);
  const id = rt.status('uid-web')!.containers[0]!.id;
  return async (cmd: string[], tty = false) => collect(rt.openStream('uid-web', id, { cmd, stdin: false, stdout: true, stderr: !tty, tty } satisfies StreamRequest));
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

  it('without -s, the progress meter goes to stderr as curl 7.88 writes it when stdout is no terminal or -o names a file; not on a terminal', async () => {
    const exec = nginxPod();
    const heading = '  % Total    % Received % Xferd  Average Speed   Time    Time     Time  Current\n                                 Dload  Upload   Total   Spent    Left  Speed\n';
    const start = '\r  0     0    0     0    0     0      0      0 --:--:-- --:--:-- --:--:--     0';
    const saved = await exec(['curl', '-o', '/tmp/page.html', 'http://localhost/']);
    assert.deepEqual(saved, { out: '', err: `${heading}${start}\r100   615  100   615    0     0      0      0 --:--:-- --:--:-- --:--:--     0\n`, code: 0 });
    assert.equal((await exec(['curl', 'http://localhost/'])).err, saved.err);
    assert.equal((await exec(['curl', 'nowhere.example'])).err, `${heading}${start}curl: (6) Could not resolve host: nowhere.example\n`);
    // On the exec's terminal the body goes to the screen and curl keeps the meter away; -o still shows it.
    assert.doesNotMatch((await exec(['curl', 'http://localhost/'], true)).out, /% Total/);
    assert.match((await exec(['curl', '-o', '/dev/null', 'http://localhost/'], true)).out, /^ {2}% Total/);
  });

  it('-d POSTs its data, form-encoded, several joined with &; echoserver echoes it back', async () => {
    const exec = nginxPod('registry.k8s.io/echoserver:1.10');
    const r = await exec(['curl', '-s', '-d', 'name=k8ts', '-d', 'x=1', 'http://localhost:8080/post']);
    assert.match(r.out, /\tmethod=POST\n/);
    assert.match(r.out, /\tcontent-length=13\n/);
    assert.match(r.out, /\tcontent-type=application\/x-www-form-urlencoded\n/);
    assert.match(r.out, /Request Body:\nname=k8ts&x=1\n$/);
    const typed = await exec(['curl', '-s', '-H', 'Content-Type: application/json', '--data-raw', '{"a":1}', 'localhost:8080']);
    assert.match(typed.out, /\tcontent-type=application\/json\n/);
    assert.match(typed.out, /Request Body:\n\{"a":1\}\n$/);
    await exec(['sh', '-c', 'printf "a=1\\nb=2\\n" > /tmp/form']);
    assert.match((await exec(['curl', '-s', '-d', '@/tmp/form', 'localhost:8080'])).out, /Request Body:\na=1b=2\n$/);
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
