/**
 * `kubeadm init phase bootstrap-token`, in kubeadm's order and with its
 * progress lines: the tokens, the node bootstrap RBAC, then cluster-info and
 * its anonymous read access. Errors are wrapped with kubeadm's words.
 */
import type { Clientset } from '../../client/index.js';
import { tokenFromIDAndSecret, type BootstrapToken } from '../../api/bootstraptoken/index.js';
import { createBootstrapConfigMapIfNotExists, createClusterInfoRBACRules, type ClusterInfo } from './clusterinfo.js';
import {
  allowBootstrapTokensToGetNodes, allowBootstrapTokensToPostCSRs, autoApproveNodeBootstrapTokens, autoApproveNodeCertificateRotation,
  updateOrCreateTokens,
} from './node.js';

export interface BootstrapTokenPhaseOptions {
  tokens: BootstrapToken[];
  clusterInfo: ClusterInfo;
  /** --skip-token-print */
  skipTokenPrint?: boolean;
  now: Date;
  print?: (line: string) => void;
}

async function step(what: string, run: () => Promise<void>): Promise<void> {
  try { await run(); } catch (e) { throw new Error(`${what}: ${(e as Error).message}`); }
}

export async function runBootstrapTokenPhase(clients: Clientset, opts: BootstrapTokenPhaseOptions): Promise<void> {
  const print = opts.print ?? ((line: string) => console.log(line));
  const tokens = opts.tokens.map((t) => tokenFromIDAndSecret(t.token.id, t.token.secret));
  if (!opts.skipTokenPrint && tokens.length === 1) print(`[bootstrap-token] Using token: ${tokens[0]}`);
  else if (!opts.skipTokenPrint && tokens.length > 1) print(`[bootstrap-token] Using tokens: [${tokens.join(' ')}]`);
  print('[bootstrap-token] Configuring bootstrap tokens, cluster-info ConfigMap, RBAC Roles');
  await step('error updating or creating token', () => updateOrCreateTokens(clients, false, opts.tokens, opts.now));
  await step('error allowing bootstrap tokens to get Nodes', () => allowBootstrapTokensToGetNodes(clients, print));
  await step('error allowing bootstrap tokens to post CSRs', () => allowBootstrapTokensToPostCSRs(clients, print));
  await step('error auto-approving node bootstrap tokens', () => autoApproveNodeBootstrapTokens(clients, print));
  // kubeadm returns this one unwrapped.
  await autoApproveNodeCertificateRotation(clients, print);
  await step('error creating bootstrap ConfigMap', () => createBootstrapConfigMapIfNotExists(clients, opts.clusterInfo, print));
  await step('error creating clusterinfo RBAC rules', () => createClusterInfoRBACRules(clients));
}
