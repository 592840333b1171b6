/**
 * Probes and lifecycle handlers: exactly one handler; exec needs a command;
 * httpGet a path, port and scheme; non-negative timings; liveness and startup
 * probes succeed after exactly one success.
 */
import { FieldError, forbidden, invalid, notSupported, required } from '../field-errors.js';
import { isHTTPHeaderName, isValidPortName, isValidPortNum } from '../names.js';
import { arr, child, has, isObj, nonNegative, obj, str } from './util.js';
import { appendAll } from '../append.js';

/** ValidatePortNumOrName for an int-or-string port. */
export function validatePortNumOrName(port: unknown, path: string): FieldError[] {
  if (typeof port === 'number') return isValidPortNum(port).map((msg) => invalid(path, port, msg));
  if (typeof port === 'string') return isValidPortName(port).map((msg) => invalid(path, port, msg));
  return isValidPortNum(0).map((msg) => invalid(path, 0, msg));
}

function validateHTTPGet(h: Record<string, any>, path: string): FieldError[] {
  const errs: FieldError[] = [];
  if (!str(h.path)) errs.push(required(child(path, 'path')));
  appendAll(errs, validatePortNumOrName(h.port, child(path, 'port')));
  if (!['HTTP', 'HTTPS'].includes(str(h.scheme))) errs.push(notSupported(child(path, 'scheme'), str(h.scheme), ['HTTP', 'HTTPS']));
  for (const header of arr(h.httpHeaders)) {
    appendAll(errs, isHTTPHeaderName(str(obj(header).name)).map((msg) => invalid(child(path, 'httpHeaders'), str(obj(header).name), msg)));
  }
  return errs;
}

type Kind = 'exec' | 'httpGet' | 'tcpSocket' | 'grpc' | 'sleep';

/** validateHandler over the handler kinds a probe or lifecycle hook allows. */
function validateHandler(h: Record<string, any>, kinds: Kind[], gracePeriod: number | undefined, path: string): FieldError[] {
  const errs: FieldError[] = [];
  let count = 0;
  for (const kind of kinds) {
    if (!isObj(h[kind])) continue;
    const p = child(path, kind);
    if (count++ > 0) {
      errs.push(forbidden(p, 'may not specify more than 1 handler type'));
      continue;
    }
    const v = h[kind];
    if (kind === 'exec' && arr(v.command).length === 0) errs.push(required(child(p, 'command')));
    if (kind === 'httpGet') appendAll(errs, validateHTTPGet(v, p));
    if (kind === 'tcpSocket') appendAll(errs, validatePortNumOrName(v.port, child(p, 'port')));
    if (kind === 'grpc') appendAll(errs, validatePortNumOrName(typeof v.port === 'number' ? v.port : 0, child(p, 'port')));
    if (kind === 'sleep' && gracePeriod !== undefined) {
      const seconds = typeof v.seconds === 'number' ? v.seconds : 0;
      if (seconds <= 0 || seconds > gracePeriod) {
        errs.push(invalid(p, seconds, `must be greater than 0 and less than terminationGracePeriodSeconds (${gracePeriod}). Enable AllowPodLifecycleSleepActionZeroValue feature gate for zero sleep.`));
      }
    }
  }
  if (count === 0) errs.push(required(path, 'must specify a handler type'));
  return errs;
}

/** validateProbe plus the per-kind rules. */
export function validateProbe(probe: unknown, kind: 'liveness' | 'readiness' | 'startup', gracePeriod: number | undefined, path: string): FieldError[] {
  if (!isObj(probe)) return [];
  const errs = validateHandler(probe, ['exec', 'httpGet', 'tcpSocket', 'grpc'], gracePeriod, path);
  for (const f of ['initialDelaySeconds', 'timeoutSeconds', 'periodSeconds', 'successThreshold', 'failureThreshold']) {
    appendAll(errs, nonNegative(probe[f], child(path, f)));
  }
  if (has(probe.terminationGracePeriodSeconds) && probe.terminationGracePeriodSeconds <= 0) {
    errs.push(invalid(child(path, 'terminationGracePeriodSeconds'), probe.terminationGracePeriodSeconds, 'must be greater than 0'));
  }
  if (kind !== 'readiness' && (probe.successThreshold ?? 0) !== 1) errs.push(invalid(child(path, 'successThreshold'), probe.successThreshold ?? 0, 'must be 1'));
  if (kind === 'readiness' && has(probe.terminationGracePeriodSeconds)) {
    errs.push(invalid(child(path, 'terminationGracePeriodSeconds'), probe.terminationGracePeriodSeconds, 'must not be set for readinessProbes'));
  }
  return errs;
}

/** validateLifecycle: postStart and preStop handlers. */
export function validateLifecycle(lifecycle: unknown, gracePeriod: number | undefined, path: string): FieldError[] {
  const l = obj(lifecycle);
  const errs: FieldError[] = [];
  for (const hook of ['postStart', 'preStop']) {
    if (isObj(l[hook])) appendAll(errs, validateHandler(l[hook], ['exec', 'httpGet', 'tcpSocket', 'sleep'], gracePeriod, child(path, hook)));
  }
  return errs;
}
