/**
 * The protobuf codec: byte vectors derived by hand from upstream's
 * generated.proto field numbers (decode what upstream encodes, and encode
 * what upstream decodes), a JSON → protobuf → JSON round trip of every
 * served kind and its list with every field of every message they reach
 * filled in, the special types, watch frames, Accept negotiation, and
 * bodies that do not decode.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { resources, apiVersionOf } from '../../src/api/resources.js';
import { decodeObject, decodeWatchFrames, encodeObject, encodeWatchFrame, messageTypeFor } from '../../src/api/protobuf/envelope.js';
import { microTimeType, rawExtensionType, timeType } from '../../src/api/protobuf/codec.js';
import { protoMessage, protoRoot } from '../../src/api/protobuf/table.js';
import { decodeBody } from '../../src/apiserver/body.js';
import { negotiateMedia } from '../../src/apiserver/negotiate.js';
import { StatusError } from '../../src/api/status.js';

const hex = (s: string) => Buffer.from(s.replace(/\s+/g, ''), 'hex');

describe('fixed vectors (field numbers from generated.proto)', () => {
  // k8s\0, then runtime.Unknown{typeMeta=1{apiVersion=1 "v1", kind=2 "Pod"}, raw=2 <Pod>, contentEncoding=3 "", contentType=4 ""}.
  // Pod{metadata=1 ObjectMeta{name=1 "p", creationTimestamp=8 Time{seconds=1 1704164645}, labels=11 {a: b}},
  //     spec=2 PodSpec{containers=2 Container{name=1 "c", image=2 "nginx",
  //       resources=8 ResourceRequirements{limits=1 {cpu: Quantity{string=1 "100m"}}},
  //       livenessProbe=10 Probe{handler=1 ProbeHandler{httpGet=2 HTTPGetAction{path=1 "/", port=2 IntOrString{type=1 1, strVal=3 "http"}}}}}}}
  const podEnvelope = hex(`6b387300
    0a09 0a027631 1203506f64
    1247
      0a13 0a0170 4206 08a5facdac06 5a06 0a0161 120162
      1230 122e 0a0163 12056e67696e78
        420f 0a0d 0a03637075 1206 0a04 3130306d
        5211 0a0f 120d 0a012f 1208 0801 1a0468747470
    1a00 2200`);
  const podJSON = {
    kind: 'Pod', apiVersion: 'v1',
    metadata: { name: 'p', creationTimestamp: '2024-01-02T03:04:05Z', labels: { a: 'b' } },
    spec: { containers: [{ name: 'c', image: 'nginx', resources: { limits: { cpu: '100m' } }, livenessProbe: { httpGet: { path: '/', port: 'http' } } }] },
  };

  it('decodes a Pod with a Time, a map, a Quantity and a string IntOrString', () => {
    assert.deepEqual(decodeObject(podEnvelope).object, podJSON);
  });
  it('encodes the same Pod to the same bytes', () => {
    assert.equal(encodeObject(podJSON)!.toString('hex'), podEnvelope.toString('hex'));
  });

  // Secret{metadata=1{name=1 "s"}, data=2 {k: bytes 68 69 00 ff}, type=3 "Opaque"}: bytes are base64 in JSON.
  const secret = hex('0a03 0a0173 1209 0a016b 1204 686900ff 1a06 4f7061717565');
  it('decodes a Secret\'s bytes to base64', () => {
    const obj = decodeObject(envelope('v1', 'Secret', secret)).object;
    assert.deepEqual(obj, { kind: 'Secret', apiVersion: 'v1', metadata: { name: 's' }, data: { k: Buffer.from([0x68, 0x69, 0, 0xff]).toString('base64') }, type: 'Opaque' });
    assert.deepEqual(decodeObject(encodeObject(obj)!).object, obj);
  });

  // DeploymentSpec{replicas=1 0 (a *int32: written, so kept), strategy=4{type=1 "RollingUpdate",
  //   rollingUpdate=2{maxUnavailable=1 IntOrString{type=1 0, intVal=2 1}, maxSurge=2 IntOrString{type=1 1, strVal=3 "25%"}}}}
  const deployment = hex('0a03 0a0164 1224 0800 2220 0a0d 526f6c6c696e67557064617465 120f 0a04 0800 1001 1207 0801 1a03 323525');
  it('keeps a pointer\'s zero (replicas: 0) and reads integer and string IntOrStrings', () => {
    assert.deepEqual(decodeObject(envelope('apps/v1', 'Deployment', deployment)).object, {
      kind: 'Deployment', apiVersion: 'apps/v1', metadata: { name: 'd' },
      spec: { replicas: 0, strategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 1, maxSurge: '25%' } } },
    });
  });

  // Event{metadata=1{name=1 "e"}, count=8 3, eventTime=10 MicroTime{seconds=1 1704164645, nanos=2 123456000}}.
  const event = hex('0a03 0a0165 4003 520b 08a5facdac06 108094ef3a');
  it('reads a MicroTime with its microseconds', () => {
    assert.deepEqual(decodeObject(envelope('v1', 'Event', event)).object, {
      kind: 'Event', apiVersion: 'v1', metadata: { name: 'e' }, count: 3, eventTime: '2024-01-02T03:04:05.123456Z',
    });
  });

  // What Go writes for a non-pointer field always: ObjectMeta{name=1 "z", generateName=2 "", generation=7 0,
  // creationTimestamp=8 Time{} (zero)}: omitempty drops the zero strings and numbers; the zero Time is null.
  it('drops what Go\'s JSON omits (omitempty zero values) and writes a zero Time as null', () => {
    const cm = hex('0a09 0a017a 1200 3800 4200');
    assert.deepEqual(decodeObject(envelope('v1', 'ConfigMap', cm)).object, { kind: 'ConfigMap', apiVersion: 'v1', metadata: { name: 'z', creationTimestamp: null } });
  });

  // CustomResourceDefinition{metadata=1{name=1 "ts.e.io"}, spec=2{group=1 "e.io", names=3{plural=1 "ts", kind=4 "T"},
  //   scope=4 "Namespaced", versions=7{name=1 "v1", served=2 true, storage=3 true, schema=4 CustomResourceValidation{
  //     openAPIV3Schema=1 JSONSchemaProps{type=5 "object", properties=29 (map entries key=1, value=2, keys sorted as Go writes them):
  //       labels: {type=5 "object", additionalProperties=30 JSONSchemaPropsOrBool{allows=1 false}},
  //       mode: {type=5 "string", default=8 JSON{raw=1 `"a"`}, enum=20 [JSON{raw `"a"`}, JSON{raw `"b"`}]},
  //       port: {xKubernetesIntOrString=40 true}}}}}}.
  // JSON messages hold JSON text; an OrBool without a schema is its bool.
  const crd = hex(`0a09 0a07 74732e652e696f
    128301
      0a04 652e696f
      1a07 0a02 7473 2201 54
      220a 4e616d65737061636564
      3a66 0a02 7631 1001 1801
        225c 0a5a 2a06 6f626a656374
          ea01 17 0a06 6c6162656c73 120d 2a06 6f626a656374 f201 02 0800
          ea01 27 0a04 6d6f6465 121f 2a06 737472696e67 4205 0a03 226122 a201 05 0a03 226122 a201 05 0a03 226222
          ea01 0b 0a04 706f7274 1203 c00201`);
  const crdJSON = {
    kind: 'CustomResourceDefinition', apiVersion: 'apiextensions.k8s.io/v1', metadata: { name: 'ts.e.io' },
    spec: {
      group: 'e.io', names: { plural: 'ts', kind: 'T' }, scope: 'Namespaced',
      versions: [{
        name: 'v1', served: true, storage: true, schema: {
          openAPIV3Schema: {
            type: 'object', properties: {
              labels: { type: 'object', additionalProperties: false },
              mode: { type: 'string', default: 'a', enum: ['a', 'b'] },
              port: { 'x-kubernetes-int-or-string': true },
            },
          },
        },
      }],
    },
  };
  it('decodes a CustomResourceDefinition\'s schema: JSON raw text, a bool additionalProperties, int-or-string', () => {
    assert.deepEqual(decodeObject(envelope('apiextensions.k8s.io/v1', 'CustomResourceDefinition', crd)).object, crdJSON);
  });
  it('encodes the same CustomResourceDefinition to the same bytes', () => {
    const expected = Buffer.concat([envelope('apiextensions.k8s.io/v1', 'CustomResourceDefinition', crd), hex('1a00 2200')]);
    assert.equal(encodeObject(crdJSON)!.toString('hex'), expected.toString('hex'));
  });
  // What Go writes for non-pointer schema fields always (exclusiveMaximum=10 false, nullable=37 false, an empty
  // description=4) is dropped by omitempty; items=24 with a schema=1 is that schema, with jSONSchemas=2 the list.
  it('reads items as a schema or a list, and drops the zero values Go always writes', () => {
    // JSONSchemaProps{type=5 "string", description=4 "", exclusiveMaximum=10 false, nullable=37 false}.
    const leaf = hex('2a06 737472696e67 2200 5000 a80200');
    const arrayOf = (orArray: Buffer) => Buffer.concat([hex('2a05 6172726179'), ld(24, orArray)]);
    for (const [items, json] of [[ld(1, leaf), { type: 'string' }], [Buffer.concat([ld(2, leaf), ld(2, leaf)]), [{ type: 'string' }, { type: 'string' }]]] as const) {
      const version = Buffer.concat([ld(1, Buffer.from('v1')), ld(4, ld(1, arrayOf(items)))]);
      const obj: any = decodeObject(envelope('apiextensions.k8s.io/v1', 'CustomResourceDefinition', ld(2, ld(7, version)))).object;
      assert.deepEqual(obj.spec.versions[0].schema.openAPIV3Schema, { type: 'array', items: json });
    }
  });

  it('takes the endpoint\'s kind when the envelope names none', () => {
    const bare = Buffer.concat([hex('6b387300'), hex('1205'), hex('0a03 0a0165')]);
    assert.deepEqual(decodeObject(bare, { apiVersion: 'v1', kind: 'ConfigMap' }).object, { kind: 'ConfigMap', apiVersion: 'v1', metadata: { name: 'e' } });
  });
});

/** `k8s\0` + Unknown{typeMeta, raw}, written by hand. */
function envelope(apiVersion: string, kind: string, raw: Buffer): Buffer {
  const typeMeta = Buffer.concat([ld(1, Buffer.from(apiVersion)), ld(2, Buffer.from(kind))]);
  return Buffer.concat([hex('6b387300'), ld(1, typeMeta), ld(2, raw)]);
}

