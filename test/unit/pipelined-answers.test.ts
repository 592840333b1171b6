import { test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import net, { type AddressInfo, type Socket } from 'node:net';
import { endWhole, linkAnswer } from '../../src/apiserver/pipelined-answers.js';

// Whole answers of pipelined requests (apiserver/pipelined-answers.ts) go out in request order,
// each with its own head and body, whatever order they are ready in and whatever other answers
// share the connection; the ones ready together take one socket write. Against Node's real
// http server, read by a raw client that pipelines its requests in one write.

interface Wire { code: number; connection: string; body: string }

/** Parses the answers on the wire (each with a Content-Length). */
function parseAnswers(text: string): Wire[] {
  const out: Wire[] = [];
  let at = 0;
  while (at < text.length) {
    const headEnd = text.indexOf('\r\n\r\n', at);
    if (headEnd < 0) break; // the rest has not come yet
    const lines = text.slice(at, headEnd).split('\r\n');
    const header = (name: string) => lines.find((l) => l.toLowerCase().startsWith(`${name}:`))?.slice(name.length + 1).trim() ?? '';
    const length = Number(header('content-length'));
    out.push({ code: Number(lines[0].split(' ')[1]), connection: header('connection'), body: text.slice(headEnd + 4, headEnd + 4 + length) });
    at = headEnd + 4 + length;
  }
  return out;
}

const request = (path: string, close = false) => `POST ${path} HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n${close ? 'Connection: close\r\n' : ''}\r\n`;
const whole = (body: string) => ({ headers: { 'Content-Type': 'text/plain', 'Content-Length': Buffer.byteLength(body) }, body });

/**
 * A server whose handler is `answer(path, res)`, the bytes it writes to each connection counted by
 * socket writes of data, and a client that sends `requests` in one write and reads until the server
 * closes (or `expect` answers came).
 */
async function exchange(answer: (path: string, res: http.ServerResponse) => void, requests: string[], expect: number): Promise<{ answers: Wire[]; writes: number; closed: boolean }> {
  let writes = 0;
  const server = http.createServer((req, res) => { linkAnswer(req, res); req.resume(); answer(req.url!, res); });
  server.on('connection', (socket: Socket) => {
    const write = socket.write;
    socket.write = function (this: Socket, ...args: Parameters<Socket['write']>) {
      const data = args[0];
      if (typeof data === 'string' ? data.length > 0 : (data as Uint8Array).length > 0) writes++;
      return write.apply(this, args);
    } as Socket['write'];
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  try {
    const { port } = server.address() as AddressInfo;
    const client = net.connect(port, '127.0.0.1');
    let text = '';
    const result = await new Promise<{ answers: Wire[]; closed: boolean }>((resolve, reject) => {
      client.on('error', reject);
      client.on('data', (d: Buffer) => {
        text += d.toString('latin1');
        const answers = parseAnswers(text);
        if (answers.length === expect && answers.every((a, i) => i < answers.length - 1 || text.endsWith(a.body))) setTimeout(() => resolve({ answers: parseAnswers(text), closed: client.destroyed || client.readableEnded }), 50);
      });
      client.on('end', () => resolve({ answers: parseAnswers(text), closed: true }));
      client.write(requests.join(''));
    });
    client.destroy();
    return { ...result, writes };
  } finally {
    server.closeAllConnections();
    server.close();
  }
}

test('eight pipelined whole answers ready in one turn: in order, one write', async () => {
  let release!: () => void;
  const ready = new Promise<void>((r) => { release = r; });
  let seen = 0;
  const { answers, writes } = await exchange((path, res) => {
    if (++seen === 8) setTimeout(release, 10);
    void ready.then(() => { const { headers, body } = whole(`answer to ${path}`); endWhole(res, 201, headers, body); });
  }, Array.from({ length: 8 }, (_, i) => request(`/p${i}`)), 8);
  assert.deepEqual(answers.map((a) => [a.code, a.body]), Array.from({ length: 8 }, (_, i) => [201, `answer to /p${i}`]));
  assert.equal(writes, 1);
});

test('whole answers ready before an earlier ordinary one wait for it, then go out together', async () => {
  const { answers, writes } = await exchange((path, res) => {
    if (path === '/slow') {
      setTimeout(() => { res.writeHead(200, { 'Content-Type': 'text/plain', 'Content-Length': 4 }); res.end('slow'); }, 30);
      return;
    }
    const { headers, body } = whole(`answer to ${path}`);
    if (path === '/late') setTimeout(() => endWhole(res, 201, headers, body), 80);
    else endWhole(res, 201, headers, body);
  }, ['/slow', '/a', '/b', '/c', '/late', '/d'].map((p) => request(p)), 6);
  assert.deepEqual(answers.map((a) => [a.code, a.body]), [
    [200, 'slow'], [201, 'answer to /a'], [201, 'answer to /b'], [201, 'answer to /c'], [201, 'answer to /late'], [201, 'answer to /d'],
  ]);
  // /slow's own write, /a to /c in one, then /late and /d (ready long before) in one.
  assert.equal(writes, 3);
});

// (Node's parser refuses bytes after a Connection: close request with a 400, so the closing request is the last.)
test('an answer that closes the connection is written in its run, last, and the connection ends after it', async () => {
  const { answers, closed } = await exchange((path, res) => {
    const { headers, body } = whole(`answer to ${path}`);
    setTimeout(() => endWhole(res, 201, headers, body), 10);
  }, [request('/a'), request('/b'), request('/close', true)], 3);
  assert.deepEqual(answers.map((a) => [a.body, a.connection]), [['answer to /a', 'keep-alive'], ['answer to /b', 'keep-alive'], ['answer to /close', 'close']]);
  assert.equal(closed, true);
});

test('a waiting answer answered meanwhile by someone else (a deadline\'s 504) keeps that answer', async () => {
  const { answers } = await exchange((path, res) => {
    if (path === '/slow') {
      setTimeout(() => { const { headers, body } = whole('slow'); endWhole(res, 201, headers, body); }, 40);
      return;
    }
    const { headers, body } = whole(`answer to ${path}`);
    endWhole(res, 201, headers, body);
    setTimeout(() => { res.writeHead(504, { 'Content-Length': 7 }); res.end('timeout'); }, 10);
  }, [request('/slow'), request('/b')], 2);
  assert.deepEqual(answers.map((a) => [a.code, a.body]), [[201, 'slow'], [504, 'timeout']]);
});

test('one request at a time on a connection: each answer written at once, as before', async () => {
  const { answers, writes } = await exchange((path, res) => {
    const { headers, body } = whole(`answer to ${path}`);
    endWhole(res, 201, headers, body);
  }, [request('/only')], 1);
  assert.deepEqual(answers.map((a) => a.body), ['answer to /only']);
  assert.equal(writes, 1);
});
