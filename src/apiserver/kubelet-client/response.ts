/**
 * A kubelet's error answer as the API server passes it on (the apiserver's
 * GenericHttpResponseChecker): 2xx streams on; otherwise the body (up to 4
 * KiB) becomes the message: 500 an InternalError, 400 a BadRequest with the
 * kubelet's words, anything else upstream's NewGenericServerResponse, e.g.
 * `the server could not find the requested resource ( pods/log x)`.
 */
import type { IncomingMessage } from 'node:http';
import { StatusError, type Status } from '../../api/status.js';

const maxReadLength = 4 * 1024;

async function readSome(res: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  let n = 0;
  for await (const c of res) {
    chunks.push(c as Buffer);
    n += (c as Buffer).length;
    if (n >= maxReadLength) break;
  }
  res.destroy();
  return Buffer.concat(chunks).subarray(0, maxReadLength).toString('utf8');
}

const generic: Record<number, [string, string]> = {
  401: ['Unauthorized', 'the server has asked for the client to provide credentials'],
  404: ['NotFound', 'the server could not find the requested resource'],
  405: ['MethodNotAllowed', 'the server does not allow this method on the requested resource'],
  409: ['Conflict', 'the server reported a conflict'],
  422: ['Invalid', 'the server rejected our request due to an error in our request'],
  503: ['ServiceUnavailable', 'the server is currently unable to handle the request'],
  504: ['Timeout', 'the server was unable to return a response in the time allotted, but may still be processing the request'],
};

/** Undefined for a 2xx answer; otherwise the Status to answer with (the body has been read). */
export async function checkKubeletResponse(res: IncomingMessage, resource: string, name: string): Promise<StatusError | undefined> {
  const code = res.statusCode ?? 500;
  if (code >= 200 && code <= 206) return undefined;
  return kubeletErrorStatus(code, await readSome(res), resource, name);
}

/** A kubelet's non-2xx answer (status code and body) as the Status the API server answers with. */
export function kubeletErrorStatus(code: number, fullBody: string, resource: string, name: string): StatusError {
  const body = fullBody.slice(0, maxReadLength);
  const status: Status = { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', code };
  if (code === 500) return new StatusError({ ...status, reason: 'InternalError', message: `Internal error occurred: ${body}`, details: { causes: [{ message: body }] } });
  if (code === 400) return new StatusError({ ...status, reason: 'BadRequest', message: body });
  let [reason, message] = generic[code] ?? ['', `the server responded with the status code ${code} but did not return more information`];
  if (code === 403) { reason = 'Forbidden'; message = body; }
  if (code > 500 && !generic[code]) { reason = 'InternalError'; message = `an error on the server (${JSON.stringify(body)}) has prevented the request from succeeding`; }
  return new StatusError({ ...status, ...(reason ? { reason } : {}), message: `${message} ( ${resource} ${name})`, details: { name, kind: resource } });
}