/** A length-delimited field (wire type 2): tag, length, bytes. */
function ld(field: number, b: Buffer): Buffer {
  return Buffer.concat([varint((field << 3) | 2), varint(b.length), b]);
}

function varint(n: number): Buffer {
  const out: number[] = [];
  while (n > 0x7f) { out.push((n & 0x7f) | 0x80); n >>>= 7; }
  out.push(n);
  return Buffer.from(out);
}

const extensions = 'k8s.io.apiextensions_apiserver.pkg.apis.apiextensions.v1';
/** A nested schema: a null in enum is kept (an empty JSON message). */
const schemaLeaf = { type: 'string', enum: ['a', 1, null], default: 'a', maximum: 2.5 };

/**
 * A JSON object of message `type` with every field set to a non-zero value
 * (Go's omitempty would drop zeros), to `depth` levels of messages.
 */
function sample(type: string, depth = 0, counter = { n: 0 }): unknown {
  switch (type) {
    case timeType: return '2024-01-02T03:04:05Z';
    case microTimeType: return '2024-01-02T03:04:05.123456Z';
    case 'k8s.io.apimachinery.pkg.api.resource.Quantity': return '1500m';
    case 'k8s.io.apimachinery.pkg.util.intstr.IntOrString': return counter.n++ % 2 ? 8080 : 'http';
    case 'k8s.io.apimachinery.pkg.apis.meta.v1.FieldsV1': return { 'f:metadata': { 'f:labels': { '.': {} } } };
    case rawExtensionType: return { apiVersion: 'v1', kind: 'ConfigMap', data: { a: 'b' } };
    // A CRD's schema: its own fields filled once, nested schemas (recursive, as every shape of the "or" types) small.
    case `${extensions}.JSON`: return { a: [1, 'x', true, null] };
    case `${extensions}.JSONSchemaPropsOrArray`: return counter.n++ % 2 ? [schemaLeaf, schemaLeaf] : schemaLeaf;
    case `${extensions}.JSONSchemaPropsOrBool`: return counter.n++ % 2 ? false : schemaLeaf;
    case `${extensions}.JSONSchemaPropsOrStringArray`: return counter.n++ % 2 ? ['a', 'b'] : schemaLeaf;
    case `${extensions}.JSONSchemaProps`: if (depth > 5) return schemaLeaf;
  }
  const table = protoMessage(type)!;
  if (table.slice) return ['x', 'y'];
  const out: Record<string, unknown> = {};
  for (const [name, f] of Object.entries(table.fields)) {
    const scalar = /^[a-z0-9]+$/.test(f.type);
    if (!scalar && depth > 14) continue;
    const value = () => scalar ? scalarSample(f.type, name) : sample(f.type, depth + 1, counter);
    if (f.go?.includes('i')) Object.assign(out, value());
    else out[f.json ?? name] = f.keyType ? { key1: value(), key2: value() } : f.rule === 'repeated' ? [value(), value()] : value();
  }
  return out;
}

