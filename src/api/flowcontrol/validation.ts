/**
 * FlowSchema and PriorityLevelConfiguration validation, as upstream's
 * pkg/apis/flowcontrol/validation for v1 in 1.32:
 * 1. names are DNS subdomains; an update is checked as a create (plus metadata);
 * 2. matchingPrecedence is 1..10000, and 1 only for `exempt`;
 * 3. a schema names a priority level; each rule has subjects and at least one
 *    resource or non-resource rule; `*` stands alone in any list;
 * 4. a level is Exempt exactly when it is named `exempt`; Limited levels have a
 *    non-negative share, lendable and borrowing percents in range, and a Queue
 *    response with positive queues, hand size (≤ queues) and queue length;
 * 5. the mandatory `exempt` and `catch-all` schemas and the `catch-all` level keep
 *    their fixed specs (the `exempt` level's shares and lendable percent may change);
 * 6. a status lists each condition type once, each with a type.
 */
import { FieldError, duplicate, forbidden, invalid, notSupported, required } from '../field-errors.js';
import { nameIsDNSSubdomain, validateNamespaceName } from '../names.js';
import { validateObjectMeta, validateObjectMetaUpdate } from '../validation/objectmeta.js';
import { Obj, arr, child, deepEqual, has, index, isObj, obj, str, validateName } from '../validation/util.js';
import { appendAll } from '../append.js';
import { catchAllName, exemptName, mandatoryFlowSchemas, mandatoryPriorityLevels } from './bootstrap.js';

const maxMatchingPrecedence = 10000;
const maxQueues = 10_000_000;
/** shufflesharding.MaxHashBits: a hand must be drawable from one 60-bit hash. */
const maxHashBits = 60;
const supportedVerbs = ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'proxy', 'update', 'watch'];
const subjectKinds = ['Group', 'ServiceAccount', 'User'];
const nsIntro = "each member of this list must be '*' or a DNS-1123 label; ";

export function validateFlowSchemaCreate(fs: Obj): FieldError[] {
  const errs = validateObjectMeta(fs.metadata, false, nameIsDNSSubdomain);
  const name = str(fs.metadata?.name);
  appendAll(errs, validateFlowSchemaSpec(name, obj(fs.spec)));
  const mandatory = mandatoryFlowSchemas().find((m) => m.metadata!.name === name);
  if (mandatory && !deepEqual(fs.spec, mandatory.spec)) errs.push(invalid('spec', fs.spec, `spec of '${name}' must equal the fixed value`));
  appendAll(errs, validateConditions(fs.status));
  return errs;
}

export function validateFlowSchemaUpdate(fs: Obj, old: Obj, subresource?: string): FieldError[] {
  if (subresource === 'status') return validateConditions(fs.status);
  return [...validateObjectMetaUpdate(fs.metadata, old.metadata), ...validateFlowSchemaCreate(fs)];
}

function validateFlowSchemaSpec(name: string, spec: Obj): FieldError[] {
  const errs: FieldError[] = [];
  const precedence = typeof spec.matchingPrecedence === 'number' ? spec.matchingPrecedence : 0;
  if (precedence <= 0) errs.push(invalid('spec.matchingPrecedence', precedence, 'must be a positive value'));
  if (precedence > maxMatchingPrecedence) errs.push(invalid('spec.matchingPrecedence', precedence, `must not be greater than ${maxMatchingPrecedence}`));
  if (precedence === 1 && name !== exemptName) errs.push(invalid('spec.matchingPrecedence', precedence, "only the schema named 'exempt' may have matchingPrecedence 1"));
  if (isObj(spec.distinguisherMethod) && !['ByNamespace', 'ByUser'].includes(str(spec.distinguisherMethod.type))) {
    errs.push(notSupported('spec.distinguisherMethod.type', spec.distinguisherMethod, ['ByNamespace', 'ByUser']));
  }
  const pl = str(obj(spec.priorityLevelConfiguration).name);
  if (pl) appendAll(errs, validateName(pl, 'spec.priorityLevelConfiguration.name', nameIsDNSSubdomain));
  else errs.push(required('spec.priorityLevelConfiguration.name', 'must reference a priority level'));
  arr(spec.rules).forEach((r, i) => appendAll(errs, validateRule(obj(r), index('spec.rules', i))));
  return errs;
}

