/**
 * Client CPU per binding POST: RestClient.request() (Node's http client
 * through the pooled agent) against RestClient.requestLight() (an undici
 * Pool), the transport the scheduler binds through. A child
 * process serves HTTPS on 127.0.0.1 and answers each POST 201 with a small
 * Status, so the figure is the client's own cost per request; rounds
 * alternate the two transports. Prints its results (nothing is written).
 *
 *   node dist/bench/binding-transport.js [--requests 10000] [--in-flight 512] [--rounds 3]
 */
import { fork } from 'node:child_process';
import https from 'node:https';
import { loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import type { AddressInfo } from 'node:net';
import { RestClient } from '../src/client/rest.js';
import { createCA, issueCertificate } from '../src/pki/index.js';
import { benchArgs } from './lib/args.js';

async function serve(): Promise<void> {
  const ca = await createCA({ commonName: 'bench-ca', days: 1 });
  const cert = await issueCertificate({ ca, commonName: 'localhost', ipAddresses: ['127.0.0.1'], usages: ['server'], days: 1 });
  const body = JSON.stringify({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', code: 201 });
  const server = https.createServer({ cert: cert.certPem, key: cert.keyPem, keepAliveTimeout: 65_000 }, (req, res) => {
    req.resume();
    req.on('end', () => {
      res.writeHead(201, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body) });
      res.end(body);
    });
  });
  server.listen(0, '127.0.0.1', () => process.send!({ port: (server.address() as AddressInfo).port, ca: ca.certPem }));
}

async function main(): Promise<void> {
  const { values } = benchArgs('Client CPU per binding POST: RestClient.request() against requestLight().', { options: { requests: { type: 'string', default: '10000' }, 'in-flight': { type: 'string', default: '512' }, rounds: { type: 'string', default: '3' } }, strict: true });
  const n = Number(values.requests);
  const inFlight = Number(values['in-flight']);
  const child = fork(fileURLToPath(import.meta.url), ['--serve']);
  const { port, ca } = await new Promise<{ port: number; ca: string }>((r) => child.once('message', (m) => r(m as { port: number; ca: string })));
  const binding = (i: number) => ({
    apiVersion: 'v1', kind: 'Binding', metadata: { name: `pod-${i}`, namespace: 'default', uid: '0b1c5d6e-1111-2222-3333-444455556666' },
    target: { apiVersion: 'v1', kind: 'Node', name: `node-${String(i % 5000).padStart(5, '0')}` },
  });
  const round = async (light: boolean): Promise<number> => {
    const client = new RestClient({ server: `https://127.0.0.1:${port}`, caPem: ca, token: 'x'.repeat(40) }, { qps: 0 });
    const send = (i: number) => {
      const path = `/api/v1/namespaces/default/pods/pod-${i}/binding`;
      return light ? client.requestLight('POST', path, { body: binding(i) }) : client.request('POST', path, { body: binding(i) });
    };
    await Promise.all(Array.from({ length: 64 }, (_, i) => send(i))); // connections opened before measuring
    const cpu0 = process.cpuUsage();
    let next = 0;
    await Promise.all(Array.from({ length: inFlight }, async () => { while (next < n) await send(next++); }));
    const cpu = process.cpuUsage(cpu0);
    client.close();
    return (cpu.user + cpu.system) / 1000 / n;
  };
  console.log(`${n} binding POSTs, ${inFlight} in flight; load ${loadavg().map((l) => l.toFixed(1)).join(' ')}`);
  for (let r = 1; r <= Number(values.rounds); r++) {
    for (const light of [false, true]) console.log(`round ${r} ${light ? 'requestLight (undici)  ' : 'request (node:https)   '} ${(await round(light)).toFixed(3)} ms CPU per request`);
  }
  console.log(`load ${loadavg().map((l) => l.toFixed(1)).join(' ')}`);
  child.kill();
}

if (process.argv.includes('--serve')) void serve(); else void main();
