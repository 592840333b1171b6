/**
 * The authorizer chain (authorizer/union): each authorizer in turn; the first
 * allow or deny decides, NoOpinion passes on. Reasons of those that had no
 * opinion are joined, as upstream reports them when nobody allowed.
 */
import { noOpinion, type Authorizer, type Decision } from './types.js';

export function unionAuthorizer(authorizers: Authorizer[]): Authorizer {
  return async (attrs) => {
    const reasons: string[] = [];
    for (const authorize of authorizers) {
      const d: Decision = await authorize(attrs);
      if (d.decision !== 'noOpinion') return d;
      if (d.reason) reasons.push(d.reason);
    }
    return noOpinion(reasons.join('\n'));
  };
}