function validateRule(rule: Obj, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const subjects = arr(rule.subjects);
  if (subjects.length === 0) errs.push(required(child(path, 'subjects'), 'subjects must contain at least one value'));
  subjects.forEach((s, i) => appendAll(errs, validateSubject(obj(s), index(child(path, 'subjects'), i))));
  if (arr(rule.resourceRules).length === 0 && arr(rule.nonResourceRules).length === 0) {
    errs.push(required(path, 'at least one of resourceRules and nonResourceRules has to be non-empty'));
  }
  arr(rule.resourceRules).forEach((r, i) => appendAll(errs, validateResourceRule(obj(r), index(child(path, 'resourceRules'), i))));
  arr(rule.nonResourceRules).forEach((r, i) => appendAll(errs, validateNonResourceRule(obj(r), index(child(path, 'nonResourceRules'), i))));
  return errs;
}

/** Each kind needs its own member and forbids the other two. */
function validateSubject(s: Obj, path: string): FieldError[] {
  const kind = str(s.kind);
  if (!subjectKinds.includes(kind)) return [notSupported(child(path, 'kind'), kind, subjectKinds)];
  const member = { ServiceAccount: 'serviceAccount', User: 'user', Group: 'group' }[kind]!;
  const errs: FieldError[] = [];
  if (!isObj(s[member])) errs.push(required(child(path, member), `${member} is required when subject kind is '${kind}'`));
  else if (kind === 'ServiceAccount') appendAll(errs, validateServiceAccountSubject(s[member], child(path, member)));
  else if (!str(s[member].name)) errs.push(required(child(child(path, member), 'name')));
  for (const [other, otherKind] of [['serviceAccount', 'ServiceAccount'], ['user', 'User'], ['group', 'Group']]) {
    if (other !== member && has(s[other])) errs.push(forbidden(child(path, other), `${other} is forbidden when subject kind is not '${otherKind}'`));
  }
  return errs;
}

function validateServiceAccountSubject(sa: Obj, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const name = str(sa.name);
  if (!name) errs.push(required(child(path, 'name')));
  else if (name !== '*') appendAll(errs, validateName(name, child(path, 'name'), nameIsDNSSubdomain));
  const ns = str(sa.namespace);
  if (!ns) errs.push(required(child(path, 'namespace'), 'must specify namespace for service account'));
  else appendAll(errs, validateName(ns, child(path, 'namespace'), validateNamespaceName));
  return errs;
}

function validateVerbs(verbs: string[], path: string): FieldError[] {
  if (verbs.length === 0) return [required(path, 'verbs must contain at least one value')];
  if (verbs.includes('*')) return verbs.length > 1 ? [invalid(path, verbs, "if '*' is present, must not specify other verbs")] : [];
  return verbs.every((v) => supportedVerbs.includes(v)) ? [] : [notSupported(path, verbs, supportedVerbs)];
}

