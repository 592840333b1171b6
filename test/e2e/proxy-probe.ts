/**
 * A client that lives in one network namespace for a whole test (started
 * with nsenter by proxy-netns.ts), so each probe costs a TCP connection, not
 * a process start. Reads lines `ID HOST PORT COUNT` on stdin; for each, makes
 * COUNT fresh connections with an HTTP GET and prints one JSON line
 * `{id, results}` where each result is the body or `ERR:<code>`.
 */
import http from 'node:http';
import { createInterface } from 'node:readline';

function once(host: string, port: number): Promise<string> {
  return new Promise((resolve) => {
    const req = http.get({ host, port, path: '/', agent: false, timeout: 1500 }, (res) => {
      let body = '';
      res.on('data', (d: Buffer) => { body += d.toString(); });
      res.on('end', () => resolve(body.trim()));
    });
    req.on('timeout', () => { req.destroy(Object.assign(new Error('timeout'), { code: 'TIMEOUT' })); });
    req.on('error', (e: NodeJS.ErrnoException) => resolve(`ERR:${e.code ?? e.message}`));
  });
}

// `node --test dist/test/` runs every .js file under a test/ folder; proxy-netns.ts starts the
// probe with `serve`, and without it this is that run, which must end at once.
if (process.argv[2] !== 'serve') process.exit(0);

const rl = createInterface({ input: process.stdin });
rl.on('line', async (line) => {
  const [id, host, port, count] = line.trim().split(/\s+/);
  const results: string[] = [];
  for (let i = 0; i < Number(count); i++) results.push(await once(host!, Number(port)));
  process.stdout.write(JSON.stringify({ id, results }) + '\n');
});
rl.on('close', () => process.exit(0));
