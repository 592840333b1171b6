/** Authorization: attributes of a request, the authorizer chain, and upstream's 403. */
export type { AuthorizationAttributes, Authorizer, Decision, DecisionKind } from './types.js';
export { allow, deny, noOpinion } from './types.js';
export { unionAuthorizer } from './union.js';
export { attributesOf } from './attributes.js';
export { forbidden, forbiddenMessage } from './forbidden.js';
export { alwaysAllowRules, alwaysDenyRules, nodeRules, rulesResolverFor, unionRulesResolver } from './rules.js';
export type { RulesResolver, SubjectRules, ResourceRule, NonResourceRule } from './rules.js';
export { parseAuthorizationModes, authorizerFor, anonymousAllowed, DEFAULT_AUTHORIZATION_MODES, AUTHORIZATION_MODES } from './modes.js';
export type { AuthorizationMode, ModeAuthorizers } from './modes.js';