function scalarSample(type: string, name: string): unknown {
  switch (type) {
    case 'string': return `v-${name}`;
    case 'bool': return true;
    case 'int32': return 7;
    case 'int64': return 1234567890123;
    case 'double': return 1.5;
    case 'bytes': return Buffer.from([1, 2, 3, 254]).toString('base64');
  }
  throw new Error(`unexpected scalar ${type}`);
}

describe('round trip of every served kind, every field filled', () => {
  const kinds = new Map<string, { apiVersion: string; kind: string }>();
  for (const r of resources) {
    kinds.set(`${apiVersionOf(r)}/${r.kind}`, { apiVersion: apiVersionOf(r), kind: r.kind });
    for (const s of r.subresources) if (!s.streamed) kinds.set(`${apiVersionOf(s)}/${s.kind}`, { apiVersion: apiVersionOf(s), kind: s.kind });
    if (r.verbs.includes('list')) kinds.set(`${apiVersionOf(r)}/${r.listKind}`, { apiVersion: apiVersionOf(r), kind: r.listKind });
  }
  for (const kind of ['Status', 'DeleteOptions', 'PartialObjectMetadata', 'PartialObjectMetadataList']) kinds.set(`v1/${kind}`, { apiVersion: 'v1', kind });
  // Every served kind has its message, the extension points' too (admissionregistration from
  // kubernetes/api, apiregistration from kube-aggregator).
  for (const { apiVersion, kind } of kinds.values()) {
    it(`${apiVersion} ${kind}: JSON → protobuf → JSON is the same object`, () => {
      const type = messageTypeFor(apiVersion, kind);
      assert.ok(type, `no protobuf message for ${apiVersion} ${kind}`);
      const obj = { kind, apiVersion, ...(sample(type) as object) };
      const buf = encodeObject(obj)!;
      assert.deepEqual(decodeObject(buf).object, obj);
    });
  }

  it('encodes a CRD whose schema nests deeper than the decoder\'s limit (a JSON-created one is served in protobuf)', () => {
    let schema: object = { type: 'string' };
    for (let i = 0; i < 150; i++) schema = { not: schema };
    const deep = { kind: 'CustomResourceDefinition', apiVersion: 'apiextensions.k8s.io/v1', metadata: { name: 'd' }, spec: { versions: [{ name: 'v1', schema: { openAPIV3Schema: schema } }] } };
    const buf = encodeObject(deep)!;
    assert.ok(buf.length > 300);
    assert.throws(() => decodeObject(buf), /max depth/);
  });

  it('keeps int64 values past 2^32 and negative numbers', () => {
    const obj = { kind: 'Pod', apiVersion: 'v1', metadata: { name: 'n', generation: 2 ** 40 }, spec: { containers: [], activeDeadlineSeconds: -5 } };
    assert.deepEqual(decodeObject(encodeObject(obj)!).object, { ...obj, spec: { activeDeadlineSeconds: -5 } });
  });

  it('keeps an ephemeral container\'s fields in its JSON object (EphemeralContainerCommon is inline, its tag names no field)', () => {
    const debug = { name: 'debugger', image: 'busybox', command: ['sh'], resources: {}, terminationMessagePolicy: 'File', stdin: true, targetContainerName: 'app' };
    const obj = { kind: 'Pod', apiVersion: 'v1', metadata: { name: 'p' }, spec: { containers: [{ name: 'app', image: 'nginx', resources: {} }], ephemeralContainers: [debug] } };
    assert.deepEqual(decodeObject(encodeObject(obj)!).object, obj);
  });

  it('leaves out nulls, and fields protobuf does not have', () => {
    const obj = { kind: 'ConfigMap', apiVersion: 'v1', metadata: { name: 'c', creationTimestamp: null, extra: 'x' }, data: { a: 'b' }, unknownField: 1 };
    assert.deepEqual(decodeObject(encodeObject(obj)!).object, { kind: 'ConfigMap', apiVersion: 'v1', metadata: { name: 'c' }, data: { a: 'b' } });
  });

  it('has no protobuf for kinds upstream serves as JSON only', () => {
    assert.equal(encodeObject({ apiVersion: 'stable.example.com/v1', kind: 'CronTab', metadata: { name: 'x' } }), undefined);
    assert.equal(encodeObject({ apiVersion: 'apps.example.com/v1', kind: 'Deployment' }), undefined);
    assert.equal(encodeObject({ apiVersion: 'meta.k8s.io/v1', kind: 'Table' }), undefined);
  });
});

