/**
 * meta/v1 Status, the shape every API error takes on the wire, and the
 * constructors for the reasons kubectl knows how to print.
 */
import { FieldError, fieldErrorMessage, reportedFieldErrors } from './field-errors.js';

export interface StatusCause { reason?: string; message?: string; field?: string }
export interface Status {
  kind: 'Status';
  apiVersion: 'v1';
  metadata: Record<string, unknown>;
  status: 'Success' | 'Failure';
  message?: string;
  reason?: string;
  details?: { name?: string; group?: string; kind?: string; uid?: string; causes?: StatusCause[]; retryAfterSeconds?: number };
  code: number;
}

/** Carries a Status through the apiserver's call stack to the response writer. */
export class StatusError extends Error {
  constructor(public readonly status: Status) {
    super(status.message);
  }
  get code(): number { return this.status.code; }
  get reason(): string | undefined { return this.status.reason; }
}

/** A group-qualified resource, e.g. {group: 'apps', resource: 'daemonsets'}. */
export interface GroupResource { group: string; resource: string }
const qualified = (gr: GroupResource) => (gr.group ? `${gr.resource}.${gr.group}` : gr.resource);

function failure(code: number, reason: string, message: string, details?: Status['details']): StatusError {
  const s: Status = { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, reason, code };
  if (details) s.details = details;
  return new StatusError(s);
}

export const notFound = (gr: GroupResource, name: string) =>
  failure(404, 'NotFound', `${qualified(gr)} "${name}" not found`, { name, group: gr.group, kind: gr.resource });
export const alreadyExists = (gr: GroupResource, name: string) =>
  failure(409, 'AlreadyExists', `${qualified(gr)} "${name}" already exists`, { name, group: gr.group, kind: gr.resource });
export const conflict = (gr: GroupResource, name: string, why = 'the object has been modified; please apply your changes to the latest version and try again') =>
  failure(409, 'Conflict', `Operation cannot be fulfilled on ${qualified(gr)} "${name}": ${why}`, { name, group: gr.group, kind: gr.resource });
export const badRequest = (message: string) => failure(400, 'BadRequest', message);
export const gone = (message: string) => failure(410, 'Expired', message);
/** 403; with a resource, worded like upstream's NewForbidden: `configmaps "x" is forbidden: <why>`. */
export const forbiddenStatus = (message: string, gr?: GroupResource, name?: string) => gr
  ? failure(403, 'Forbidden', `${qualified(gr)}${name ? ` "${name}"` : ''} is forbidden: ${message}`, { name, group: gr.group, kind: gr.resource })
  : failure(403, 'Forbidden', message);
export const unauthorized = () => failure(401, 'Unauthorized', 'Unauthorized');
export const methodNotAllowed = (message = 'the server does not allow this method on the requested resource') =>
  failure(405, 'MethodNotAllowed', message);
/**
 * etcd's --max-request-bytes (1.5 MiB by default) refuses a write whose
 * request is larger, and kube-apiserver passes etcd's error through
 * ErrorToAPIStatus unchanged: a 500 with no reason and etcd's words
 * (kubernetes/kubernetes#74600, #112152 keep it so). kubectl prints
 * `Error from server: etcdserver: request is too large`.
 */
export const maxStoredRequestBytes = 1.5 * 1024 * 1024;
export const storageRequestTooLarge = () => failure(500, '', 'etcdserver: request is too large');
/** 429 as upstream's max-in-flight filter answers it (the caller adds Retry-After: 1). */
export const tooManyRequests = () => failure(429, 'TooManyRequests', 'Too many requests, please try again later.', { retryAfterSeconds: 1 });
/** 504 as upstream's timeout filter answers a request past its deadline (NewTimeoutError). */
export const requestTimeout = () => failure(504, 'Timeout', 'Timeout: request did not complete within requested timeout - context deadline exceeded', { retryAfterSeconds: 0 });
/** 504 as upstream's timeout filter (WithTimeoutForNonLongRunningRequests) answers a request still running at --request-timeout. */
export const allottedTimeout = () => failure(504, 'Timeout', 'Timeout: request did not complete within the allotted timeout', { retryAfterSeconds: 0 });
export const tooLarge = (message = 'Request entity too large: limit is 3145728') => failure(413, 'RequestEntityTooLarge', message);
/** 415, worded as upstream's negotiation.NewUnsupportedMediaTypeError with the types this endpoint accepts. */
export const unsupportedMediaType = (accepted: readonly string[]) =>
  failure(415, 'UnsupportedMediaType', `the body of the request was in an unknown format - accepted media types include: ${accepted.join(', ')}`);
