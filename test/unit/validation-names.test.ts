import { strict as assert } from 'node:assert';
import { test } from 'node:test';
import {
  isConfigMapKey, isDNS1035Label, isDNS1123Label, isDNS1123Subdomain, isEnvVarName, isHTTPHeaderName, isQualifiedName,
  isRelaxedEnvVarName, isValidLabelValue, isValidPathSegmentName, isValidPercent, isValidPortName, isValidPortNum,
  isValidUserID, nameIsDNSLabel, nameIsDNSSubdomain, regexError,
} from '../../src/api/names.js';

const subdomainMsg = "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";
const labelMsg = "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')";
const dns1035Msg = "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')";
const qnameRegexMsg = "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";
const labelValueMsg = "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')";

type Case = [string, string[]];
function table(fn: (v: string) => string[], cases: Case[]) {
  for (const [input, want] of cases) assert.deepEqual(fn(input), want, `${fn.name}(${JSON.stringify(input)})`);
}

test('regexError joins examples like upstream (two spaces before "or")', () => {
  assert.equal(regexError('m', 'f'), "m (regex used for validation is 'f')");
  assert.equal(regexError('m', 'f', 'a', 'b'), "m (e.g. 'a',  or 'b', regex used for validation is 'f')");
});

test('IsDNS1123Subdomain', () => table(isDNS1123Subdomain, [
  ['example.com', []], ['a', []], ['0-9.a', []], ['a'.repeat(253), []],
  ['Example', [subdomainMsg]], ['-a', [subdomainMsg]], ['a.', [subdomainMsg]], ['a_b', [subdomainMsg]], ['', [subdomainMsg]],
  ['a'.repeat(254), ['must be no more than 253 characters']],
]));

test('IsDNS1123Label', () => table(isDNS1123Label, [
  ['my-name', []], ['123-abc', []], ['a.b', ['must not contain dots']], ['A', [labelMsg]], ['a-', [labelMsg]], ['', [labelMsg]],
  ['a'.repeat(64), ['must be no more than 63 characters']],
]));

test('IsDNS1035Label (service names)', () => table(isDNS1035Label, [
  ['my-name', []], ['abc-123', []], ['1abc', [dns1035Msg]], ['a.b', [dns1035Msg]],
]));

test('IsQualifiedName', () => table(isQualifiedName, [
  ['app', []], ['example.com/MyName', []], ['k8s.io/app_name-1', []], ['a.b', []],
  ['/a', ['prefix part must be non-empty']],
  ['Example.com/a', [`prefix part ${subdomainMsg}`]],
  ['a/', ['name part must be non-empty', `name part ${qnameRegexMsg}`]],
  ['a/b/c', [`a qualified name ${qnameRegexMsg} with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')`]],
  ['-a', [`name part ${qnameRegexMsg}`]], ['', ['name part must be non-empty', `name part ${qnameRegexMsg}`]],
  ['a'.repeat(64), ['name part must be no more than 63 characters']],
]));

test('IsValidLabelValue', () => table(isValidLabelValue, [
  ['', []], ['v1', []], ['my_value', []], ['-x', [labelValueMsg]], ['a b', [labelValueMsg]],
  ['a'.repeat(64), ['must be no more than 63 characters']],
]));

test('IsConfigMapKey', () => table(isConfigMapKey, [
  ['key.name', []], ['KEY_NAME', []], ['.hidden', []],
  ['a b', ["a valid config key must consist of alphanumeric characters, '-', '_' or '.' (e.g. 'key.name',  or 'KEY_NAME',  or 'key-name', regex used for validation is '[-._a-zA-Z0-9]+')"]],
  ['..', ["must not be '..'"]], ['.', ["must not be '.'"]], ['..a', ["must not start with '..'"]],
]));

test('ports, percents, headers, ids and path segments', () => {
  assert.deepEqual(isValidPortNum(80), []);
  assert.deepEqual(isValidPortNum(0), ['must be between 1 and 65535, inclusive']);
  assert.deepEqual(isValidPortNum(65536), ['must be between 1 and 65535, inclusive']);
  table(isValidPortName, [
    ['http', []], ['web-1', []], ['12', ['must contain at least one letter (a-z)']], ['a--b', ['must not contain consecutive hyphens']],
    ['-a', ['must not begin or end with a hyphen']], ['HTTP', ['must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)', 'must contain at least one letter (a-z)']],
    ['a'.repeat(16), ['must be no more than 15 characters']],
  ]);
  table(isValidPercent, [['25%', []], ['25', ["a valid percent string must be a numeric string followed by an ending '%' (e.g. '1%',  or '93%', regex used for validation is '[0-9]+%')"]]]);
  table(isHTTPHeaderName, [['X-Header', []], ['a b', ["a valid HTTP header must consist of alphanumeric characters or '-' (e.g. 'X-Header-Name', regex used for validation is '[-A-Za-z0-9]+')"]]]);
  assert.deepEqual(isValidUserID(-1), ['must be between 0 and 4294967295, inclusive']);
  table(isValidPathSegmentName, [['ok', []], ['..', ["may not be '..'"]], ['a/b%', ["may not contain '/'", "may not contain '%'"]]]);
});

test('environment variable names (strict and relaxed)', () => {
  table(isEnvVarName, [['MY_VAR', []], ['my.env-name', []], ['1A', ["a valid environment variable name must consist of alphabetic characters, digits, '_', '-', or '.', and must not start with a digit (e.g. 'my.env-name',  or 'MY_ENV.NAME',  or 'MyEnvName1', regex used for validation is '[-._a-zA-Z][-._a-zA-Z0-9]*')"]]]);
  table(isRelaxedEnvVarName, [['1A', []], ['a b', []], ['', ['environment variable name must be non-empty']],
    ['a=b', ["a valid environment variable name must consist only of printable ASCII characters other than '='"]],
    ['é', ["a valid environment variable name must consist only of printable ASCII characters other than '='"]]]);
});

test('name validators allow a trailing dash for generateName', () => {
  assert.deepEqual(nameIsDNSSubdomain('web-', true), []);
  assert.deepEqual(nameIsDNSSubdomain('web-', false), [subdomainMsg]);
  assert.deepEqual(nameIsDNSLabel('ns-', true), []);
});
