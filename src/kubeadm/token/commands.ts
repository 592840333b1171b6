/**
 * kubeadm's token subcommands as functions over a client (RunCreateToken,
 * RunListTokens, RunDeleteTokens, RunGenerateToken); the CLI parses flags and
 * prints. Errors carry kubeadm's words.
 */
import type { Secret } from 'kubernetes-types/core/v1.js';
import type { Clientset } from '../../client/index.js';
import {
  bootstrapTokenFromSecret, bootstrapTokenIDPattern, bootstrapTokenPattern, bootstrapTokenSecretName, generateBootstrapToken, goQuote,
  isValidBootstrapTokenID, newBootstrapTokenString, secretTypeBootstrapToken, tokenSecretNamespace, validateBootstrapToken, type BootstrapToken,
} from '../../api/bootstraptoken/index.js';
import { fieldErrorMessage } from '../../api/field-errors.js';
import { createNewTokens } from '../bootstraptoken/node.js';
import { resourceClient } from '../apiclient.js';
import { formatTokenList } from './print.js';

export interface CreateTokenRequest {
  /** The [token] argument; absent: a new random one. */
  token?: string;
  ttlMs: number;
  usages: string[];
  groups: string[];
  description?: string;
}

/** Go's utilerrors.NewAggregate(...).Error(): one message alone, several in brackets. */
const aggregate = (msgs: string[]) => (msgs.length === 1 ? msgs[0]! : `[${msgs.join(', ')}]`);

/** The token `token create` would store, validated as kubeadm's configuration is; throws kubeadm's error. */
export function tokenToCreate(req: CreateTokenRequest): BootstrapToken {
  const token = newBootstrapTokenString(req.token ?? generateBootstrapToken());
  const bt: BootstrapToken = { token, ttlMs: req.ttlMs, usages: req.usages, groups: req.groups, description: req.description };
  const errs = validateBootstrapToken(bt);
  if (errs.length) throw new Error(aggregate(errs.map(fieldErrorMessage)));
  return bt;
}

/** Stores the token; returns its `<id>.<secret>` text. */
export async function createToken(clients: Clientset, bt: BootstrapToken, now: Date): Promise<string> {
  await createNewTokens(clients, [bt], now);
  return `${bt.token.id}.${bt.token.secret}`;
}

/** The listing text, and kubeadm's complaint about each malformed token Secret (written without a newline, as kubeadm does). */
export async function listTokens(clients: Clientset, now: Date): Promise<{ out: string; errors: string }> {
  let items: Secret[];
  try {
    items = (await resourceClient(clients, 'secrets').list(tokenSecretNamespace, { fieldSelector: `type=${secretTypeBootstrapToken}` })).items;
  } catch (e) {
    throw new Error(`failed to list bootstrap tokens: ${(e as Error).message}`);
  }
  const tokens: BootstrapToken[] = [];
  let errors = '';
  for (const s of items) {
    try { tokens.push(bootstrapTokenFromSecret(s)); } catch (e) { errors += (e as Error).message; }
  }
  return { out: formatTokenList(tokens, now), errors };
}

/** Deletes each token (given whole or by id), printing kubeadm's line for each; stops at the first failure. */
export async function deleteTokens(clients: Clientset, args: string[], print: (line: string) => void): Promise<void> {
  if (args.length === 0) {
    throw new Error(`missing argument; 'token delete' is missing token of form ${goQuote(bootstrapTokenPattern)} or ${goQuote(bootstrapTokenIDPattern)}`);
  }
  const secrets = resourceClient(clients, 'secrets');
  for (const arg of args) {
    let id = arg;
    if (!isValidBootstrapTokenID(arg)) {
      try { id = newBootstrapTokenString(arg).id; } catch {
        throw new Error(`given token didn't match pattern ${goQuote(bootstrapTokenPattern)} or ${goQuote(bootstrapTokenIDPattern)}`);
      }
    }
    try {
      await secrets.delete(tokenSecretNamespace, bootstrapTokenSecretName(id));
    } catch (e) {
      throw new Error(`failed to delete bootstrap token ${goQuote(id)}: ${(e as Error).message}`);
    }
    print(`bootstrap token ${goQuote(id)} deleted`);
  }
}
