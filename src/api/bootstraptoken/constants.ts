/**
 * The names of bootstrap tokens as upstream fixes them
 * (k8s.io/cluster-bootstrap/token/api and kubeadm's constants): the Secret
 * that stores a token, its data keys, the cluster-info ConfigMap it signs, and
 * the identity it authenticates as.
 */

/** Secrets are named `bootstrap-token-<token id>`. */
export const bootstrapTokenSecretPrefix = 'bootstrap-token-';
export const secretTypeBootstrapToken = 'bootstrap.kubernetes.io/token';
/** The namespace of token Secrets (metav1.NamespaceSystem). */
export const tokenSecretNamespace = 'kube-system';

export const tokenIDKey = 'token-id';
export const tokenSecretKey = 'token-secret';
/** RFC 3339 UTC; unparseable means expired. */
export const expirationKey = 'expiration';
export const descriptionKey = 'description';
/** Comma-separated groups beyond system:bootstrappers. */
export const extraGroupsKey = 'auth-extra-groups';
export const usagePrefix = 'usage-bootstrap-';
export const usageSigningKey = 'usage-bootstrap-signing';
export const usageAuthenticationKey = 'usage-bootstrap-authentication';

/** ConfigMap kube-public/cluster-info: the cluster's kubeconfig (server, CA) and one signature per signing token. */
export const clusterInfoConfigMap = 'cluster-info';
export const clusterInfoNamespace = 'kube-public';
export const kubeconfigKey = 'kubeconfig';
export const jwsSignatureKeyPrefix = 'jws-kubeconfig-';

export const bootstrapUserPrefix = 'system:bootstrap:';
export const bootstrapDefaultGroup = 'system:bootstrappers';
/** kubeadm's group for the tokens nodes join with (constants.NodeBootstrapTokenAuthGroup). */
export const nodeBootstrapTokenAuthGroup = 'system:bootstrappers:kubeadm:default-node-token';

/** Go regexp syntax, as upstream prints them in messages. */
export const bootstrapTokenPattern = '\\A([a-z0-9]{6})\\.([a-z0-9]{16})\\z';
export const bootstrapTokenIDPattern = '\\A([a-z0-9]{6})\\z';
export const bootstrapGroupPattern = '\\Asystem:bootstrappers:[a-z0-9:-]{0,255}[a-z0-9]\\z';

export const knownTokenUsages = ['signing', 'authentication'];
/** kubeadm's defaults for `token create` and init: usages, groups, TTL 24h. */
export const defaultTokenUsages = ['signing', 'authentication'];
export const defaultTokenGroups = [nodeBootstrapTokenAuthGroup];
export const defaultTokenTTLMs = 24 * 3_600_000;
