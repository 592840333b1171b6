/**
 * kubeadm's node bootstrap-token phase (phases/bootstraptoken/node): the
 * tokens themselves, and the ClusterRoleBindings that let a token of group
 * system:bootstrappers:kubeadm:default-node-token post a node CSR, get nodes,
 * and have that CSR (and later renewals by the node) approved automatically.
 */
import type { ClusterRole, ClusterRoleBinding } from 'kubernetes-types/rbac/v1.js';
import type { Clientset } from '../../client/index.js';
import {
  bootstrapTokenSecretName, bootstrapTokenToSecret, goQuote, nodeBootstrapTokenAuthGroup, tokenSecretNamespace, type BootstrapToken,
} from '../../api/bootstraptoken/index.js';
import { createOrUpdate, resourceClient } from '../apiclient.js';

export const nodeKubeletBootstrap = 'kubeadm:kubelet-bootstrap';
export const nodeBootstrapperClusterRoleName = 'system:node-bootstrapper';
export const getNodesClusterRoleName = 'kubeadm:get-nodes';
export const csrAutoApprovalClusterRoleName = 'system:certificates.k8s.io:certificatesigningrequests:nodeclient';
export const nodeSelfCSRAutoApprovalClusterRoleName = 'system:certificates.k8s.io:certificatesigningrequests:selfnodeclient';
export const nodeAutoApproveBootstrapClusterRoleBinding = 'kubeadm:node-autoapprove-bootstrap';
export const nodeAutoApproveCertificateRotationClusterRoleBinding = 'kubeadm:node-autoapprove-certificate-rotation';
export const nodesGroup = 'system:nodes';

const binding = (name: string, clusterRole: string, group: string): ClusterRoleBinding => ({
  apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRoleBinding', metadata: { name },
  roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: clusterRole },
  subjects: [{ kind: 'Group', name: group }],
});

/** Every RBAC object this phase writes, in kubeadm's order. */
export function nodeBootstrapRBACObjects(): { getNodesRole: ClusterRole; bindings: ClusterRoleBinding[] } {
  return {
    getNodesRole: {
      apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { name: getNodesClusterRoleName },
      rules: [{ verbs: ['get'], apiGroups: [''], resources: ['nodes'] }],
    },
    bindings: [
      binding(nodeKubeletBootstrap, nodeBootstrapperClusterRoleName, nodeBootstrapTokenAuthGroup),
      binding(getNodesClusterRoleName, getNodesClusterRoleName, nodeBootstrapTokenAuthGroup),
      binding(nodeAutoApproveBootstrapClusterRoleBinding, csrAutoApprovalClusterRoleName, nodeBootstrapTokenAuthGroup),
      binding(nodeAutoApproveCertificateRotationClusterRoleBinding, nodeSelfCSRAutoApprovalClusterRoleName, nodesGroup),
    ],
  };
}

type Print = (line: string) => void;

/** AllowBootstrapTokensToPostCSRs: kubeadm:kubelet-bootstrap binds system:node-bootstrapper. */
export async function allowBootstrapTokensToPostCSRs(clients: Clientset, print: Print = () => {}): Promise<void> {
  print('[bootstrap-token] Configured RBAC rules to allow Node Bootstrap tokens to post CSRs in order for nodes to get long term certificate credentials');
  await createOrUpdate(clients, 'clusterrolebindings', nodeBootstrapRBACObjects().bindings[0]);
}

/** AllowBoostrapTokensToGetNodes (kubeadm's spelling): join checks whether its node name is taken. */
export async function allowBootstrapTokensToGetNodes(clients: Clientset, print: Print = () => {}): Promise<void> {
  print('[bootstrap-token] Configured RBAC rules to allow Node Bootstrap tokens to get nodes');
  const objs = nodeBootstrapRBACObjects();
  await createOrUpdate(clients, 'clusterroles', objs.getNodesRole);
  await createOrUpdate(clients, 'clusterrolebindings', objs.bindings[1]);
}

/** AutoApproveNodeBootstrapTokens: the csrapproving controller approves a bootstrap token's node client CSR. */
export async function autoApproveNodeBootstrapTokens(clients: Clientset, print: Print = () => {}): Promise<void> {
  print('[bootstrap-token] Configured RBAC rules to allow the csrapprover controller automatically approve CSRs from a Node Bootstrap Token');
  await createOrUpdate(clients, 'clusterrolebindings', nodeBootstrapRBACObjects().bindings[2]);
}

/** AutoApproveNodeCertificateRotation: nodes renewing their own client certificate are approved too. */
export async function autoApproveNodeCertificateRotation(clients: Clientset, print: Print = () => {}): Promise<void> {
  print('[bootstrap-token] Configured RBAC rules to allow certificate rotation for all node client certificates in the cluster');
  await createOrUpdate(clients, 'clusterrolebindings', nodeBootstrapRBACObjects().bindings[3]);
}

/**
 * UpdateOrCreateTokens: stores each token as its Secret. With failIfExists
 * (`token create`), a token id already in use is kubeadm's error.
 */
export async function updateOrCreateTokens(clients: Clientset, failIfExists: boolean, tokens: BootstrapToken[], now: Date): Promise<void> {
  const secrets = resourceClient(clients, 'secrets');
  for (const token of tokens) {
    if (failIfExists) {
      // As kubeadm: only a Secret actually read counts; a failed read is left to the write below to report.
      const exists = await secrets.get(tokenSecretNamespace, bootstrapTokenSecretName(token.token.id)).then(() => true, () => false);
      if (exists) throw new Error(`a token with id ${goQuote(token.token.id)} already exists`);
    }
    try {
      await createOrUpdate(clients, 'secrets', bootstrapTokenToSecret(token, now));
    } catch (e) {
      throw new Error(`failed to create or update bootstrap token with name ${bootstrapTokenSecretName(token.token.id)}: ${(e as Error).message}`);
    }
  }
}

/** CreateNewTokens: as `token create` stores its token. */
export const createNewTokens = (clients: Clientset, tokens: BootstrapToken[], now: Date): Promise<void> => updateOrCreateTokens(clients, true, tokens, now);
