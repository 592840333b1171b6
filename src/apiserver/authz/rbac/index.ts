/** The RBAC authorizer, its policy cache, and what SelfSubjectRulesReview and escalation checks need of it. */
export { PolicyCache, type PolicyGetter } from './policy-cache.js';
export { rbacAuthorizer, rulesFor, type SubjectRules, type ResourceRule } from './authorizer.js';
export { visitRulesFor, roleReferenceRules } from './resolver.js';
export { ruleAllows } from './rules.js';
export { privilegedGroupsAuthorizer, SYSTEM_PRIVILEGED_GROUP } from './privileged.js';
export { rbacEscalationAdmission, escalationError } from './escalation.js';
export { covers, compactRules, compactString } from '../../../api/rbac/covers.js';