describe('watch frames', () => {
  it('length-prefixes WatchEvents whose object is the enveloped object, and reads them back across chunk boundaries', () => {
    const cm = { kind: 'ConfigMap', apiVersion: 'v1', metadata: { name: 'w', resourceVersion: '5' }, data: { a: 'b' } };
    const one = encodeWatchFrame('ADDED', encodeObject(cm)!);
    const two = encodeWatchFrame('DELETED', encodeObject(cm)!);
    assert.equal(one.readUInt32BE(0), one.length - 4);
    // WatchEvent{type=1 "ADDED", object=2 RawExtension{raw=1 k8s\0...}}
    assert.equal(one.subarray(4, 12).toString('hex'), '0a054144444544' + '12');
    const both = Buffer.concat([one, two]);
    const partial = decodeWatchFrames(both.subarray(0, one.length + 3));
    assert.deepEqual(partial.events, [{ type: 'ADDED', object: cm }]);
    assert.equal(partial.rest.length, 3);
    assert.deepEqual(decodeWatchFrames(both).events.map((e) => e.type), ['ADDED', 'DELETED']);
  });
});

describe('Accept negotiation', () => {
  const cases: [string | undefined, string, boolean][] = [
    ['application/vnd.kubernetes.protobuf,application/json', 'json', true],
    ['application/json', 'json', false],
    [undefined, 'json', false],
    ['*/*', 'json', false],
    ['application/vnd.kubernetes.protobuf', 'json', true],
    ['application/json;as=Table;v=v1;g=meta.k8s.io,application/json', 'table', false],
    ['application/vnd.kubernetes.protobuf;as=Table;v=v1;g=meta.k8s.io,application/json', 'json', false],
    ['application/vnd.kubernetes.protobuf;as=PartialObjectMetadata;g=meta.k8s.io;v=v1,application/json', 'partial', true],
    ['text/html,application/vnd.kubernetes.protobuf', 'json', true],
  ];
  for (const [accept, rendering, protobuf] of cases) {
    it(`${accept ?? '(none)'} → ${rendering}${protobuf ? ' in protobuf' : ''}`, () => {
      assert.deepEqual(negotiateMedia(accept), { rendering, protobuf });
    });
  }
});

