/**
 * The ws package, required on first use. Imported from an ES module, Node's
 * loader runs its CommonJS export lexer over five of ws's files
 * (wrapper.mjs imports websocket.js, receiver.js, sender.js, ...) before
 * anything runs: 20-50 ms of every `k8ts up` and `k8ts server` start, for
 * an upgrade (exec, attach, port-forward) that may never come.
 */
import type * as WS from 'ws';
import { lazyRequire } from './lazy-require.js';

export const ws = lazyRequire<typeof WS>('ws');
