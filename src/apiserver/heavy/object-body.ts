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
}

export interface ObjectBodyResult {
  obj: any;
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
  return result;
}
