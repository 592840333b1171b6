/**
 * The official nginx image's log on a simulated node (nginx-log.ts): its
 * entrypoint's lines by version, and the access log's `main` format.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { IncomingMessage } from 'node:http';
import { release } from 'node:os';
import { nginxAccessLog, nginxImageVersion, nginxStartLog, nginxStopLog } from '../../src/kubelet/runtime/simulated/nginx-log.js';
import { imageContents } from '../../src/kubelet/runtime/simulated/image-contents.js';

const at = new Date('2026-12-05T05:10:48.123Z');

describe('nginxStartLog', () => {
  it('latest: the entrypoint\'s scripts, then nginx 1.27.3\'s notices with one worker per simulated CPU', () => {
    const lines = nginxStartLog('latest', at).split('\n');
    assert.deepEqual(lines.slice(0, 9), [
      '/docker-entrypoint.sh: /docker-entrypoint.d/ is not empty, will attempt to perform configuration',
      '/docker-entrypoint.sh: Looking for shell scripts in /docker-entrypoint.d/',
      '/docker-entrypoint.sh: Launching /docker-entrypoint.d/10-listen-on-ipv6-by-default.sh',
      '10-listen-on-ipv6-by-default.sh: info: Getting the checksum of /etc/nginx/conf.d/default.conf',
      '10-listen-on-ipv6-by-default.sh: info: Enabled listen on IPv6 in /etc/nginx/conf.d/default.conf',
      '/docker-entrypoint.sh: Sourcing /docker-entrypoint.d/15-local-resolvers.envsh',
      '/docker-entrypoint.sh: Launching /docker-entrypoint.d/20-envsubst-on-templates.sh',
      '/docker-entrypoint.sh: Launching /docker-entrypoint.d/30-tune-worker-processes.sh',
      '/docker-entrypoint.sh: Configuration complete; ready for start up',
    ]);
    assert.deepEqual(lines.slice(9), [
      '2026/12/05 05:10:48 [notice] 1#1: using the "epoll" event method',
      '2026/12/05 05:10:48 [notice] 1#1: nginx/1.27.3',
      '2026/12/05 05:10:48 [notice] 1#1: built by gcc 12.2.0 (Debian 12.2.0-14) ',
      `2026/12/05 05:10:48 [notice] 1#1: OS: Linux ${release()}`,
      '2026/12/05 05:10:48 [notice] 1#1: getrlimit(RLIMIT_NOFILE): 1048576:1048576',
      '2026/12/05 05:10:48 [notice] 1#1: start worker processes',
      '2026/12/05 05:10:48 [notice] 1#1: start worker process 29',
      '2026/12/05 05:10:48 [notice] 1#1: start worker process 30',
      '2026/12/05 05:10:48 [notice] 1#1: start worker process 31',
      '2026/12/05 05:10:48 [notice] 1#1: start worker process 32',
      '',
    ]);
  });

  it('by version: 15-local-resolvers from 1.25.3, bullseye\'s gcc before 1.25, nothing at all before 1.19', () => {
    assert.match(nginxStartLog('1.25.3', at), /15-local-resolvers/);
    assert.doesNotMatch(nginxStartLog('1.24.0', at), /15-local-resolvers/);
    assert.match(nginxStartLog('1.24.0', at), /nginx\/1\.24\.0\n.*built by gcc 10\.2\.1 20210110 \(Debian 10\.2\.1-6\) \n/);
    assert.match(nginxStartLog('1.27', at), /nginx\/1\.27\.3\n/);
    assert.equal(nginxStartLog('1.14.2', at), '');
    assert.equal(nginxStartLog('1.16.1', at), '');
    assert.deepEqual(['1.14.2', '1.27', 'stable', '1.26.2-alpine'].map(nginxImageVersion), ['1.14.2', '1.27.3', '1.27.3', '1.26.2']);
    // An x.y tag runs its line's last release (`nginx:1.25` prints nginx/1.25.5 for `nginx -v`).
    assert.deepEqual(['1.25', '1.16', '1.25-alpine', '1.26'].map(nginxImageVersion), ['1.25.5', '1.16.1', '1.25.5', '1.26.3']);
  });

  it('is the official image\'s start log only (nginx-slim writes none)', () => {
    assert.match(imageContents('nginx')!.startLog!('web', at), /Configuration complete/);
    assert.equal(imageContents('registry.k8s.io/nginx-slim:0.8')!.startLog, undefined);
  });
});

describe('nginxStopLog', () => {
  it('SIGQUIT (the image\'s STOPSIGNAL): each worker shuts down gracefully, the master reaps them and exits; nothing before 1.19', () => {
    const lines = nginxStopLog('1.27', at).split('\n');
    assert.equal(lines[0], '2026/12/05 05:10:48 [notice] 1#1: signal 3 (SIGQUIT) received, shutting down');
    assert.deepEqual(lines.slice(1, 4), ['2026/12/05 05:10:48 [notice] 29#29: gracefully shutting down', '2026/12/05 05:10:48 [notice] 29#29: exiting', '2026/12/05 05:10:48 [notice] 29#29: exit']);
    assert.ok(lines.includes('2026/12/05 05:10:48 [notice] 1#1: worker process 32 exited with code 0'));
    assert.deepEqual(lines.slice(-2), ['2026/12/05 05:10:48 [notice] 1#1: exit', '']);
    assert.equal(nginxStopLog('1.14.2', at), '');
  });
});

describe('nginxAccessLog', () => {
  it('writes the `main` format: address, time, request line, status, bytes, referer, user agent, X-Forwarded-For', () => {
    const req = { method: 'GET', url: '/', httpVersion: '1.1', headers: { 'user-agent': 'curl/8.5.0' } } as unknown as IncomingMessage;
    assert.equal(nginxAccessLog(req, 200, 615, '127.0.0.1', at), '127.0.0.1 - - [05/Dec/2026:05:10:48 +0000] "GET / HTTP/1.1" 200 615 "-" "curl/8.5.0" "-"\n');
  });
});
