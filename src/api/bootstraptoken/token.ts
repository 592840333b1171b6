/**
 * Bootstrap token strings `<id>.<secret>` (`[a-z0-9]{6}.[a-z0-9]{16}`), as
 * k8s.io/cluster-bootstrap/token/util generates and checks them: the id is
 * public, the secret is compared in constant time.
 */
import { randomInt } from 'node:crypto';
import { bootstrapTokenPattern, bootstrapTokenSecretPrefix } from './constants.js';

export interface BootstrapTokenString { id: string; secret: string }

const tokenChars = '0123456789abcdefghijklmnopqrstuvwxyz';
const tokenRe = /^([a-z0-9]{6})\.([a-z0-9]{16})$/;
const tokenIDRe = /^[a-z0-9]{6}$/;
const secretNameRe = /^bootstrap-token-([a-z0-9]{6})$/;

/** `length` characters of [a-z0-9], each drawn uniformly from the OS's cryptographic source. */
function randomTokenChars(length: number): string {
  let s = '';
  for (let i = 0; i < length; i++) s += tokenChars[randomInt(tokenChars.length)];
  return s;
}

/** GenerateBootstrapToken: a new random token. */
export function generateBootstrapToken(): string {
  return tokenFromIDAndSecret(randomTokenChars(6), randomTokenChars(16));
}

export const tokenFromIDAndSecret = (id: string, secret: string): string => `${id}.${secret}`;

/** The id and secret of a well-formed token, else undefined (a bearer token of another kind). */
export function parseBootstrapToken(token: string): BootstrapTokenString | undefined {
  const m = tokenRe.exec(token);
  return m ? { id: m[1]!, secret: m[2]! } : undefined;
}

export const isValidBootstrapTokenID = (id: string): boolean => tokenIDRe.test(id);

/** IsValidBootstrapToken without a regexp over the secret, so its check takes the same time for every secret of the right length. */
export function isValidBootstrapToken(token: string): boolean {
  const parts = token.split('.');
  if (parts.length !== 2 || !isValidBootstrapTokenID(parts[0]!)) return false;
  const secret = parts[1]!;
  if (secret.length !== 16) return false;
  let bad = 0;
  for (let i = 0; i < secret.length; i++) {
    const c = secret.charCodeAt(i);
    bad |= Number((c < 48 || c > 57) && (c < 97 || c > 122));
  }
  return bad === 0;
}

/** NewBootstrapTokenString: the parsed token, or kubeadm's error. */
export function newBootstrapTokenString(token: string): BootstrapTokenString {
  const parsed = parseBootstrapToken(token);
  if (!parsed) throw new Error(`the bootstrap token ${goQuote(token)} was not of the form ${goQuote(bootstrapTokenPattern)}`);
  return parsed;
}

export const bootstrapTokenSecretName = (id: string): string => `${bootstrapTokenSecretPrefix}${id}`;

/** The token id a Secret's name carries (`bootstrap-token-<id>`), else undefined. */
export function parseSecretName(name: string): string | undefined {
  return secretNameRe.exec(name)?.[1];
}

/** Go's %q for the ASCII strings in these messages: backslashes and quotes escaped. */
export function goQuote(s: string): string {
  return JSON.stringify(s);
}
