/** RBAC (rbac.authorization.k8s.io/v1) roles and bindings, as upstream pkg/apis/rbac/validation. */
import { FieldError, invalid, notSupported, required } from '../field-errors.js';
import { isValidPathSegmentName, nameIsDNSSubdomain, type NameValidator } from '../names.js';
import { goStringSlice, goStruct } from './govalue.js';
import { validateObjectMeta, validateObjectMetaUpdate } from './objectmeta.js';
import { Obj, arr, child, deepEqual, goQuote, index, obj, str } from './util.js';
import { appendAll } from '../append.js';

const rbacGroup = 'rbac.authorization.k8s.io';

/** minimalNameRequirements: role and binding names only need to fit a URL path segment. */
const minimalName: NameValidator = (name) => isValidPathSegmentName(name);

function validatePolicyRule(ruleRaw: unknown, namespaced: boolean, path: string): FieldError[] {
  const rule = obj(ruleRaw);
  const errs: FieldError[] = [];
  if (arr(rule.verbs).length === 0) errs.push(required(child(path, 'verbs'), 'verbs must contain at least one value'));
  const urls = arr(rule.nonResourceURLs);
  if (urls.length > 0) {
    if (namespaced) errs.push(invalid(child(path, 'nonResourceURLs'), goStringSlice(urls), 'namespaced rules cannot apply to non-resource URLs'));
    if (arr(rule.apiGroups).length || arr(rule.resources).length || arr(rule.resourceNames).length) {
      errs.push(invalid(child(path, 'nonResourceURLs'), goStringSlice(urls), 'rules cannot apply to both regular resources and non-resource URLs'));
    }
    return errs;
  }
  if (arr(rule.apiGroups).length === 0) errs.push(required(child(path, 'apiGroups'), 'resource rules must supply at least one api group'));
  if (arr(rule.resources).length === 0) errs.push(required(child(path, 'resources'), 'resource rules must supply at least one resource'));
  if (arr(rule.resourceNames).length > 0 && arr(rule.resources).length > 1) {
    errs.push(required(child(path, 'resourceNames'), 'resource names cannot apply to multiple resources'));
  }
  return errs;
}

function roleValidator(namespaced: boolean) {
  const create = (role: Obj): FieldError[] => [
    ...validateObjectMeta(role.metadata, namespaced, minimalName),
    ...arr(role.rules).flatMap((r, i) => validatePolicyRule(r, namespaced, index('rules', i))),
  ];
  return { create, update: (role: Obj, old: Obj) => [...create(role), ...validateObjectMetaUpdate(role.metadata, old.metadata)] };
}

export const roleValidation = roleValidator(true);
export const clusterRoleValidation = roleValidator(false);

function validateSubject(subjectRaw: unknown, namespaced: boolean, path: string): FieldError[] {
  const s = obj(subjectRaw);
  const name = str(s.name);
  const apiGroup = str(s.apiGroup);
  const errs: FieldError[] = [];
  if (!name) errs.push(required(child(path, 'name')));
  switch (s.kind) {
    case 'ServiceAccount':
      if (name) appendAll(errs, nameIsDNSSubdomain(name, false).map((m) => invalid(child(path, 'name'), name, m)));
      if (apiGroup) errs.push(notSupported(child(path, 'apiGroup'), apiGroup, ['']));
      if (!namespaced && !str(s.namespace)) errs.push(required(child(path, 'namespace')));
      break;
    case 'User':
    case 'Group':
      if (!name) errs.push(invalid(child(path, 'name'), name, `${s.kind === 'User' ? 'user' : 'group'} name cannot be empty`));
      if (apiGroup !== rbacGroup) errs.push(notSupported(child(path, 'apiGroup'), apiGroup, [rbacGroup]));
      break;
    default:
      errs.push(notSupported(child(path, 'kind'), str(s.kind), ['ServiceAccount', 'User', 'Group']));
  }
  return errs;
}

const goRoleRef = (ref: unknown) => goStruct('rbac.RoleRef', [
  ['APIGroup', goQuote(str(obj(ref).apiGroup))], ['Kind', goQuote(str(obj(ref).kind))], ['Name', goQuote(str(obj(ref).name))],
]);

function bindingValidator(namespaced: boolean) {
  const kinds = namespaced ? ['Role', 'ClusterRole'] : ['ClusterRole'];
  const create = (b: Obj): FieldError[] => {
    const errs = validateObjectMeta(b.metadata, namespaced, minimalName);
    const ref = obj(b.roleRef);
    if (str(ref.apiGroup) !== rbacGroup) errs.push(notSupported('roleRef.apiGroup', str(ref.apiGroup), [rbacGroup]));
    if (!kinds.includes(str(ref.kind))) errs.push(notSupported('roleRef.kind', str(ref.kind), kinds));
    const name = str(ref.name);
    if (!name) errs.push(required('roleRef.name'));
    else appendAll(errs, minimalName(name, false).map((m) => invalid('roleRef.name', name, m)));
    arr(b.subjects).forEach((s, i) => appendAll(errs, validateSubject(s, namespaced, index('subjects', i))));
    return errs;
  };
  const update = (b: Obj, old: Obj): FieldError[] => {
    const errs = [...create(b), ...validateObjectMetaUpdate(b.metadata, old.metadata)];
    if (!deepEqual(b.roleRef, old.roleRef)) errs.push(invalid('roleRef', goRoleRef(b.roleRef), 'cannot change roleRef'));
    return errs;
  };
  return { create, update };
}

export const roleBindingValidation = bindingValidator(true);
export const clusterRoleBindingValidation = bindingValidator(false);