describe('protobuf request bodies', () => {
  const into = { apiVersion: 'v1', kind: 'ConfigMap' };
  const refusal = (buf: Buffer) => {
    try {
      decodeBody(buf, 'application/vnd.kubernetes.protobuf', false, into);
    } catch (e) {
      assert.ok(e instanceof StatusError);
      return { code: e.status.code, reason: e.status.reason, message: e.status.message };
    }
    assert.fail('decoded');
  };
  it('decodes to the JSON object', () => {
    const cm = { kind: 'ConfigMap', apiVersion: 'v1', metadata: { name: 'x' }, data: { a: 'b' } };
    assert.deepEqual(decodeBody(encodeObject(cm)!, 'application/vnd.kubernetes.protobuf', false, into), cm);
  });
  it('refuses a body without the magic with upstream\'s words and the start of a JSON-looking body as text', () => {
    assert.deepEqual(refusal(Buffer.from('{"kind":"ConfigMap"}')), {
      code: 400, reason: 'BadRequest',
      message: 'the object provided is unrecognized (must be of type ConfigMap): provided data does not appear to be a protobuf message, expected prefix [107 56 115 0] ({"kind":"ConfigMap"})',
    });
  });
  it('summarizes any other body in hex, cut after 30 bytes', () => {
    assert.deepEqual(refusal(Buffer.from('x'.repeat(40))), {
      code: 400, reason: 'BadRequest',
      message: `the object provided is unrecognized (must be of type ConfigMap): provided data does not appear to be a protobuf message, expected prefix [107 56 115 0] (${'78'.repeat(30)} ...)`,
    });
  });
  it('names the kind when the envelope did', () => {
    assert.deepEqual(refusal(envelope('v1', 'ConfigMap', hex('0a05 0a01'))), {
      code: 400, reason: 'BadRequest', message: 'ConfigMap in version "v1" cannot be handled as a ConfigMap: unexpected EOF',
    });
  });
  it('refuses JSON inside a RawExtension nested past the depth limit', () => {
    const deep = Buffer.from(`${'['.repeat(500)}${']'.repeat(500)}`);
    const revision = Buffer.concat([ld(1, hex('0a0178')), ld(2, ld(1, deep))]);
    const e = (() => { try { decodeBody(envelope('apps/v1', 'ControllerRevision', revision), 'application/vnd.kubernetes.protobuf', false, { apiVersion: 'apps/v1', kind: 'ControllerRevision' }); } catch (err) { return err as StatusError; } })();
    assert.equal(e?.status.code, 400);
    assert.match(e!.status.message!, /exceeded max depth/);
  });
});