function validateResourceRule(rule: Obj, path: string): FieldError[] {
  const errs = validateVerbs(arr(rule.verbs).map(str), child(path, 'verbs'));
  const groups = arr(rule.apiGroups).map(str);
  if (groups.length === 0) errs.push(required(child(path, 'apiGroups'), 'resource rules must supply at least one api group'));
  else if (groups.length > 1 && groups.includes('*')) errs.push(invalid(child(path, 'apiGroups'), groups, "if '*' is present, must not specify other api groups"));
  const resources = arr(rule.resources).map(str);
  if (resources.length === 0) errs.push(required(child(path, 'resources'), 'resource rules must supply at least one resource'));
  else if (resources.length > 1 && resources.includes('*')) errs.push(invalid(child(path, 'resources'), resources, "if '*' is present, must not specify other resources"));
  const namespaces = arr(rule.namespaces).map(str);
  if (namespaces.length === 0 && rule.clusterScope !== true) {
    errs.push(required(child(path, 'namespaces'), 'resource rules that are not cluster scoped must supply at least one namespace'));
  } else if (namespaces.includes('*')) {
    if (namespaces.length > 1) errs.push(invalid(child(path, 'namespaces'), namespaces, "if '*' is present, must not specify other namespaces"));
  } else {
    namespaces.forEach((ns, i) => appendAll(errs, validateNamespaceName(ns, false).map((msg) => invalid(index(child(path, 'namespaces'), i), ns, nsIntro + msg))));
  }
  return errs;
}

function validateNonResourceRule(rule: Obj, path: string): FieldError[] {
  const errs = validateVerbs(arr(rule.verbs).map(str), child(path, 'verbs'));
  const urls = arr(rule.nonResourceURLs).map(str);
  const urlsPath = child(path, 'nonResourceURLs');
  if (urls.length === 0) errs.push(required(urlsPath, 'nonResourceURLs must contain at least one value'));
  else if (urls.includes('*')) {
    if (urls.length > 1) errs.push(invalid(urlsPath, urls, "if '*' is present, must not specify other non-resource URLs"));
  } else {
    urls.forEach((u, i) => {
      const msg = nonResourceURLError(u);
      if (msg) errs.push(invalid(index(urlsPath, i), u, msg));
    });
  }
  return errs;
}

/** ValidateNonResourceURLPath: a leading slash, no blanks or `//`, and `*` only as a `/*` suffix. */
function nonResourceURLError(path: string): string | undefined {
  if (path === '') return 'must not be empty';
  if (path === '/') return undefined;
  if (!path.startsWith('/')) return 'must start with slash';
  if (path.includes(' ')) return 'must not contain white-space';
  if (path.includes('//')) return 'must not contain double slash';
  const stars = path.split('*').length - 1;
  if (stars > 1 || (stars === 1 && !path.endsWith('/*'))) return 'wildcard can only do suffix matching';
  return undefined;
}

function validateConditions(status: unknown): FieldError[] {
  const errs: FieldError[] = [];
  const seen = new Set<string>();
  arr(obj(status).conditions).forEach((c, i) => {
    const type = str(obj(c).type);
    const path = child(index('status.conditions', i), 'type');
    if (seen.has(type)) errs.push(duplicate(path, type));
    seen.add(type);
    if (!type) errs.push(required(path, 'must not be empty'));
  });
  return errs;
}

export function validatePriorityLevelCreate(pl: Obj): FieldError[] {
  const errs = validateObjectMeta(pl.metadata, false, nameIsDNSSubdomain);
  const name = str(pl.metadata?.name);
  appendAll(errs, validatePriorityLevelSpec(obj(pl.spec), name));
  // The exempt level's numbers may be tuned (upstream relaxed this in 1.29); catch-all's spec is fixed.
  const mandatory = name === catchAllName ? mandatoryPriorityLevels().find((m) => m.metadata!.name === name) : undefined;
  if (mandatory && !deepEqual(pl.spec, mandatory.spec)) errs.push(invalid('spec', pl.spec, `spec of '${name}' must equal the fixed value`));
  appendAll(errs, validateConditions(pl.status));
  return errs;
}

export function validatePriorityLevelUpdate(pl: Obj, old: Obj, subresource?: string): FieldError[] {
  if (subresource === 'status') return validateConditions(pl.status);
  return [...validateObjectMetaUpdate(pl.metadata, old.metadata), ...validatePriorityLevelCreate(pl)];
}

