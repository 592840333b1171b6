/**
 * A webhook's clientConfig, as upstream's staging/src/k8s.io/apiserver/pkg/util/webhook
 * validation.go (ValidateWebhookURL with forceHttps, ValidateWebhookService): exactly one
 * of url or service; a URL is https with a host and no user, fragment or query; a
 * service names its namespace and name, a valid port, and a path that starts with '/'.
 */
import { FieldError, invalid, required } from '../field-errors.js';
import { isValidPortNum } from '../names.js';
import { Obj, has, isObj, str } from './util.js';

const form = '; desired format: https://host[/path]';

export function validateWebhookClientConfig(cc: unknown, path: string): FieldError[] {
  const config = isObj(cc) ? cc : {};
  if (has(config.url) === has(config.service)) return [required(path, 'exactly one of url or service is required')];
  if (has(config.url)) return validateWebhookURL(str(config.url), `${path}.url`);
  return validateWebhookService(isObj(config.service) ? config.service : {}, `${path}.service`);
}

export function validateWebhookURL(text: string, path: string): FieldError[] {
  let u: URL;
  try {
    u = new URL(text);
  } catch {
    return [required(path, `url must be a valid URL: parse "${text}": invalid URI for request${form}`)];
  }
  const errs: FieldError[] = [];
  const scheme = u.protocol.replace(/:$/, '');
  if (scheme !== 'https') errs.push(invalid(path, scheme, `'https' is the only allowed URL scheme${form}`));
  if (!u.host) errs.push(invalid(path, u.host, `host must be specified${form}`));
  if (u.username || u.password) errs.push(invalid(path, u.password ? `${u.username}:${u.password}` : u.username, 'user information is not permitted in the URL'));
  if (u.hash) errs.push(invalid(path, u.hash.slice(1), 'fragments are not permitted in the URL'));
  if (u.search) errs.push(invalid(path, u.search.slice(1), 'query parameters are not permitted in the URL'));
  return errs;
}

function validateWebhookService(svc: Obj, path: string): FieldError[] {
  const errs: FieldError[] = [];
  if (!str(svc.name)) errs.push(required(`${path}.name`, 'service name is required'));
  if (!str(svc.namespace)) errs.push(required(`${path}.namespace`, 'service namespace is required'));
  const port = typeof svc.port === 'number' ? svc.port : 443;
  const portErrs = isValidPortNum(port);
  if (portErrs.length) errs.push(invalid(`${path}.port`, port, `port is not valid: ${portErrs.join(', ')}`));
  const p = str(svc.path);
  if (!has(svc.path) || p === '/' || p === '') return errs;
  if (p === '//') return [...errs, invalid(`${path}.path`, p, 'segment[0] may not be empty')];
  if (!p.startsWith('/')) errs.push(invalid(`${path}.path`, p, "must start with a '/'"));
  return errs;
}
