import { appendAll } from './append.js';
/**
 * Name and value formats of apimachinery's `pkg/util/validation` (v1.32), each
 * returning upstream's messages (empty when valid). Lengths count UTF-8 bytes, as Go does.
 */

export const DNS1123LabelMaxLength = 63;
export const DNS1123SubdomainMaxLength = 253;
export const DNS1035LabelMaxLength = 63;
export const LabelValueMaxLength = 63;
const qualifiedNameMaxLength = 63;

/**
 * Whether `s` is longer than `max` UTF-8 bytes. A UTF-16 code unit is at most 3 bytes, so a
 * string of up to max/3 units is within the limit without counting (nearly every name and label:
 * Buffer.byteLength is a call into C++ for each).
 */
const longerThan = (s: string, max: number) => s.length > max || (s.length * 3 > max && Buffer.byteLength(s, 'utf8') > max);

export const maxLenError = (length: number) => `must be no more than ${length} characters`;
export const emptyError = () => 'must be non-empty';
export const inclusiveRangeError = (lo: number, hi: number) => `must be between ${lo} and ${hi}, inclusive`;

/** `msg (e.g. 'a' or 'b', regex used for validation is 'fmt')`, as upstream's RegexError. */
export function regexError(msg: string, fmt: string, ...examples: string[]): string {
  if (examples.length === 0) return `${msg} (regex used for validation is '${fmt}')`;
  return `${msg} (e.g. ${examples.map((e) => `'${e}', `).join(' or ')}regex used for validation is '${fmt}')`;
}

const anchored = (fmt: string) => new RegExp(`^(?:${fmt})$`);

const dns1123LabelFmt = '[a-z0-9]([-a-z0-9]*[a-z0-9])?';
const dns1123LabelErrMsg = "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character";
const dns1123SubdomainFmt = `${dns1123LabelFmt}(\\.${dns1123LabelFmt})*`;
const dns1123SubdomainErrMsg = "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character";
const dns1035LabelFmt = '[a-z]([-a-z0-9]*[a-z0-9])?';
const dns1035LabelErrMsg = "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character";
const dns1123LabelRe = anchored(dns1123LabelFmt);
const dns1123SubdomainRe = anchored(dns1123SubdomainFmt);
const dns1035LabelRe = anchored(dns1035LabelFmt);

/** IsDNS1123Label. */
export function isDNS1123Label(value: string): string[] {
  const errs: string[] = [];
  if (longerThan(value, DNS1123LabelMaxLength)) errs.push(maxLenError(DNS1123LabelMaxLength));
  if (!dns1123LabelRe.test(value)) {
    // A valid subdomain that is not a valid label (length already checked): it has dots.
    if (dns1123SubdomainRe.test(value)) errs.push('must not contain dots');
    else errs.push(regexError(dns1123LabelErrMsg, dns1123LabelFmt, 'my-name', '123-abc'));
  }
  return errs;
}

/** IsDNS1123Subdomain. */
export function isDNS1123Subdomain(value: string): string[] {
  const errs: string[] = [];
  if (longerThan(value, DNS1123SubdomainMaxLength)) errs.push(maxLenError(DNS1123SubdomainMaxLength));
  if (!dns1123SubdomainRe.test(value)) errs.push(regexError(dns1123SubdomainErrMsg, dns1123SubdomainFmt, 'example.com'));
  return errs;
}

/** IsDNS1035Label (Service names). */
export function isDNS1035Label(value: string): string[] {
  const errs: string[] = [];
  if (longerThan(value, DNS1035LabelMaxLength)) errs.push(maxLenError(DNS1035LabelMaxLength));
  if (!dns1035LabelRe.test(value)) errs.push(regexError(dns1035LabelErrMsg, dns1035LabelFmt, 'my-name', 'abc-123'));
  return errs;
}

const qnameCharFmt = '[A-Za-z0-9]';
const qnameExtCharFmt = '[-A-Za-z0-9_.]';
const qualifiedNameFmt = `(${qnameCharFmt}${qnameExtCharFmt}*)?${qnameCharFmt}`;
const qualifiedNameErrMsg = "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";
const qualifiedNameRe = anchored(qualifiedNameFmt);

