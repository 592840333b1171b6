/**
 * A create or update body read as an object of the endpoint's kind: decoded
 * (JSON, YAML or protobuf), its apiVersion/kind checked against the
 * endpoint's, and, for built-in kinds, the decoding checks of
 * fieldValidation. One pure function, so the loop (small bodies) and the
 * heavy lane's worker (large ones) answer byte for byte alike: the same
 * value, the same Warning header, the same Status.
 */
import type { ResourceInfo } from '../../api/resources.js';
import { decodeObjectBodyWithSource, type BodyKind, type RawBody } from '../body.js';
import { checkBodyKind } from '../handlers/body-kind.js';
import { checkFields } from '../field-checks.js';
import type { ManagedFieldsEntry } from 'kubernetes-types/meta/v1.js';
import type { EncodedStatus } from './invalid-status.js';
import { createPreflight } from './create-preflight.js';

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
   * A create of a built-in kind read here: the worker also defaults and
   * validates it (see createPreflight), so an invalid one is answered from
   * here and the loop never validates it or builds its Status.
   */
  create?: boolean;
  /** The create's field manager and whether its kind has a status (for its managedFields entry, see create-preflight.ts). */
  manager?: { name: string; hasStatus: boolean };
  /** The create is a dry run: storage's size limit does not apply. */
  dryRun?: boolean;
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
  /**
   * A valid create's managedFields, computed here as the store would on the loop (create-preflight.ts);
   * the store stamps its own time on the entry.
   */
  managedFields?: ManagedFieldsEntry[];
  /** The Warning header values the checks asked for. */
  warnings?: string | number | readonly string[];
  /**
   * A custom resource's body as its field checks read it (on the loop, with
   * its store's schema): a YAML body's parsed document is not parsed again.
   * Never posted by a worker (worker.ts drops it: a document does not clone).
   */
  raw?: RawBody;
}

export function readObjectBody(job: ObjectBodyJob): ObjectBodyResult {
  const buf = Buffer.isBuffer(job.body) ? job.body : Buffer.from(job.body.buffer, job.body.byteOffset, job.body.byteLength);
  const { obj, raw } = decodeObjectBodyWithSource(buf, job.type, job.into);
  checkBodyKind(job.endpoint, job.endpointApiVersion, obj);
  if (!job.builtIn) return { obj, raw };
  const result: ObjectBodyResult = { obj };
  checkFields(job.endpoint, obj, job.fieldValidation, { setHeader: (_name, value) => { result.warnings = value; return undefined as never; } }, raw);
  const preflight = job.create ? createPreflight(job, obj) : undefined;
  if (preflight?.refusal) return { obj: undefined, warnings: result.warnings, refusal: preflight.refusal };
  if (preflight?.managedFields) result.managedFields = preflight.managedFields;
  return result;
}
