/**
 * The dashboard's exec-check (src/dashboard/exec-check.ts): the handshake it
 * dials asks for the harmless command `true` in the named container, and a
 * refusal comes back as the API's own Status, or as a Status carrying a
 * plain-text refusal's words with its code.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execCheckPath, execCheckURL, refusalStatus } from '../../src/dashboard/exec-check.js';

describe('exec-check', () => {
  it('dials the exec subresource with command true, stdout only, in the container', () => {
    assert.equal(execCheckURL('https://127.0.0.1:6443/', { namespace: 'team a', name: 'box', container: 'main' }),
      'https://127.0.0.1:6443/api/v1/namespaces/team%20a/pods/box/exec?command=true&stdout=true&container=main');
    assert.equal(execCheckURL('https://h:1', { namespace: 'n', name: 'p' }), 'https://h:1/api/v1/namespaces/n/pods/p/exec?command=true&stdout=true');
  });

  it('matches only its own path', () => {
    assert.deepEqual([...execCheckPath.exec('/dashboard/api/exec-check/namespaces/ns/pods/p')!].slice(1), ['ns', 'p']);
    assert.equal(execCheckPath.exec('/dashboard/api/exec-check/namespaces/ns/pods/p/x'), null);
  });

  const forbidden = { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', reason: 'Forbidden', code: 403,
    message: 'pods "box" is forbidden: User "u" cannot create resource "pods/exec" in API group "" in the namespace "n"' };
  const cases: Array<[string, number, string, { code: number; message: string; reason?: string }]> = [
    ['the API\'s Status as it came', 403, JSON.stringify(forbidden), { code: 403, message: forbidden.message, reason: 'Forbidden' }],
    ['a Status without a code takes the HTTP one', 500, JSON.stringify({ ...forbidden, code: undefined, reason: 'InternalError', message: 'x' }), { code: 500, message: 'x', reason: 'InternalError' }],
    ['plain text becomes the message', 400, 'you must specify at least 1 of stdin, stdout, stderr\n', { code: 400, message: 'you must specify at least 1 of stdin, stdout, stderr' }],
    ['an empty body says the code', 502, '', { code: 502, message: '502' }],
  ];
  for (const [name, code, body, want] of cases) {
    it(name, () => {
      const s = refusalStatus(code, body);
      assert.equal(s.kind, 'Status');
      assert.equal(s.status, 'Failure');
      assert.equal(s.code, want.code);
      assert.equal(s.message, want.message);
      assert.equal(s.reason, want.reason);
    });
  }
});
