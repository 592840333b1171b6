/**
 * Small answers of pipelined requests written together: the scheduler's bindings.
 *
 * Node's http server answers the requests of one connection in order, and starts writing an
 * answer only when the one before it has finished, i.e. when the socket's write of it called
 * back. On a TLS socket that callback comes in a later turn (setImmediate), so eight bindings
 * pipelined on one connection are answered in eight TLS records, eight write syscalls and
 * eight turns, however many of them were done at once: about 48 µs of the server's main thread
 * per binding (bench/RESULTS.md, `sched10-2026-12-07`), while the client (light-pool.ts) sends
 * the eight requests in one write.
 *
 * Here an answer whose bytes are known whole (`endWhole`: status, headers, body; the 201 of a
 * binding or an eviction) waits, while earlier answers of its connection are still being
 * written, instead of being buffered by its ServerResponse. When the first of a run of such
 * answers gets the socket, it writes the whole run in one write: its own head and body, then
 * each follower's head and body, in request order. A follower whose bytes went out that way
 * ends without writing when its turn comes, so Node's server still sees every response end in
 * order ('finish', keep-alive, the next request's turn), one `process.nextTick` each.
 *
 * Node's own members of an OutgoingMessage are used (Node 20's _http_outgoing.js): `_header`, the
 * head writeHead stored; `_headerSent`, which tells end() the head is out; `_last`, set when the
 * connection closes after the answer.
 * test/unit/pipelined-answers.test.ts checks the answers on the wire against a real server.
 */
import type { IncomingMessage, OutgoingHttpHeaders, ServerResponse } from 'node:http';

const nextAnswer = Symbol('the answer to the next request on the same connection');
const lastAnswer = Symbol('the answer to the last request on this connection');
const waiting = Symbol('a whole answer waiting for its turn');
const sent = Symbol('written by the run of an earlier answer');

interface WholeAnswer { code: number; headers: Readonly<OutgoingHttpHeaders>; body: string }

/** A ServerResponse with this module's marks and the two members of Node's it reads and sets. */
interface Answer extends ServerResponse {
  [nextAnswer]?: Answer;
  [waiting]?: WholeAnswer;
  [sent]?: boolean;
  _header: string | null;
  _headerSent: boolean;
  /** Set by writeHead when the head says Connection: close (or the server is closing). */
  _last: boolean;
  maxRequestsOnConnectionReached?: boolean;
}

type Connection = IncomingMessage['socket'] & { [lastAnswer]?: Answer };

/**
 * Called for every request of a connection, in order (the server's 'request' listener): links
 * each answer to the next one, which a run walks. An answer queued behind another (Node's server
 * gave it no socket yet) is the next of the answer to the request before it.
 */
export function linkAnswer(req: IncomingMessage, res: ServerResponse): void {
  const connection = req.socket as Connection;
  const last = connection[lastAnswer];
  if (last !== undefined && res.socket === null) last[nextAnswer] = res as Answer;
  connection[lastAnswer] = res as Answer;
}

/**
 * writeHead(code, headers) and end(body), for a small body whose length the headers give: written
 * with the answers behind it that are ready too, or, when an earlier answer of the connection is
 * still being written, once that one has finished (with the answers behind it ready by then).
 */
export function endWhole(res: ServerResponse, code: number, headers: Readonly<OutgoingHttpHeaders>, body: string): void {
  const answer = res as Answer;
  if (answer.socket === null) {
    answer[waiting] = { code, headers, body };
    answer.once('socket', () => process.nextTick(takeTurn, answer));
    return;
  }
  if (answer[nextAnswer] === undefined) {
    answer.writeHead(code, headers as OutgoingHttpHeaders);
    answer.end(body);
    return;
  }
  // Requests behind it on the connection: the ones that are done in this turn (a group commit
  // settles many) go out with it, at the turn's end.
  answer[waiting] = { code, headers, body };
  process.nextTick(writeRun, answer);
}

/**
 * A waiting answer's turn (it has the socket now). Deferred from the 'socket' event, which comes
 * before Node's server flushes what the answer buffered: an answer ended inside it would be
 * finished twice. An answer the deadline answered meanwhile (a 504) is Node's to write.
 */
function takeTurn(answer: Answer): void {
  if (answer[sent]) answer.end();
  else if (answer[waiting] !== undefined && !answer.headersSent) writeRun(answer);
}

/**
 * Writes `head` (which has the socket) and the waiting answers right behind it in one write: the
 * followers' heads and bodies are carried after the head's body, so the socket's write of them
 * is the head's, and they end without one at their turns. A follower whose head says the
 * connection closes (Connection: close) ends the run: nothing may follow it on the wire.
 */
function writeRun(head: Answer): void {
  const own = head[waiting];
  if (own === undefined || head.headersSent) return;
  head[waiting] = undefined;
  head.writeHead(own.code, own.headers as OutgoingHttpHeaders);
  let carried = '';
  for (let res = closes(head) ? undefined : head[nextAnswer]; res !== undefined; res = res[nextAnswer]) {
    const answer = res[waiting];
    if (answer === undefined || res.headersSent || res.destroyed) break;
    res[waiting] = undefined;
    res.writeHead(answer.code, answer.headers as OutgoingHttpHeaders);
    carried += res._header! + answer.body;
    res._headerSent = true;
    res[sent] = true;
    if (closes(res)) break;
  }
  head.end(carried ? own.body + carried : own.body);
}

/** Whether the connection ends after this answer (its head is written). */
const closes = (res: Answer): boolean => res._last || res.maxRequestsOnConnectionReached === true;
