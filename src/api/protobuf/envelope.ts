/**
 * Upstream's protobuf serialization of an object (k8s.io/apimachinery
 * runtime/serializer/protobuf): the 4-byte magic `k8s\0`, then a
 * runtime.Unknown message whose typeMeta names the kind, whose raw holds
 * the kind's generated.proto message, and whose contentEncoding and
 * contentType are empty. Watch streams frame each metav1.WatchEvent (without
 * magic or envelope) behind a 4-byte big-endian length; the event's object is
 * a RawExtension holding the enveloped object.
 */
import type protobuf from 'protobufjs';
import { jsonTextTooDeep, jsonDepthError } from '../nesting.js';
import { maxMessageDepth, messageFromJSON, messageToJSON, ProtoDecodeError, type RawCodec } from './codec.js';
import { protoMessage, protoRoot } from './table.js';

export const protobufMediaType = 'application/vnd.kubernetes.protobuf';
export const protobufWatchMediaType = 'application/vnd.kubernetes.protobuf;stream=watch';
export const protobufMagic = Buffer.from([0x6b, 0x38, 0x73, 0x00]);

const unknownType = 'k8s.io.apimachinery.pkg.runtime.Unknown';
const watchEventType = 'k8s.io.apimachinery.pkg.apis.meta.v1.WatchEvent';

/** The protobuf package of each upstream API group whose kinds have generated.proto messages. */
const groupPackages: Record<string, string> = {
  '': 'k8s.io.api.core', apps: 'k8s.io.api.apps', policy: 'k8s.io.api.policy', autoscaling: 'k8s.io.api.autoscaling',
  batch: 'k8s.io.api.batch', 'coordination.k8s.io': 'k8s.io.api.coordination', 'certificates.k8s.io': 'k8s.io.api.certificates',
  'events.k8s.io': 'k8s.io.api.events', 'storage.k8s.io': 'k8s.io.api.storage', 'scheduling.k8s.io': 'k8s.io.api.scheduling',
  'discovery.k8s.io': 'k8s.io.api.discovery', 'flowcontrol.apiserver.k8s.io': 'k8s.io.api.flowcontrol',
  'authentication.k8s.io': 'k8s.io.api.authentication', 'authorization.k8s.io': 'k8s.io.api.authorization',
  'networking.k8s.io': 'k8s.io.api.networking', 'node.k8s.io': 'k8s.io.api.node', 'rbac.authorization.k8s.io': 'k8s.io.api.rbac',
  'apiextensions.k8s.io': 'k8s.io.apiextensions_apiserver.pkg.apis.apiextensions',
  'admissionregistration.k8s.io': 'k8s.io.api.admissionregistration',
  'apiregistration.k8s.io': 'k8s.io.kube_aggregator.pkg.apis.apiregistration',
  'meta.k8s.io': 'k8s.io.apimachinery.pkg.apis.meta',
};

/** Kinds of meta.k8s.io that every group version carries (a Status from /api/v1 says apiVersion v1). */
const metaKinds = new Set(['Status', 'DeleteOptions', 'WatchEvent', 'PartialObjectMetadata', 'PartialObjectMetadataList']);

/**
 * The message names found, by apiVersion then kind: every create and update asks for its kind's
 * (omitempty.ts, body-kind.ts). Only names found for a group's own kinds are kept, so the map is
 * bounded by the schema's kinds whatever apiVersion and kind bodies carry (a meta kind is found
 * under any apiVersion, and is not kept).
 */
const foundTypes = new Map<string, Map<string, string>>();

/** The full message name of apiVersion/kind, when k8ts has a protobuf schema for it. */
export function messageTypeFor(apiVersion: string | undefined, kind: string | undefined): string | undefined {
  if (!apiVersion || !kind) return undefined;
  const found = foundTypes.get(apiVersion)?.get(kind);
  if (found !== undefined) return found;
  const full = lookUpMessageType(apiVersion, kind);
  if (full !== undefined && !metaKinds.has(kind)) {
    let kinds = foundTypes.get(apiVersion);
    if (!kinds) foundTypes.set(apiVersion, (kinds = new Map()));
    kinds.set(kind, full);
  }
  return full;
}

function lookUpMessageType(apiVersion: string, kind: string): string | undefined {
  const slash = apiVersion.lastIndexOf('/');
  const group = slash < 0 ? '' : apiVersion.slice(0, slash);
  const version = apiVersion.slice(slash + 1);
  const pkg = metaKinds.has(kind) ? 'k8s.io.apimachinery.pkg.apis.meta' : groupPackages[group];
  if (!pkg) return undefined;
  const full = `${pkg}.${metaKinds.has(kind) ? 'v1' : version}.${kind}`;
  return protoMessage(full) ? full : undefined;
}

/** Whether an object of this apiVersion/kind can be answered in protobuf. */
export const hasProtobuf = (obj: { apiVersion?: string; kind?: string } | null | undefined): boolean =>
  !!obj && messageTypeFor(obj.apiVersion, obj.kind) !== undefined;

function type(name: string): protobuf.Type {
  return protoRoot().lookupType(name);
}

