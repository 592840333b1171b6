/**
 * A create or update body read as an object of the endpoint's kind: decoded
 * (JSON, YAML or protobuf), its apiVersion/kind checked against the
 * endpoint's, and, for built-in kinds, the decoding checks of
 * fieldValidation. One pure function, so the loop (small bodies) and the
 * heavy lane's worker (large ones) answer byte for byte alike: the same
 * value, the same Warning header, the same Status.
 */
import type { ResourceInfo } from '../../api/resources.js';
import { decodeObjectBody, type BodyKind } from '../body.js';
import { checkBodyKind } from '../handlers/body-kind.js';
import { checkFields, type RawBody } from '../field-checks.js';
import { protobufMediaType } from '../../api/protobuf/envelope.js';
import { kindKey } from '../../api/resources.js';
import { applyDefaults } from '../../api/defaults/index.js';
import { validateCreate } from '../../api/validation/index.js';
import { maxStoredRequestBytes } from '../../api/status.js';
import { encodeInvalidStatus, type EncodedStatus } from './invalid-status.js';

export interface ObjectBodyJob {
  body: Uint8Array;
  /** The request's media type, without parameters. */
  type: string;
  into: BodyKind;
  endpoint: Pick<ResourceInfo, 'group' | 'version' | 'kind'>;
  endpointApiVersion: string;
  /** The fieldValidation query parameter; undefined for custom resources, whose checks need their store's schema. */
  fieldValidation?: string;
  builtIn: boolean;
  /**
   * A create that will be stored (not a dry run): when the decoded object
   * alone is already over the stored-object limit, the worker also settles
   * what upstream would answer it (see storagePreflight), so the loop never
   * defaults, tracks or validates an object that storage will refuse.
   */
  create?: boolean;
  /** The client prefers a protobuf answer (its Accept), for a Status encoded here. */
  protobufAnswer?: boolean;
}

export interface ObjectBodyResult {
  /** The decoded object; absent when `refusal` already says how the request ends. */
  obj: any;
  /**
   * How the request ends: its 422 already encoded (so the loop never builds
   * or serialises a Status of millions of causes), or etcd's size refusal.
   */
  refusal?: { name: string } & ({ invalid: EncodedStatus } | { tooLarge: true });
  /** The Warning header values the checks asked for. */
  warnings?: string | number | readonly string[];
}

export function readObjectBody(job: ObjectBodyJob): ObjectBodyResult {
  const buf = Buffer.isBuffer(job.body) ? job.body : Buffer.from(job.body.buffer, job.body.byteOffset, job.body.byteLength);
  const obj = decodeObjectBody(buf, job.type, job.into);
  checkBodyKind(job.endpoint, job.endpointApiVersion, obj);
  const result: ObjectBodyResult = { obj };
  if (!job.builtIn) return result;
  const raw: RawBody | undefined = job.type === protobufMediaType ? undefined : { text: buf.toString('utf8'), yaml: job.type === 'application/yaml' };
  checkFields(job.endpoint, obj, job.fieldValidation, { setHeader: (_name, value) => { result.warnings = value; return undefined as never; } }, raw);
  const refusal = job.create ? storagePreflight(job, obj, buf.length) : undefined;
  return refusal ? { obj: undefined, warnings: result.warnings, refusal } : result;
}

/**
 * Upstream validates a create, then etcd refuses what is over its request
 * limit (500 "etcdserver: request is too large"). Defaulting and metadata
 * only make an object larger, so a decoded object already over the limit
 * ends in one of those two answers: its validation errors (422), or the
 * refusal. Worked out here, off the loop; objects under the limit, and
 * objects whose name the store must still generate, take the usual path.
 */
function storagePreflight(job: ObjectBodyJob, obj: any, bodyBytes: number): ObjectBodyResult['refusal'] {
  if (bodyBytes < maxStoredRequestBytes / 2 || !obj?.metadata?.name) return undefined;
  if (Buffer.byteLength(JSON.stringify(obj)) <= maxStoredRequestBytes) return undefined;
  const key = kindKey(job.endpoint);
  const copy = { ...obj, apiVersion: job.endpointApiVersion, kind: job.endpoint.kind };
  applyDefaults(key, copy);
  const errors = validateCreate(key, copy);
  const name = String(obj.metadata.name);
  if (!errors.length) return { name, tooLarge: true };
  return { name, invalid: encodeInvalidStatus(job.endpoint.kind, job.endpoint.group, name, errors, job.protobufAnswer === true) };
}
