/**
 * CRD conversion webhooks end to end: a two-version CRD (v1 stored, with
 * spec.host and spec.port; v2 with spec.address "host:port") converted by a
 * real HTTPS webhook server started here with its own CA, driven by the real
 * kubectl: create in either version, get in both, a list converted in one
 * ConversionReview, a watch, client- and server-side apply, and the errors
 * upstream answers when the webhook fails or is down.
 */
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { startCluster, type Cluster } from './harness.js';
import { apiServerOnly, apiStream } from './helpers.js';
import { createCA, issueCertificate } from '../../src/pki/index.js';

interface ConversionRequest { uid: string; desiredAPIVersion: string; objects: any[] }

/** The test's conversion webhook: v1 {host, port} <-> v2 {address}; `failWith` makes it answer a Failure, `hang` never answer. */
const webhook = { reviews: [] as ConversionRequest[], failWith: '', hang: false };

function convert(obj: any, desired: string): any {
  const out = { ...obj, apiVersion: desired, spec: { ...obj.spec } };
  if (desired.endsWith('/v2')) {
    out.spec.address = `${obj.spec.host}:${obj.spec.port}`;
    delete out.spec.host;
    delete out.spec.port;
  } else {
    const at = String(obj.spec.address).lastIndexOf(':');
    out.spec.host = obj.spec.address.slice(0, at);
    out.spec.port = Number(obj.spec.address.slice(at + 1));
    delete out.spec.address;
  }
  return out;
}

function answer(request: ConversionRequest): unknown {
  webhook.reviews.push(request);
  const response = webhook.failWith
    ? { uid: request.uid, result: { status: 'Failure', message: webhook.failWith } }
    : { uid: request.uid, result: { status: 'Success' }, convertedObjects: request.objects.map((o) => convert(o, request.desiredAPIVersion)) };
  return { apiVersion: 'apiextensions.k8s.io/v1', kind: 'ConversionReview', response };
}

let cluster: Cluster;
let server: https.Server;
let port: number;

const crd = (caBundle: string) => `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: backends.conv.example.com
spec:
  group: conv.example.com
  scope: Namespaced
  names: {plural: backends, singular: backend, kind: Backend}
  conversion:
    strategy: Webhook
    webhook:
      conversionReviewVersions: ["v1"]
      clientConfig:
        url: https://127.0.0.1:${port}/convert
        caBundle: ${caBundle}
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            properties:
              host: {type: string}
              port: {type: integer}
  - name: v2
    served: true
    storage: false
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            properties:
              address: {type: string}
`;

const v1 = (name: string, host: string, p: number) => `apiVersion: conv.example.com/v1
kind: Backend
metadata: {name: ${name}, namespace: default, labels: {tier: db}}
spec: {host: ${host}, port: ${p}}
`;
const v2 = (name: string, address: string) => `apiVersion: conv.example.com/v2
kind: Backend
metadata: {name: ${name}, namespace: default}
spec: {address: "${address}"}
`;

async function ok(args: string[], input?: string): Promise<string> {
  const r = await cluster.kubectl(args, { input, allowFail: true });
  assert.equal(r.code, 0, `kubectl ${args.join(' ')}: ${r.stderr}`);
  return r.stdout;
}
const getJSON = async (resource: string, name: string) => JSON.parse(await ok(['get', resource, name, '-o', 'json']));

