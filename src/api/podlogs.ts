/**
 * PodLogOptions as the pods/log subresource and the kubelet's /containerLogs
 * read them from a query string, and upstream's rules for them:
 *
 *  1. Booleans (follow, previous, timestamps, insecureSkipTLSVerifyBackend)
 *     follow the parameter codec: absent is false; "0", "f" and "false" (any
 *     case) are false; anything else, even an empty value, is true.
 *  2. Integers (tailLines, sinceSeconds, limitBytes) are absent when missing
 *     or empty, otherwise strconv.ParseInt or the request is a 400.
 *  3. sinceTime is RFC 3339 (time.Parse(time.RFC3339)); "" and "null" mean unset.
 *  4. ValidatePodLogOptions: tailLines >= 0, limitBytes > 0, sinceSeconds > 0,
 *     and at most one of sinceTime and sinceSeconds (a 422 on PodLogOptions).
 */
import { forbidden, invalid, type FieldError } from './field-errors.js';
import { parseInt64 } from './list-options.js';
import { badRequest } from './status.js';

export interface PodLogQuery {
  container?: string;
  follow: boolean;
  previous: boolean;
  timestamps: boolean;
  tailLines?: bigint;
  sinceSeconds?: bigint;
  /** Already parsed; `sinceTimeText` keeps what the client sent. */
  sinceTime?: Date;
  sinceTimeText?: string;
  limitBytes?: bigint;
  insecureSkipTLSVerifyBackend: boolean;
}

function bool(q: URLSearchParams, name: string): boolean {
  const v = q.get(name);
  if (v === null) return false;
  return !(v === '0' || /^(f|false)$/i.test(v));
}

function int(q: URLSearchParams, name: string): bigint | undefined {
  const v = q.get(name);
  return v === null || v === '' ? undefined : parseInt64(v);
}

const rfc3339 = /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/;

/** time.Parse(time.RFC3339, s), or undefined when s is not one. */
export function parseRFC3339(s: string): Date | undefined {
  const m = rfc3339.exec(s);
  if (!m) return undefined;
  const d = new Date(s.toUpperCase());
  return Number.isNaN(d.getTime()) ? undefined : d;
}

/** Decodes the query; a value that does not decode throws upstream's 400. */
export function parsePodLogQuery(q: URLSearchParams): PodLogQuery {
  const out: PodLogQuery = {
    container: q.get('container') || undefined,
    follow: bool(q, 'follow'), previous: bool(q, 'previous'), timestamps: bool(q, 'timestamps'),
    insecureSkipTLSVerifyBackend: bool(q, 'insecureSkipTLSVerifyBackend'),
    tailLines: int(q, 'tailLines'), sinceSeconds: int(q, 'sinceSeconds'), limitBytes: int(q, 'limitBytes'),
  };
  const since = q.get('sinceTime');
  if (since !== null && since !== '' && since !== 'null') {
    const t = parseRFC3339(since);
    if (!t) throw badRequest(`parsing time ${JSON.stringify(since)} as "2006-01-02T15:04:05Z07:00": cannot parse ${JSON.stringify(since)} as "2006"`);
    out.sinceTime = t;
    out.sinceTimeText = since;
  }
  return out;
}

/** ValidatePodLogOptions (pkg/apis/core/validation), in its order. */
export function validatePodLogQuery(o: PodLogQuery): FieldError[] {
  const errs: FieldError[] = [];
  if (o.tailLines !== undefined && o.tailLines < 0n) errs.push(invalid('tailLines', Number(o.tailLines), 'must be greater than or equal to 0'));
  if (o.limitBytes !== undefined && o.limitBytes < 1n) errs.push(invalid('limitBytes', Number(o.limitBytes), 'must be greater than 0'));
  if (o.sinceSeconds !== undefined && o.sinceTime !== undefined) {
    errs.push(forbidden('', 'at most one of `sinceTime` or `sinceSeconds` may be specified'));
  } else if (o.sinceSeconds !== undefined && o.sinceSeconds < 1n) {
    errs.push(invalid('sinceSeconds', Number(o.sinceSeconds), 'must be greater than 0'));
  }
  return errs;
}

/**
 * The query the API server sends the kubelet (pod.LogLocation): only what is
 * set, sinceTime re-rendered as RFC 3339 in seconds.
 */
export function kubeletLogQuery(o: PodLogQuery): URLSearchParams {
  const p = new URLSearchParams();
  if (o.follow) p.set('follow', 'true');
  if (o.previous) p.set('previous', 'true');
  if (o.timestamps) p.set('timestamps', 'true');
  if (o.sinceSeconds !== undefined) p.set('sinceSeconds', String(o.sinceSeconds));
  if (o.sinceTime) p.set('sinceTime', o.sinceTime.toISOString().replace(/\.\d{3}Z$/, 'Z'));
  if (o.tailLines !== undefined) p.set('tailLines', String(o.tailLines));
  if (o.limitBytes !== undefined) p.set('limitBytes', String(o.limitBytes));
  return p;
}

interface NamedContainers { initContainers?: { name: string }[]; containers?: { name: string }[]; ephemeralContainers?: { name: string }[] }

/** Every container name of the pod in upstream's VisitContainers order: init, regular, ephemeral. */
export function allContainerNames(spec: NamedContainers | undefined): string[] {
  return [...(spec?.initContainers ?? []), ...(spec?.containers ?? []), ...(spec?.ephemeralContainers ?? [])].map((c) => c.name);
}

/**
 * validateContainer (pkg/registry/core/pod/strategy.go): the container a
 * stream request is for. With none named, a pod with one container means
 * that one; otherwise the request is a 400 listing the choices (as Go prints
 * a []string). A named container must exist in the pod.
 */
export function streamContainer(pod: { metadata?: { name?: string }; spec?: NamedContainers }, container: string | undefined): string {
  const name = pod.metadata?.name ?? '';
  const containers = pod.spec?.containers ?? [];
  if (!container) {
    if (containers.length === 1) return containers[0]!.name;
    if (containers.length === 0) throw badRequest(`a container name must be specified for pod ${name}`);
    throw badRequest(`a container name must be specified for pod ${name}, choose one of: [${allContainerNames(pod.spec).join(' ')}]`);
  }
  if (!allContainerNames(pod.spec).includes(container)) throw badRequest(`container ${container} is not valid for pod ${name}`);
  return container;
}
