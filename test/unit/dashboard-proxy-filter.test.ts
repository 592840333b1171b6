/**
 * `k8ts dashboard`'s request filter (src/dashboard/proxy/request-filter.ts),
 * one row per rule: the Host must be an accepted loopback name (DNS
 * rebinding), an Origin must be the server's own, and a browser's
 * Sec-Fetch-Site must not be cross-site or same-site except for a top-level
 * GET navigation.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { IncomingHttpHeaders } from 'node:http';
import { acceptHostPatterns, defaultAcceptHosts, hostName, refuseRequest } from '../../src/dashboard/proxy/request-filter.js';

const accept = acceptHostPatterns(defaultAcceptHosts);
const here = '127.0.0.1:8001';

const cases: Array<[string, string, IncomingHttpHeaders, false | 'host' | 'origin' | 'fetch-site']> = [
  ['curl: Host only', 'GET', { host: here }, false],
  ['localhost by name', 'GET', { host: 'localhost:8001' }, false],
  ['IPv6 loopback', 'GET', { host: '[::1]:8001' }, false],
  ['upper-case name', 'GET', { host: 'LOCALHOST:8001' }, false],
  ['no Host at all', 'GET', {}, 'host'],
  ['rebound name', 'GET', { host: 'evil.example:8001' }, 'host'],
  ['a name that merely starts with an accepted one', 'GET', { host: 'localhost.evil.example:8001' }, 'host'],
  ['another loopback address not asked for', 'GET', { host: '127.0.0.2:8001' }, 'host'],
  ['the page\'s own POST', 'POST', { host: here, origin: 'http://127.0.0.1:8001', 'sec-fetch-site': 'same-origin' }, false],
  ['the page\'s own fetch by name', 'GET', { host: 'localhost:8001', origin: 'http://localhost:8001', 'sec-fetch-site': 'same-origin' }, false],
  ['typed into the address bar', 'GET', { host: here, 'sec-fetch-site': 'none', 'sec-fetch-mode': 'navigate', 'sec-fetch-dest': 'document' }, false],
  ['a link followed from another site', 'GET', { host: here, 'sec-fetch-site': 'cross-site', 'sec-fetch-mode': 'navigate', 'sec-fetch-dest': 'document' }, false],
  ['a cross-site POST', 'POST', { host: here, origin: 'http://evil.example' }, 'origin'],
  ['an opaque origin (sandboxed frame, file:)', 'POST', { host: here, origin: 'null' }, 'origin'],
  ['another port of the same host', 'POST', { host: here, origin: 'http://127.0.0.1:9999' }, 'origin'],
  ['https origin for an http server', 'POST', { host: here, origin: 'https://127.0.0.1:8001' }, 'origin'],
  ['a cross-site form POST navigation', 'POST', { host: here, 'sec-fetch-site': 'cross-site', 'sec-fetch-mode': 'navigate', 'sec-fetch-dest': 'document' }, 'fetch-site'],
  ['a cross-site image GET', 'GET', { host: here, 'sec-fetch-site': 'cross-site', 'sec-fetch-mode': 'no-cors', 'sec-fetch-dest': 'image' }, 'fetch-site'],
  ['a same-site fetch (another port)', 'GET', { host: here, 'sec-fetch-site': 'same-site', 'sec-fetch-mode': 'cors', 'sec-fetch-dest': 'empty' }, 'fetch-site'],
  ['a cross-site WebSocket', 'GET', { host: here, origin: 'http://evil.example', upgrade: 'websocket' }, 'origin'],
  ['a same-site WebSocket without Origin check help', 'GET', { host: here, 'sec-fetch-site': 'same-site', 'sec-fetch-mode': 'websocket', upgrade: 'websocket' }, 'fetch-site'],
];

describe('dashboard proxy request filter', () => {
  for (const [name, method, headers, want] of cases) {
    it(name, () => {
      const r = refuseRequest(method, headers, accept);
      assert.equal(r.refused ? r.reason : false, want);
    });
  }
  it('reads the host without its port', () => {
    assert.equal(hostName('127.0.0.1:8001'), '127.0.0.1');
    assert.equal(hostName('[::1]:8001'), '[::1]');
    assert.equal(hostName('localhost'), 'localhost');
  });
});