/** `k8s\0` + Unknown for a JSON object that carries its apiVersion and kind; undefined when k8ts has no message for it. */
export function encodeObject(obj: any, apiVersion = obj?.apiVersion, kind = obj?.kind): Buffer | undefined {
  const name = messageTypeFor(apiVersion, kind);
  if (!name) return undefined;
  const raw = type(name).encode(messageFromJSON(name, obj)).finish();
  const unknown = type(unknownType).encode({ typeMeta: { apiVersion, kind }, raw, contentEncoding: '', contentType: '' }).finish();
  return Buffer.concat([protobufMagic, unknown]);
}

export interface DecodedObject {
  apiVersion: string;
  kind: string;
  object: Record<string, unknown>;
}

/**
 * The JSON object of a `k8s\0` + Unknown body. The typeMeta's apiVersion and
 * kind are used when present, else `defaults` (as upstream's decoder falls
 * back to the endpoint's kind). Throws ProtoDecodeError with Go-like words on
 * anything that does not decode.
 */
export function decodeObject(buf: Uint8Array, defaults?: { apiVersion: string; kind: string }, depth = 0): DecodedObject {
  if (buf.length < 4 || !protobufMagic.equals(buf.subarray(0, 4))) {
    throw new ProtoDecodeError(`provided data does not appear to be a protobuf message, expected prefix [${[...protobufMagic].join(' ')}]`);
  }
  const unknown: any = wire(() => type(unknownType).decode(buf.subarray(4)));
  const apiVersion = unknown.typeMeta?.apiVersion || defaults?.apiVersion || '';
  const kind = unknown.typeMeta?.kind || defaults?.kind || '';
  if (!kind) throw new ProtoDecodeError('Object \'Kind\' is missing in protobuf');
  if (unknown.contentEncoding) throw new ProtoDecodeError(`unsupported content encoding ${JSON.stringify(unknown.contentEncoding)}`);
  const gvk = { kind, version: apiVersion.slice(apiVersion.lastIndexOf('/') + 1) };
  try {
    const name = messageTypeFor(apiVersion, kind);
    if (!name) throw new ProtoDecodeError(`no kind ${JSON.stringify(kind)} is registered for version ${JSON.stringify(apiVersion)}`);
    const msg = wire(() => type(name).decode(unknown.raw ?? new Uint8Array(0)));
    const object = messageToJSON(name, msg, rawCodec, depth);
    return { apiVersion, kind, object: { kind, apiVersion, ...object } };
  } catch (e) {
    if (e instanceof ProtoDecodeError && !e.gvk) throw new ProtoDecodeError(e.message, gvk);
    throw e;
  }
}

/** Bytes inside a RawExtension or FieldsV1: a nested protobuf object, else JSON text. */
const rawCodec: RawCodec = {
  decodeRaw(raw: Uint8Array, depth: number): unknown {
    if (depth > maxMessageDepth) throw new ProtoDecodeError('exceeded max depth');
    if (raw.length >= 4 && protobufMagic.equals(Buffer.from(raw.subarray(0, 4)))) return decodeObject(raw, undefined, depth + 1).object;
    const text = Buffer.from(raw).toString('utf8');
    const deep = jsonTextTooDeep(text);
    if (deep >= 0) throw new ProtoDecodeError(jsonDepthError(text[deep]));
    try {
      return JSON.parse(text);
    } catch (e) {
      throw new ProtoDecodeError(`invalid JSON in raw bytes: ${(e as Error).message}`);
    }
  },
};

/** Runs a protobufjs decode, turning its errors into Go protobuf's words. */
function wire<T>(decode: () => T): T {
  try {
    return decode();
  } catch (e) {
    if (e instanceof ProtoDecodeError) throw e;
    const msg = (e as Error).message ?? String(e);
    if (/index out of range/.test(msg)) throw new ProtoDecodeError('unexpected EOF');
    const wt = /invalid wire type (\d+)/.exec(msg);
    if (wt) throw new ProtoDecodeError(`proto: illegal wireType ${wt[1]}`);
    if (e instanceof RangeError) throw new ProtoDecodeError('proto: integer overflow or nesting too deep');
    throw new ProtoDecodeError(`proto: ${msg}`);
  }
}

/** One watch stream frame: 4-byte big-endian length, then the WatchEvent whose object holds the enveloped object. */
export function encodeWatchFrame(eventType: string, object: Buffer): Buffer {
  const event = type(watchEventType).encode({ type: eventType, object: { raw: object } }).finish();
  const frame = Buffer.allocUnsafe(4 + event.length);
  frame.writeUInt32BE(event.length, 0);
  frame.set(event, 4);
  return frame;
}

/** The events of a protobuf watch stream's bytes (for clients and tests): whole frames only, and the bytes left over. */
export function decodeWatchFrames(buf: Buffer): { events: { type: string; object: unknown }[]; rest: Buffer } {
  const events: { type: string; object: unknown }[] = [];
  let at = 0;
  while (buf.length - at >= 4) {
    const len = buf.readUInt32BE(at);
    if (buf.length - at - 4 < len) break;
    const ev: any = wire(() => type(watchEventType).decode(buf.subarray(at + 4, at + 4 + len)));
    events.push({ type: ev.type, object: ev.object?.raw ? rawCodec.decodeRaw(ev.object.raw, 0) : null });
    at += 4 + len;
  }
  return { events, rest: buf.subarray(at) };
}
