import { test } from 'node:test';
import assert from 'node:assert/strict';
import { kubeletStreamQuery } from '../../src/apiserver/handlers/exec.js';
import { streamRequest } from '../../src/kubelet/server/exec.js';

test('PodExecOptions become the kubelet query (upstream streamParams names) and back', () => {
  const q = new URLSearchParams('command=sh&command=-c&command=echo+a%26b&container=main&stdin=true&stdout=true&stderr=false&tty=1');
  const k = kubeletStreamQuery(q, true);
  assert.equal(k.toString(), 'command=sh&command=-c&command=echo+a%26b&input=1&output=1&tty=1');
  assert.deepEqual(streamRequest(k, true), { cmd: ['sh', '-c', 'echo a&b'], stdin: true, stdout: true, stderr: false, tty: true });
});

test('attach carries no command', () => {
  const k = kubeletStreamQuery(new URLSearchParams('command=ls&stdout=true'), false);
  assert.equal(k.toString(), 'output=1');
  assert.equal(streamRequest(k, false).cmd, undefined);
});
