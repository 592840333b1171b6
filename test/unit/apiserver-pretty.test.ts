/** Pretty JSON for people (apiserver/pretty.ts, upstream negotiation.isPrettyPrint). */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { IncomingMessage } from 'node:http';
import { prettyJSON, prettyMaxBytes, wantsPretty } from '../../src/apiserver/pretty.js';

const req = (url: string, agent?: string) => ({ url, headers: agent ? { 'user-agent': agent } : {} }) as IncomingMessage;

describe('pretty JSON', () => {
  it('who gets it: ?pretty= decides (ParseBool), else curl, Wget and browsers', () => {
    const table: [string, string | undefined, boolean][] = [
      ['/api', 'curl/8.5.0', true], ['/api', 'Wget/1.21', true], ['/api', 'Mozilla/5.0 (X11)', true],
      ['/api', 'kubectl/v1.32.0 (linux/amd64)', false], ['/api', undefined, false], ['/api', 'node', false],
      ['/api?pretty=true', 'kubectl/v1.32.0', true], ['/api?pretty=1', undefined, true], ['/api?pretty=T', undefined, true],
      ['/api?pretty=false', 'curl/8.5.0', false], ['/api?pretty=yes', 'curl/8.5.0', false], ['/api?pretty=', 'curl/8.5.0', true],
      // Paths no URL parser takes relative to a base (the fuzz's `GET //?pretty=1` answered 500).
      ['//?pretty=1', undefined, true], ['//?pretty=0', 'curl/8.5.0', false], ['//[?pretty=1&watch', undefined, true], ['/api/pretty', undefined, false],
    ];
    for (const [url, agent, want] of table) assert.equal(wantsPretty(req(url, agent)), want, `${url} ${agent}`);
  });

  it('indented by two, TypeMeta first, metadata in ObjectMeta order (items too), no newline after', () => {
    const text = JSON.stringify({ apiVersion: 'apps/v1', kind: 'Deployment', metadata: { finalizers: ['foregroundDeletion'], uid: 'u', name: 'n', namespace: 'default', labels: { a: 'b' } }, spec: { replicas: 3 } });
    assert.equal(prettyJSON(text), '{\n  "kind": "Deployment",\n  "apiVersion": "apps/v1",\n  "metadata": {\n    "name": "n",\n    "namespace": "default",\n    "uid": "u",\n    "labels": {\n      "a": "b"\n    },\n    "finalizers": [\n      "foregroundDeletion"\n    ]\n  },\n  "spec": {\n    "replicas": 3\n  }\n}');
    const list = JSON.parse(prettyJSON(JSON.stringify({ apiVersion: 'v1', kind: 'PodList', metadata: { resourceVersion: '5' }, items: [{ metadata: { uid: 'u', name: 'p' } }] })));
    assert.deepEqual(Object.keys(list), ['kind', 'apiVersion', 'metadata', 'items']);
    assert.deepEqual(Object.keys(list.items[0].metadata), ['name', 'uid']);
    assert.equal(prettyJSON('{"metadata":{}}'), '{\n  "metadata": {}\n}');
  });

  it('not JSON, or above the bound: as it came', () => {
    assert.equal(prettyJSON('not json'), 'not json');
    const big = JSON.stringify({ kind: 'X', data: 'x'.repeat(prettyMaxBytes) });
    assert.equal(prettyJSON(big), big);
  });
});