describe('decoded messages carry only the fields on the wire', () => {
  // protobufjs's own constructor gave every decoded message an empty array or object per repeated
  // or map field: the hardening issue's Pod of 1,000,000 empty containers became 8,000,000 arrays.
  const podSpec = 'k8s.io.api.core.v1.PodSpec';
  const encoded = protoRoot().lookupType(podSpec).encode({ containers: [{}, {}, { name: 'c', args: ['a', 'b'], ports: [{ containerPort: 80 }] }] }).finish();

  it('an empty container has no own property; absent lists and maps read as empty', () => {
    const spec: any = protoRoot().lookupType(podSpec).decode(encoded);
    assert.equal(spec.containers.length, 3);
    assert.deepEqual(Object.keys(spec.containers[0]), []);
    assert.deepEqual(Object.keys(spec), ['containers']);
    assert.equal(spec.containers[0].args.length, 0);
    assert.equal(spec.volumes.length, 0);
    assert.deepEqual(Object.keys(spec.nodeSelector), []);
  });

  it('lists and maps on the wire are decoded into their own values', () => {
    const spec: any = protoRoot().lookupType(podSpec).decode(encoded);
    assert.deepEqual(spec.containers[2].args, ['a', 'b']);
    assert.equal(spec.containers[2].ports[0].containerPort, 80);
    assert.notEqual(spec.containers[2].args, spec.containers[0].args);
  });

  it('the JSON form is unchanged: empty containers are {}', () => {
    const body = encodeObject({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' }, spec: { containers: [{}, { name: 'c', args: ['a'] }], nodeSelector: { k: 'v' } } })!;
    assert.deepEqual(decodeObject(body).object, { kind: 'Pod', apiVersion: 'v1', metadata: { name: 'p' }, spec: { containers: [{}, { name: 'c', args: ['a'] }], nodeSelector: { k: 'v' } } });
  });
});