/** IsQualifiedName: label keys, annotation keys (lowercased), finalizers, toleration keys. */
export function isQualifiedName(value: string): string[] {
  const errs: string[] = [];
  // Split at '/' only when there is one (most keys have no prefix): no array per key.
  const slash = value.indexOf('/');
  let name: string;
  if (slash < 0) {
    name = value;
  } else if (value.indexOf('/', slash + 1) < 0) {
    const prefix = value.slice(0, slash);
    name = value.slice(slash + 1);
    if (prefix.length === 0) errs.push(`prefix part ${emptyError()}`);
    else appendAll(errs, isDNS1123Subdomain(prefix).map((m) => `prefix part ${m}`));
  } else {
    return [`a qualified name ${regexError(qualifiedNameErrMsg, qualifiedNameFmt, 'MyName', 'my.name', '123-abc')} with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')`];
  }
  if (name.length === 0) errs.push(`name part ${emptyError()}`);
  else if (longerThan(name, qualifiedNameMaxLength)) errs.push(`name part ${maxLenError(qualifiedNameMaxLength)}`);
  if (!qualifiedNameRe.test(name)) errs.push(`name part ${regexError(qualifiedNameErrMsg, qualifiedNameFmt, 'MyName', 'my.name', '123-abc')}`);
  return errs;
}

const labelValueFmt = `(${qualifiedNameFmt})?`;
const labelValueErrMsg = "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";
const labelValueRe = anchored(labelValueFmt);

/** IsValidLabelValue. */
export function isValidLabelValue(value: string): string[] {
  const errs: string[] = [];
  if (longerThan(value, LabelValueMaxLength)) errs.push(maxLenError(LabelValueMaxLength));
  if (!labelValueRe.test(value)) errs.push(regexError(labelValueErrMsg, labelValueFmt, 'MyValue', 'my_value', '12345'));
  return errs;
}

function hasChDirPrefix(value: string): string[] {
  if (value === '.') return ["must not be '.'"];
  if (value === '..') return ["must not be '..'"];
  if (value.startsWith('..')) return ["must not start with '..'"];
  return [];
}

const configMapKeyFmt = '[-._a-zA-Z0-9]+';
const configMapKeyErrMsg = "a valid config key must consist of alphanumeric characters, '-', '_' or '.'";
const configMapKeyRe = anchored(configMapKeyFmt);

/** IsConfigMapKey: keys of ConfigMap/Secret data and key selectors. */
export function isConfigMapKey(value: string): string[] {
  const errs: string[] = [];
  if (longerThan(value, DNS1123SubdomainMaxLength)) errs.push(maxLenError(DNS1123SubdomainMaxLength));
  if (!configMapKeyRe.test(value)) errs.push(regexError(configMapKeyErrMsg, configMapKeyFmt, 'key.name', 'KEY_NAME', 'key-name'));
  appendAll(errs, hasChDirPrefix(value));
  return errs;
}

/** IsValidPortNum: 1..65535. */
export function isValidPortNum(port: number): string[] {
  return isPortNum(port) ? [] : [inclusiveRangeError(1, 65535)];
}

/** Whether isValidPortNum finds nothing: a caller checks this first and makes no list (or field path) for a good port. */
export const isPortNum = (port: unknown): boolean => Number.isInteger(port) && (port as number) >= 1 && (port as number) <= 65535;

/** IsValidPortName (IANA_SVC_NAME). */
export function isValidPortName(port: string): string[] {
  const errs: string[] = [];
  if (longerThan(port, 15)) errs.push(maxLenError(15));
  if (!/^[-a-z0-9]+$/.test(port)) errs.push('must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)');
  if (!/[a-z]/.test(port)) errs.push('must contain at least one letter (a-z)');
  if (port.includes('--')) errs.push('must not contain consecutive hyphens');
  if (port.length > 0 && (port.startsWith('-') || port.endsWith('-'))) errs.push('must not begin or end with a hyphen');
  return errs;
}

