/**
 * kubeadm's checks of a bootstrap token before it is stored
 * (validation.ValidateBootstrapTokens, cluster-bootstrap's ValidateUsages and
 * ValidateBootstrapGroupName), with their words.
 */
import { GoValue, invalid, type FieldError } from '../field-errors.js';
import { bootstrapGroupPattern, knownTokenUsages } from './constants.js';
import { goQuote, isValidBootstrapToken, tokenFromIDAndSecret } from './token.js';
import type { BootstrapToken } from './secret.js';

const groupRe = /^system:bootstrappers:[a-z0-9:-]{0,255}[a-z0-9]$/;

/** ValidateBootstrapGroupName: undefined when valid, else the error. */
export function validateBootstrapGroupName(name: string): string | undefined {
  return groupRe.test(name) ? undefined : `bootstrap group ${goQuote(name)} is invalid (must match ${bootstrapGroupPattern})`;
}

/** ValidateUsages: unknown usages, sorted and deduplicated as sets.String lists them. */
export function validateUsages(usages: string[]): string | undefined {
  const unknown = [...new Set(usages.filter((u) => !knownTokenUsages.includes(u)))].sort();
  if (!unknown.length) return undefined;
  return `invalid bootstrap token usage string: ${unknown.join(',')}, valid usage options: ${knownTokenUsages.join(',')}`;
}

/** Go's %#v of a []string, as field.Invalid shows a slice. */
const goStrings = (xs: string[]) => new GoValue(`[]string{${xs.map(goQuote).join(', ')}}`);

/** ValidateBootstrapTokens for one token at `path` (kubeadm: `bootstrapTokens.<i>`). */
export function validateBootstrapToken(bt: BootstrapToken, path = 'bootstrapTokens.0'): FieldError[] {
  const errs: FieldError[] = [];
  const token = tokenFromIDAndSecret(bt.token.id, bt.token.secret);
  if (!isValidBootstrapToken(token)) errs.push(invalid(`${path}.token`, token, 'the bootstrap token is invalid'));
  const usageErr = validateUsages(bt.usages);
  if (usageErr) errs.push(invalid(`${path}.usages`, goStrings(bt.usages), usageErr));
  // Extra groups only mean something to the authenticator.
  if (bt.groups.length && !bt.usages.includes('authentication')) {
    errs.push(invalid(`${path}.groups`, goStrings(bt.groups), 'token groups cannot be specified unless --usages includes "authentication"'));
  }
  for (const g of bt.groups) {
    const err = validateBootstrapGroupName(g);
    if (err) errs.push(invalid(`${path}.groups`, goStrings(bt.groups), err));
  }
  return errs;
}