export const notAcceptable = (message: string) => failure(406, 'NotAcceptable', message);
/** 500 as upstream's ErrorToAPIStatus answers an error that is no Status (a storage failure): no reason, the error's text. */
export const unknownFailure = (message: string) => failure(500, '', message);
export const internalError = (message: string) => failure(500, 'InternalError', `Internal error occurred: ${message}`);
export const serviceUnavailable = (message: string) => failure(503, 'ServiceUnavailable', message);
/**
 * 404 for a path no route serves, as upstream's go-restful service error
 * handler answers it (NewGenericServerResponse): `details` is present and
 * empty. kubectl reads it: `kubectl debug` dereferences details.name to
 * tell "ephemeral containers are disabled" from a missing pod, and panics
 * when details is absent.
 */
export const pageNotFound = () => failure(404, 'NotFound', 'the server could not find the requested resource', {});

/** 422 Invalid, worded like upstream: `DaemonSet.apps "x" is invalid: [a, b]`. */
export function invalidObject(kind: string, group: string, name: string, all: FieldError[]): StatusError {
  // Upstream's aggregate drops repeated messages from the text but keeps every cause
  // (k8ts: of the first maxReportedFieldErrors, see reportedFieldErrors).
  const errors = reportedFieldErrors(all);
  const msgs = [...new Set(errors.map(fieldErrorMessage))];
  const joined = msgs.length === 1 ? msgs[0] : `[${msgs.join(', ')}]`;
  const qualifiedKind = group ? `${kind}.${group}` : kind;
  return failure(422, 'Invalid', `${qualifiedKind} "${name}" is invalid: ${joined}`, {
    name, group, kind,
    causes: errors.map((e) => ({ reason: e.type, message: fieldErrorMessage(e).slice(e.field.length + 2), field: e.field })),
  });
}

export function successStatus(details?: Status['details']): Status {
  const s: Status = { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', code: 200 };
  if (details) s.details = details;
  return s;
}

/**
 * A Status as upstream's JSON encoder writes it: fields in the Go struct's
 * order (kind, apiVersion, metadata, status, message, reason, details, code),
 * and every omitempty field that is empty left out, so `details` never
 * carries `"group": ""` for the core group. Clients that compare or parse the
 * body (the Python client's create-from-YAML conflict handling) see upstream's text.
 */
export function statusWireForm(s: Status): Status {
  // status and code are left out when empty, as omitempty does.
  const out: Partial<Status> = { kind: 'Status', apiVersion: 'v1', metadata: s.metadata ?? {} };
  if (s.status) out.status = s.status;
  if (s.message) out.message = s.message;
  if (s.reason) out.reason = s.reason;
  const details = s.details && detailsWireForm(s.details);
  if (details) out.details = details;
  if (s.code) out.code = s.code;
  return out as Status;
}

function detailsWireForm(d: NonNullable<Status['details']>): Status['details'] {
  const out: NonNullable<Status['details']> = {};
  if (d.name) out.name = d.name;
  if (d.group) out.group = d.group;
  if (d.kind) out.kind = d.kind;
  if (d.uid) out.uid = d.uid;
  if (d.causes?.length) out.causes = d.causes.map(causeWireForm);
  if (d.retryAfterSeconds) out.retryAfterSeconds = d.retryAfterSeconds;
  // An empty StatusDetails is still a non-nil pointer upstream: `"details": {}`.
  return out;
}

function causeWireForm(c: StatusCause): StatusCause {
  const out: StatusCause = {};
  if (c.reason) out.reason = c.reason;
  if (c.message) out.message = c.message;
  if (c.field) out.field = c.field;
  return out;
}