before(async () => {
  const ca = await createCA({ commonName: 'conversion-test-ca', days: 1 });
  const leaf = await issueCertificate({ ca, commonName: 'converter', ipAddresses: ['127.0.0.1'], usages: ['server'], days: 1 });
  server = https.createServer({ cert: leaf.certPem, key: leaf.keyPem }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const review = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      if (webhook.hang) return; // the caller gives up after its 30 s; closing the server ends the socket
      res.setHeader('Content-Type', 'application/json');
      res.end(JSON.stringify(answer(review.request)));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
  cluster = await startCluster(apiServerOnly);
  await ok(['apply', '-f', '-'], crd(Buffer.from(ca.certPem).toString('base64')));
  await ok(['wait', '--for=condition=Established', 'crd/backends.conv.example.com', '--timeout=60s']);
});
after(async () => {
  server?.closeAllConnections();
  server?.close();
  await cluster?.cleanup();
});

describe('CRD conversion webhook', () => {
  test('created in v1, read in v2 through the webhook and in v1 without it', async () => {
    await ok(['create', '-f', '-'], v1('db', 'db.internal', 5432));
    const seen = webhook.reviews.length;
    const asV2 = await getJSON('backends.v2.conv.example.com', 'db');
    assert.equal(asV2.apiVersion, 'conv.example.com/v2');
    assert.deepEqual(asV2.spec, { address: 'db.internal:5432' });
    assert.deepEqual(asV2.metadata.labels, { tier: 'db' });
    const review = webhook.reviews[seen];
    assert.equal(review.desiredAPIVersion, 'conv.example.com/v2');
    assert.equal(review.objects[0].apiVersion, 'conv.example.com/v1');
    const asV1 = await getJSON('backends.v1.conv.example.com', 'db');
    assert.deepEqual(asV1.spec, { host: 'db.internal', port: 5432 });
    assert.equal(asV1.metadata.resourceVersion, asV2.metadata.resourceVersion);
    assert.equal(webhook.reviews.length, seen + 1, 'the storage version is read without a conversion');
  });

  test('created in v2: converted to the storage version before it is stored', async () => {
    const seen = webhook.reviews.length;
    const out = await ok(['create', '-f', '-', '-o', 'json'], v2('cache', 'redis.internal:6379'));
    assert.deepEqual(JSON.parse(out).spec, { address: 'redis.internal:6379' });
    assert.ok(webhook.reviews.slice(seen).some((r) => r.desiredAPIVersion === 'conv.example.com/v1' && r.objects[0].spec.address === 'redis.internal:6379'));
    assert.deepEqual((await getJSON('backends.v1.conv.example.com', 'cache')).spec, { host: 'redis.internal', port: 6379 });
  });

  test('a list in v2 is one ConversionReview for every item', async () => {
    await ok(['create', '-f', '-'], v1('queue', 'mq.internal', 5672));
    const seen = webhook.reviews.length;
    const list = JSON.parse(await ok(['get', 'backends.v2.conv.example.com', '-o', 'json']));
    const addresses = list.items.map((i: any) => i.spec.address).sort();
    assert.deepEqual(addresses, ['db.internal:5432', 'mq.internal:5672', 'redis.internal:6379']);
    assert.ok(list.items.every((i: any) => i.apiVersion === 'conv.example.com/v2'));
    const reviews = webhook.reviews.slice(seen);
    assert.equal(reviews.length, 1, `one review, got ${reviews.length}`);
    assert.equal(reviews[0].objects.length, 3);
    // The preferred version is v2 (kube-aware version order): a plain `kubectl get` converts too.
    assert.match(await ok(['get', 'backends']), /queue/);
  });

  test('a watch in v2 sees the initial state and later writes converted', async () => {
    const stream = await apiStream(cluster, '/apis/conv.example.com/v2/namespaces/default/backends?watch=1');
    try {
      assert.equal(stream.status, 200);
      await stream.waitFor((e) => e.type === 'ADDED' && e.object.metadata.name === 'db', 'the initial ADDED of db', 0, 60_000);
      assert.equal(stream.events.find((e) => e.object.metadata.name === 'db').object.spec.address, 'db.internal:5432');
      await ok(['patch', 'backends.v1.conv.example.com', 'db', '--type=merge', '-p', '{"spec":{"port":6432}}']);
      const i = await stream.waitFor((e) => e.type === 'MODIFIED' && e.object.metadata.name === 'db', 'MODIFIED db', 0, 60_000);
      assert.equal(stream.events[i].object.apiVersion, 'conv.example.com/v2');
      assert.equal(stream.events[i].object.spec.address, 'db.internal:6432');
    } finally {
      stream.close();
    }
  });

  test('kubectl apply in v2, client-side and server-side, updates the stored v1 object', async () => {
    await ok(['apply', '-f', '-'], v2('web', 'web.internal:80'));
    await ok(['apply', '-f', '-'], v2('web', 'web.internal:8080'));
    assert.deepEqual((await getJSON('backends.v1.conv.example.com', 'web')).spec, { host: 'web.internal', port: 8080 });
    await ok(['apply', '--server-side', '--field-manager=conv-test', '-f', '-'], v2('ssa', 'ssa.internal:9000'));
    await ok(['apply', '--server-side', '--field-manager=conv-test', '-f', '-'], v2('ssa', 'ssa.internal:9001'));
    assert.deepEqual((await getJSON('backends.v1.conv.example.com', 'ssa')).spec, { host: 'ssa.internal', port: 9001 });
    assert.equal((await getJSON('backends.v2.conv.example.com', 'ssa')).spec.address, 'ssa.internal:9001');
  });

  test('a webhook answering Failure: its message is the error', async () => {
    webhook.failWith = 'cannot convert today';
    try {
      const r = await cluster.kubectl(['get', 'backends.v2.conv.example.com', 'db'], { allowFail: true });
      assert.notEqual(r.code, 0);
      assert.match(r.stderr, /Error from server: conversion webhook for conv\.example\.com\/v1, Kind=Backend failed: cannot convert today/);
    } finally {
      webhook.failWith = '';
    }
  });

  test('a webhook that never answers: the call is cut after 30 s with upstream\'s words', async () => {
    webhook.hang = true;
    try {
      const r = await cluster.kubectl(['get', 'backends.v2.conv.example.com', 'db'], { allowFail: true });
      assert.notEqual(r.code, 0);
      assert.match(r.stderr, new RegExp(`conversion webhook for conv\\.example\\.com/v1, Kind=Backend failed: Post "https://127\\.0\\.0\\.1:${port}/convert\\?timeout=30s": context deadline exceeded`));
    } finally {
      webhook.hang = false;
    }
  });

  test('webhook down: reads and writes in v2 fail with upstream\'s error; v1 still works', async () => {
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
    const url = `https://127.0.0.1:${port}/convert?timeout=30s`;
    const get = await cluster.kubectl(['get', 'backends.v2.conv.example.com', 'db'], { allowFail: true });
    assert.notEqual(get.code, 0);
    assert.match(get.stderr, new RegExp(`Error from server: conversion webhook for conv\\.example\\.com/v1, Kind=Backend failed: Post "${url.replace(/[.?]/g, '\\$&')}": dial tcp 127\\.0\\.0\\.1:${port}: connect: connection refused`));
    const create = await cluster.kubectl(['create', '-f', '-'], { input: v2('lost', 'lost.internal:1'), allowFail: true });
    assert.notEqual(create.code, 0);
    assert.match(create.stderr, /conversion webhook for conv\.example\.com\/v2, Kind=Backend failed: Post .*connection refused/);
    assert.equal((await cluster.kubectl(['get', 'backends.v1.conv.example.com', 'lost'], { allowFail: true })).code, 1, 'nothing half-written');
    assert.equal((await getJSON('backends.v1.conv.example.com', 'db')).spec.port, 6432);
  });
});