const percentFmt = '[0-9]+%';
const percentRe = anchored(percentFmt);
/** IsValidPercent: `[0-9]+%`. */
export function isValidPercent(percent: string): string[] {
  return percentRe.test(percent)
    ? [] : [regexError("a valid percent string must be a numeric string followed by an ending '%'", percentFmt, '1%', '93%')];
}

const httpHeaderNameFmt = '[-A-Za-z0-9]+';
const httpHeaderNameRe = anchored(httpHeaderNameFmt);
/** IsHTTPHeaderName. */
export function isHTTPHeaderName(value: string): string[] {
  return httpHeaderNameRe.test(value)
    ? [] : [regexError("a valid HTTP header must consist of alphanumeric characters or '-'", httpHeaderNameFmt, 'X-Header-Name')];
}

const envVarNameFmt = '[-._a-zA-Z][-._a-zA-Z0-9]*';
const envVarNameRe = anchored(envVarNameFmt);
/** IsEnvVarName (strict; used when RelaxedEnvironmentVariableValidation is off). */
export function isEnvVarName(value: string): string[] {
  const errs: string[] = [];
  if (!envVarNameRe.test(value)) {
    errs.push(regexError("a valid environment variable name must consist of alphabetic characters, digits, '_', '-', or '.', and must not start with a digit",
      envVarNameFmt, 'my.env-name', 'MY_ENV.NAME', 'MyEnvName1'));
  }
  appendAll(errs, hasChDirPrefix(value));
  return errs;
}

/** IsRelaxedEnvVarName: printable ASCII other than '=' (RelaxedEnvironmentVariableValidation, beta and on in 1.32). */
export function isRelaxedEnvVarName(value: string): string[] {
  const errs: string[] = [];
  if (value.length === 0) errs.push(`environment variable name ${emptyError()}`);
  for (const ch of value) {
    const c = ch.codePointAt(0) ?? 0;
    if (c > 0x7e || c < 0x20 || ch === '=') {
      errs.push("a valid environment variable name must consist only of printable ASCII characters other than '='");
      break;
    }
  }
  return errs;
}

const maxID = 0xffffffff;
/** IsValidUserID / IsValidGroupID: 0..4294967295. */
export const isValidUserID = (id: number): string[] => (Number.isInteger(id) && id >= 0 && id <= maxID ? [] : [inclusiveRangeError(0, maxID)]);
export const isValidGroupID = isValidUserID;

/** IsValidPathSegmentName: what any object name must satisfy to sit in a URL path. */
export function isValidPathSegmentName(name: string): string[] {
  for (const illegal of ['.', '..']) if (name === illegal) return [`may not be '${illegal}'`];
  const errs: string[] = [];
  for (const illegal of ['/', '%']) if (name.includes(illegal)) errs.push(`may not contain '${illegal}'`);
  return errs;
}

/** A ValidateNameFunc: `prefix` is true for generateName, where a trailing dash is allowed. */
export type NameValidator = (name: string, prefix: boolean) => string[];

/** Upstream's maskTrailingDash: generateName may end in '-'. */
function maskTrailingDash(name: string): string {
  return name.length > 1 && name.endsWith('-') ? `${name.slice(0, -2)}a` : name;
}

export const nameIsDNSSubdomain: NameValidator = (name, prefix) => isDNS1123Subdomain(prefix ? maskTrailingDash(name) : name);
export const nameIsDNSLabel: NameValidator = (name, prefix) => isDNS1123Label(prefix ? maskTrailingDash(name) : name);
export const nameIsDNS1035Label: NameValidator = (name, prefix) => isDNS1035Label(prefix ? maskTrailingDash(name) : name);
/** Namespace names are DNS-1123 labels. */
export const validateNamespaceName: NameValidator = nameIsDNSLabel;
/** CertificateSigningRequest: "We don't care what you call your certificate requests." */
export const anyName: NameValidator = () => [];
