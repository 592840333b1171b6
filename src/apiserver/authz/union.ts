/**
 * The authorizer chain (authorizer/union): each authorizer in turn; the first
 * allow or deny decides, NoOpinion passes on. Reasons of those that had no
 * opinion are joined, as upstream reports them when nobody allowed.
 *
 * Authorizers that decide at once (Node, RBAC from their caches) are answered
 * at once, with no promise: an async chain made two per authorizer on every
 * request (each an allocation and a microtask turn).
 */
import { noOpinion, type Authorizer, type AuthorizationAttributes, type Decision } from './types.js';

export function unionAuthorizer(authorizers: Authorizer[]): Authorizer {
  return (attrs) => decide(authorizers, attrs, 0, []);
}

function decide(authorizers: readonly Authorizer[], attrs: AuthorizationAttributes, from: number, reasons: string[]): Decision | Promise<Decision> {
  for (let i = from; i < authorizers.length; i++) {
    const d = authorizers[i]!(attrs);
    if (d instanceof Promise) {
      return d.then((settled) => {
        if (settled.decision !== 'noOpinion') return settled;
        if (settled.reason) reasons.push(settled.reason);
        return decide(authorizers, attrs, i + 1, reasons);
      });
    }
    if (d.decision !== 'noOpinion') return d;
    if (d.reason) reasons.push(d.reason);
  }
  return noOpinion(reasons.join('\n'));
}
