/**
 * kube-apiserver --authorization-mode: a comma list of Node, RBAC,
 * AlwaysAllow, AlwaysDeny, tried in that order after the privileged-group
 * authorizer (system:masters is always allowed, as upstream's
 * authorizer/config puts it first).
 */
import { privilegedGroupsAuthorizer } from './rbac/privileged.js';
import { allow, deny, noOpinion, type Authorizer } from './types.js';
import { unionAuthorizer } from './union.js';

export const AUTHORIZATION_MODES = ['AlwaysAllow', 'AlwaysDeny', 'Node', 'RBAC'] as const;
export type AuthorizationMode = typeof AUTHORIZATION_MODES[number];
export const DEFAULT_AUTHORIZATION_MODES: AuthorizationMode[] = ['Node', 'RBAC'];

/** Parses the flag; throws upstream's words for an unknown or repeated mode. */
export function parseAuthorizationModes(flag: string): AuthorizationMode[] {
  const modes = flag.split(',').map((m) => m.trim()).filter((m) => m !== '');
  if (modes.length === 0) throw new Error('at least one authorization-mode must be passed');
  for (const m of modes) {
    if (!(AUTHORIZATION_MODES as readonly string[]).includes(m)) throw new Error(`authorization-mode "${m}" is not a valid mode`);
  }
  const dup = modes.find((m, i) => modes.indexOf(m) !== i);
  if (dup) throw new Error(`authorization-mode "${dup}" has mode specified more than once`);
  return modes as AuthorizationMode[];
}

export interface ModeAuthorizers {
  rbac: Authorizer;
  /** The Node authorizer; until it exists, Node has no opinion on anything. */
  node?: Authorizer;
}

/** The chain for `modes`; undefined when it would allow everything (AlwaysAllow alone), so the server skips it. */
export function authorizerFor(modes: AuthorizationMode[], authorizers: ModeAuthorizers): Authorizer | undefined {
  if (modes.length === 1 && modes[0] === 'AlwaysAllow') return undefined;
  const chain = modes.map((m): Authorizer => {
    switch (m) {
      case 'AlwaysAllow': return () => allow();
      case 'AlwaysDeny': return () => deny();
      case 'Node': return authorizers.node ?? (() => noOpinion());
      case 'RBAC': return authorizers.rbac;
    }
  });
  return unionAuthorizer([privilegedGroupsAuthorizer(), ...chain]);
}

/** Upstream turns anonymous authentication off with AlwaysAllow, which would let anyone do anything. */
export function anonymousAllowed(modes: AuthorizationMode[], anonymousAuth: boolean): boolean {
  return anonymousAuth && !modes.includes('AlwaysAllow');
}