function validatePriorityLevelSpec(spec: Obj, name: string): FieldError[] {
  const errs: FieldError[] = [];
  const type = str(spec.type);
  if ((name === exemptName) !== (type === 'Exempt')) errs.push(invalid('spec.type', type, "type must be 'Exempt' if and only if name is 'exempt'"));
  if (type === 'Exempt') {
    if (has(spec.limited)) errs.push(forbidden('spec.limited', 'must be nil if the type is not Limited'));
    if (isObj(spec.exempt)) appendAll(errs, validateShares(spec.exempt, 'spec.exempt'));
  } else if (type === 'Limited') {
    if (has(spec.exempt)) errs.push(forbidden('spec.exempt', 'must be nil if the type is Limited'));
    if (!isObj(spec.limited)) errs.push(required('spec.limited', 'must not be empty when type is Limited'));
    else appendAll(errs, validateLimited(spec.limited, 'spec.limited'));
  } else {
    errs.push(notSupported('spec.type', type, ['Exempt', 'Limited']));
  }
  return errs;
}

function validateShares(o: Obj, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const shares = o.nominalConcurrencyShares;
  if (typeof shares === 'number' && shares < 0) errs.push(invalid(child(path, 'nominalConcurrencyShares'), shares, 'must be a non-negative integer'));
  const lendable = o.lendablePercent;
  if (typeof lendable === 'number' && (lendable < 0 || lendable > 100)) errs.push(invalid(child(path, 'lendablePercent'), lendable, 'must be between 0 and 100, inclusive'));
  return errs;
}

function validateLimited(limited: Obj, path: string): FieldError[] {
  const errs = validateShares(limited, path);
  const borrowing = limited.borrowingLimitPercent;
  if (typeof borrowing === 'number' && borrowing < 0) errs.push(invalid(child(path, 'borrowingLimitPercent'), borrowing, 'if specified, must be a non-negative integer'));
  const response = obj(limited.limitResponse);
  const rpath = child(path, 'limitResponse');
  const type = str(response.type);
  if (type === 'Reject') {
    if (has(response.queuing)) errs.push(forbidden(child(rpath, 'queuing'), 'must be nil if limited.limitResponse.type is not Limited'));
  } else if (type === 'Queue') {
    if (!isObj(response.queuing)) errs.push(required(child(rpath, 'queuing'), 'must not be empty if limited.limitResponse.type is Limited'));
    else appendAll(errs, validateQueuing(response.queuing, child(rpath, 'queuing')));
  } else {
    errs.push(notSupported(child(rpath, 'type'), type, ['Queue', 'Reject']));
  }
  return errs;
}

function validateQueuing(q: Obj, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const n = (v: unknown) => (typeof v === 'number' ? v : 0);
  const [queues, handSize, length] = [n(q.queues), n(q.handSize), n(q.queueLengthLimit)];
  if (length <= 0) errs.push(invalid(child(path, 'queueLengthLimit'), length, 'must be positive'));
  if (queues <= 0) errs.push(invalid(child(path, 'queues'), queues, 'must be positive'));
  else if (queues > maxQueues) errs.push(invalid(child(path, 'queues'), queues, `must not be greater than ${maxQueues}`));
  if (handSize <= 0) errs.push(invalid(child(path, 'handSize'), handSize, 'must be positive'));
  else if (handSize > queues) errs.push(invalid(child(path, 'handSize'), handSize, `should not be greater than queues (${queues})`));
  else if (requiredEntropyBits(queues, handSize) > maxHashBits) {
    errs.push(invalid(child(path, 'handSize'), handSize, `required entropy bits of deckSize ${queues} and handSize ${handSize} should not be greater than ${maxHashBits}`));
  }
  return errs;
}

/** shufflesharding.RequiredEntropyBits: ceil(log2(deckSize) * handSize). */
const requiredEntropyBits = (deckSize: number, handSize: number) => Math.ceil(Math.log2(deckSize) * handSize);
