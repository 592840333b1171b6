/**
 * What every answer of the fuzzed server must satisfy: an answer at all
 * (no hang, no dropped connection), a live process, no 5xx unless storage
 * failed, and a meta/v1 Status for every refusal; and for every object the
 * server stored, that it can be read, replaced with itself and patched.
 */
import type { WireRequest, WireResult } from './wire.js';
import { decodeObject, protobufMediaType } from '../../../src/api/protobuf/envelope.js';

/** Refusals that upstream, too, writes as plain text: the health checks' `[-]check failed` bodies. */
const textPaths = /^\/(healthz|livez|readyz)(\/|$|\?)/;

/** A 5xx the suite forgives: the database itself failed (disk full, locked, corrupt), not the server's logic. */
const storageFault = /SQLITE_|database|storage/i;

/**
 * The one 5xx upstream answers on purpose for a client's mistake: a strategic
 * merge patch its merge code rejects with a plain Go error (no merge key, an
 * unknown `$patch`, a directive of the wrong type) becomes a 500 Status with
 * no reason (`interpretStrategicMergePatchError` in endpoints/handlers/patch.go
 * passes it through; see src/api/patch/errors.ts). k8ts answers the same.
 */
function upstreamStrategicMerge500(req: WireRequest, status: { reason?: string } | undefined, code: number): boolean {
  const type = (req.headers['Content-Type'] ?? '').split(';')[0].trim();
  return code === 500 && req.method === 'PATCH' && type === 'application/strategic-merge-patch+json' && status !== undefined && status.reason === undefined;
}

/**
 * Upstream's other deliberate 500: Impersonate-Group or -Extra without
 * Impersonate-User is answered by responsewriters.InternalError, in plain text
 * (`Internal Server Error: "<path>": requested [...] without impersonating a user`),
 * in filters/impersonation.go. k8ts answers the same.
 */
function upstreamImpersonation500(req: WireRequest, res: WireResult): boolean {
  const asks = Object.keys(req.headers).some((h) => /^impersonate-/i.test(h)) && !Object.keys(req.headers).some((h) => /^impersonate-user$/i.test(h));
  return asks && res.kind === 'response' && res.status === 500 && /^Internal Server Error: .* without impersonating a user\n?$/s.test(res.body);
}

export class Finding extends Error {}

export function describe(req: WireRequest, res?: WireResult): string {
  const body = req.body === undefined ? '' : `\n  body (${req.body.length} chars): ${excerpt(req.body)}`;
  const hdrs = Object.entries(req.headers).map(([k, v]) => `${k}: ${excerpt(v, 120)}`).join('; ');
  const who = req.anonymous ? 'anonymous' : 'admin';
  let out = `${req.method} ${excerpt(req.path, 400)} (${who}) [${hdrs}]${body}`;
  if (res?.kind === 'response') out += `\n  => ${res.status} ${excerpt(res.body)}`;
  else if (res) out += `\n  => ${res.kind}${res.kind === 'error' ? `: ${res.message}` : ''} after ${res.ms} ms`;
  return out;
}

export function excerpt(s: string, max = 600): string {
  return s.length <= max ? JSON.stringify(s) : `${JSON.stringify(s.slice(0, max))}... (${s.length} chars)`;
}

/** Throws a Finding when the answer breaks a rule; returns the parsed body when it was JSON. */
export function checkAnswer(req: WireRequest, res: WireResult, alive: boolean, deadlineMs: number): unknown {
  if (!alive) throw new Finding(`server process died\n  ${describe(req, res)}`);
  if (res.kind === 'hang') throw new Finding(`no answer within ${deadlineMs} ms (hang)\n  ${describe(req, res)}`);
  if (res.kind === 'error') throw new Finding(`connection failed without an answer\n  ${describe(req, res)}`);
  let parsed: unknown;
  // A client that prefers protobuf gets its objects and Status errors in protobuf (not its watch streams' frames).
  const protobuf = String(res.headers['content-type'] ?? '') === protobufMediaType;
  try { parsed = protobuf ? decodeObject(res.raw).object : JSON.parse(res.body); } catch { parsed = undefined; }
  const status = parsed as { kind?: string; apiVersion?: string; code?: number; message?: string; reason?: string } | undefined;
  if (upstreamImpersonation500(req, res)) return undefined;
  const forgiven = storageFault.test(status?.message ?? res.body) || upstreamStrategicMerge500(req, status, res.status);
  if (res.status >= 500 && !(res.status < 600 && forgiven)) {
    throw new Finding(`answered ${res.status}\n  ${describe(req, res)}`);
  }
  if (res.status >= 200 && res.status < 300) return parsed;
  if (req.method === 'HEAD' || textPaths.test(req.path)) return parsed;
  if (status?.kind !== 'Status' || status.apiVersion !== 'v1' || status.code !== res.status) {
    throw new Finding(`refusal ${res.status} is not a v1 Status with code ${res.status}\n  ${describe(req, res)}`);
  }
  return parsed;
}

/** Tallies of one property: cases tried and answers by status class. */
export class Tally {
  cases = 0;
  readonly classes: Record<string, number> = {};
  count(res: WireResult): void {
    const k = res.kind === 'response' ? `${Math.floor(res.status / 100)}xx` : res.kind;
    this.classes[k] = (this.classes[k] ?? 0) + 1;
  }
  get requests(): number { return Object.values(this.classes).reduce((a, b) => a + b, 0); }
  line(name: string): string {
    const classes = Object.keys(this.classes).sort().map((k) => `${k}=${this.classes[k]}`).join(' ');
    return `fuzz ${name}: ${this.cases} cases, ${this.requests} requests (${classes})`;
  }
}
