/** Authentication for the API server: client certificates and bearer tokens. */
export { createAuthenticator, anonymousUser, ANONYMOUS_USER, UNAUTHENTICATED_GROUP } from './authenticator.js';
export type { Authenticator, AuthenticatorOptions, TokenLookup } from './authenticator.js';
export { serverTLSOptions } from './tls.js';
export { AUTHENTICATED_GROUP, withAuthenticatedGroup } from './types.js';
export type { UserInfo } from './types.js';
export { parseTokenFile, readTokenFile, parseCSV } from './token-file.js';
export { bearerTokenFromHeader, webSocketBearerToken, isWebSocketRequest, BEARER_PROTOCOL_PREFIX } from './bearer.js';
export type { WebSocketToken } from './bearer.js';
export { createX509Authenticator } from './x509.js';
export { impersonate, impersonationRequests, impersonateAttributes, impersonatedUser, internalErrorText } from './impersonation.js';
export type { Impersonation, ImpersonationRequest } from './impersonation.js';
export { serviceAccountUsername, serviceAccountGroups, splitServiceAccountUsername } from './serviceaccount-user.js';
